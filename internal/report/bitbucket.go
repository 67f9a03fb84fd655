package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/contractlint/contractlint/rules"
)

// Bitbucket writes a Bitbucket Code Insights report and its annotations as
// one JSON object, {"report": …, "annotations": […]}: the report is PUT to
// …/commit/{commit}/reports/{id} and the annotations POSTed to its
// /annotations, 100 a request (the step in
// integrations/bitbucket/bitbucket-pipelines.yml does both through the
// Pipelines proxy).
type Bitbucket struct {
	// Root and Dir place file names as SARIF does: Bitbucket wants paths
	// relative to the repository's top.
	Root, Dir string
	// RulesURL is where an annotation links its rule ("" links nowhere).
	RulesURL string
	// MaxAnnotations bounds the annotations (0: Bitbucket's limit).
	MaxAnnotations int
}

// Bitbucket's documented limits: a report holds at most 1,000 annotations
// and shows at most 6 data fields; an annotation's summary holds at most 450
// characters; one request posts at most 100 annotations.
const (
	bitbucketMaxAnnotations = 1000
	bitbucketMaxData        = 6
	bitbucketSummaryMax     = 450
)

type bitbucketPayload struct {
	Report      bitbucketReport       `json:"report"`
	Annotations []bitbucketAnnotation `json:"annotations"`
}

type bitbucketReport struct {
	Title      string          `json:"title"`
	Details    string          `json:"details"`
	ReportType string          `json:"report_type"`
	Reporter   string          `json:"reporter"`
	Result     string          `json:"result"`
	Data       []bitbucketData `json:"data"`
}

type bitbucketData struct {
	Title string `json:"title"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

type bitbucketAnnotation struct {
	ExternalID     string `json:"external_id"`
	AnnotationType string `json:"annotation_type"`
	Severity       string `json:"severity"`
	Path           string `json:"path,omitempty"`
	Line           int    `json:"line,omitempty"`
	Summary        string `json:"summary"`
	Details        string `json:"details,omitempty"`
	Link           string `json:"link,omitempty"`
}

func (b Bitbucket) Write(w io.Writer, r *Report) error {
	r = SARIF{Root: b.Root, Dir: b.Dir}.rebased(r)
	limit := b.MaxAnnotations
	if limit <= 0 {
		limit = bitbucketMaxAnnotations
	}
	seen := map[string]int{}
	var anns []bitbucketAnnotation
	for _, p := range r.Problems {
		a := b.annotation(problemFinding(p), seen)
		a.Severity, a.AnnotationType = "CRITICAL", "BUG"
		anns = append(anns, a)
	}
	kept := keepMostSevere(r.Findings, max(limit-len(anns), 0))
	for _, f := range bySeverity(kept) {
		anns = append(anns, b.annotation(f, seen))
	}
	// What the change accepted itself is listed after the findings, as
	// low annotations that fail nothing.
	accepted := r.acceptedInPR()
	for _, x := range accepted {
		anns = append(anns, b.annotation(acceptedAsInfo(x), seen))
	}
	anns = anns[:min(len(anns), limit)]
	hidden := len(r.Problems) + len(r.Findings) + len(accepted) - len(anns)
	out := bitbucketPayload{Report: bitbucketSummary(r, hidden, limit), Annotations: anns}
	if out.Annotations == nil {
		out.Annotations = []bitbucketAnnotation{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// bitbucketSummary is the report card: the verdict, the counts and the
// version bump the run needs as data fields, and what was left out.
func bitbucketSummary(r *Report, hidden, limit int) bitbucketReport {
	s := r.Summarize()
	rep := bitbucketReport{Title: "contractlint", ReportType: "BUG", Reporter: toolName(r), Result: "PASSED",
		Details: "Contract changes that break existing clients: " + findingCounts(s) + "."}
	if s.Errors > 0 || len(r.Problems) > 0 {
		rep.Result = "FAILED"
	}
	if len(r.Problems) > 0 {
		rep.Details = fmt.Sprintf("%s could not be read; nothing was compared.", plural(len(r.Problems), "input problem"))
	}
	if v := r.Review; v != nil {
		rep.Details = Clean("Compared against "+v.Base+": "+v.Outcome(s)) + "."
	}
	if hidden > 0 {
		rep.Details += fmt.Sprintf(" %d more not shown: Bitbucket takes %d annotations per report, the most severe are shown.", hidden, limit)
	}
	rep.Data = []bitbucketData{
		{Title: "Errors", Type: "NUMBER", Value: s.Errors},
		{Title: "Warnings", Type: "NUMBER", Value: s.Warnings},
		{Title: "Infos", Type: "NUMBER", Value: s.Infos},
	}
	if s.AcceptedInPR > 0 {
		rep.Data = append(rep.Data, bitbucketData{Title: "Accepted in this PR", Type: "NUMBER", Value: s.AcceptedInPR})
	}
	if s.Bump != 0 {
		rep.Data = append(rep.Data, bitbucketData{Title: "Version bump needed", Type: "TEXT", Value: s.Bump.String()})
	}
	if len(r.Problems) > 0 {
		rep.Data = append(rep.Data, bitbucketData{Title: "Unreadable inputs", Type: "NUMBER", Value: len(r.Problems)})
	}
	if hidden > 0 {
		rep.Data = append(rep.Data, bitbucketData{Title: "Not shown", Type: "NUMBER", Value: hidden})
	}
	rep.Data = rep.Data[:min(len(rep.Data), bitbucketMaxData)]
	return rep
}

func (b Bitbucket) annotation(f rules.Finding, seen map[string]int) bitbucketAnnotation {
	a := bitbucketAnnotation{
		ExternalID:     fingerprint(f, seen),
		AnnotationType: "CODE_SMELL",
		Severity:       "LOW",
		Path:           Clean(f.Where.File),
		Summary:        clip(Clean(f.Rule+compatLabel(f)+": "+f.Message+removedNote(f)), bitbucketSummaryMax),
		Details:        Clean(f.Message + removedNote(f) + bumpNote(f)),
	}
	switch f.Severity {
	case rules.Error:
		a.Severity, a.AnnotationType = "HIGH", "BUG"
	case rules.Warning:
		a.Severity = "MEDIUM"
	}
	if !f.Removed && f.Where.Line > 0 {
		a.Line = f.Where.Line
	}
	if b.RulesURL != "" && ruleIDRE.MatchString(f.Rule) {
		a.Link = ruleLink(b.RulesURL, f.Rule)
	}
	return a
}

// clip cuts s to at most n characters, the last an ellipsis when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// bySeverity is fs most severe first, in their order within a severity.
func bySeverity(fs []rules.Finding) []rules.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b rules.Finding) int { return int(b.Severity) - int(a.Severity) })
	return out
}
