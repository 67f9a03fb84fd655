package report

import (
	"encoding/json"
	"io"

	"github.com/contractlint/contractlint/rules"
)

// JSON writes the stable schema the README documents (Reports, json). Strings go through
// Clean like everywhere else: `jq -r` prints them to a terminal.
type JSON struct{}

type jsonLoc struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
}

type jsonFinding struct {
	Rule       string         `json:"rule"`
	Severity   rules.Severity `json:"severity"`
	Bump       rules.Bump     `json:"bump"`
	Message    string         `json:"message"`
	File       string         `json:"file"`
	Line       int            `json:"line"`
	Column     int            `json:"column"`
	Side       string         `json:"side"`
	Old        *jsonLoc       `json:"old,omitempty"`
	Operations []string       `json:"operations,omitempty"`
	// Direction is backward or forward under --compat forward or full.
	Direction string `json:"direction,omitempty"`
	// Also names the rules whose findings about the same edit this one
	// stands for (one edit, one finding).
	Also []string `json:"also,omitempty"`
	// Related is what the findings this one stands for said, each its rule,
	// severity and message.
	Related []rules.Related `json:"related,omitempty"`
	// Path is the element, and Fingerprint the change's identity without
	// its lines: `contractlint waive RULE PATH --fingerprint FP` accepts it.
	Path        string `json:"path,omitempty"`
	Fingerprint string `json:"fingerprint"`
	// Justification is set on a waived finding, and AcceptedInPR when what
	// waived it was added by the change under review.
	Justification string `json:"justification,omitempty"`
	AcceptedInPR  bool   `json:"acceptedInPR,omitempty"`
	// Usage is what consumer evidence says of the removed element.
	Usage *rules.Usage `json:"usage,omitempty"`
}

type jsonReport struct {
	// Base and Compared are set by review only.
	Base        *jsonBase     `json:"base,omitempty"`
	Compared    *int          `json:"compared,omitempty"`
	NotReviewed []string      `json:"not_reviewed,omitempty"`
	Passes      []jsonPass    `json:"passes,omitempty"`
	Findings    []jsonFinding `json:"findings"`
	Waived      []jsonFinding `json:"waived,omitempty"`
	Summary     Summary       `json:"summary"`
	Notes       []string      `json:"notes,omitempty"`
}

// jsonPass is a check a live command saw hold.
type jsonPass struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

type jsonBase struct {
	Ref    string `json:"ref"`
	Commit string `json:"commit"`
	Text   string `json:"text"`
}

func (JSON) Write(w io.Writer, r *Report) error {
	out := jsonReport{Findings: make([]jsonFinding, 0, len(r.Findings)), Summary: r.Summarize(), Notes: cleanAll(r.Notes)}
	if v := r.Review; v != nil {
		out.Base = &jsonBase{Ref: Clean(v.BaseRef), Commit: v.BaseCommit, Text: Clean(v.Base)}
		out.Compared, out.NotReviewed = &v.Compared, cleanAll(v.NotReviewed)
	}
	for _, p := range r.Passes {
		out.Passes = append(out.Passes, jsonPass{Rule: Clean(p.Rule), Message: Clean(p.Message),
			File: Clean(p.Where.File), Line: p.Where.Line, Column: p.Where.Column})
	}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, jsonFindingOf(f))
	}
	for _, w := range r.Waived {
		jf := jsonFindingOf(w.Finding)
		jf.Justification, jf.AcceptedInPR = Clean(w.Justification), w.InPR
		out.Waived = append(out.Waived, jf)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func jsonFindingOf(f rules.Finding) jsonFinding {
	jf := jsonFinding{Rule: Clean(f.Rule), Severity: f.Severity, Bump: bumpOf(f), Message: Clean(f.Message),
		File: Clean(f.Where.File), Line: f.Where.Line, Column: f.Where.Column, Side: "new", Operations: cleanAll(f.Operations),
		Direction: f.Compat.String(), Also: cleanAll(f.Also), Related: cleanRelated(f.Related), Path: Clean(f.Path), Fingerprint: f.ChangeFingerprint(),
		Usage: cleanUsage(f.Usage)}
	if f.Removed {
		jf.Side = "old"
	}
	if f.Old != nil {
		jf.Old = &jsonLoc{File: Clean(f.Old.File), Line: f.Old.Line, Column: f.Old.Column}
	}
	return jf
}

// cleanRelated copies related findings with their text cleaned: a message
// quotes contract text.
func cleanRelated(rs []rules.Related) []rules.Related {
	var out []rules.Related
	for _, r := range rs {
		out = append(out, rules.Related{Rule: Clean(r.Rule), Severity: r.Severity, Message: Clean(r.Message)})
	}
	return out
}

// cleanUsage copies a finding's usage with its consumer names cleaned:
// they come from evidence files, as untrusted as the contracts.
func cleanUsage(u *rules.Usage) *rules.Usage {
	if u == nil {
		return nil
	}
	c := *u
	c.Consumers = cleanAll(u.Consumers)
	return &c
}
