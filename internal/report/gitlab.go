package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/contractlint/contractlint/rules"
)

// GitLab writes a GitLab Code Quality report: a JSON array of issues, each
// with a description, check_name, fingerprint, severity and a location
// (path and lines.begin). GitLab shows them in the merge request widget and
// on the diff; it keeps one issue per fingerprint, so every finding gets its
// own (the SARIF fingerprint, ordinal included).
type GitLab struct {
	// Root and Dir place file names as SARIF does: GitLab wants paths
	// relative to the repository's top.
	Root, Dir string
}

type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
}

// gitlabSeverity maps ours onto GitLab's five: a break is critical (what
// fails the gate), blocker is kept for input that could not be read.
func gitlabSeverity(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "critical"
	case rules.Warning:
		return "minor"
	}
	return "info"
}

func (g GitLab) Write(w io.Writer, r *Report) error {
	r = SARIF{Root: g.Root, Dir: g.Dir}.rebased(r)
	issues := []gitlabIssue{}
	seen := map[string]int{}
	for _, p := range r.Problems {
		issue := gitlabIssueFor(problemFinding(p), seen)
		issue.Severity = "blocker"
		issues = append(issues, issue)
	}
	for _, f := range r.Findings {
		issues = append(issues, gitlabIssueFor(f, seen))
	}
	// What the change accepted itself is an info issue the merge request
	// widget lists beside the findings.
	for _, w := range r.acceptedInPR() {
		issues = append(issues, gitlabIssueFor(acceptedAsInfo(w), seen))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(issues)
}

// gitlabIssueFor places a removal on the file's first line, since its own
// line is in the base version, and says that line in the description.
func gitlabIssueFor(f rules.Finding, seen map[string]int) gitlabIssue {
	line := f.Where.Line
	if f.Removed || line < 1 {
		line = 1
	}
	path := f.Where.File
	if path == "" {
		path = "."
	}
	return gitlabIssue{
		Description: Clean(fmt.Sprintf("%s%s: %s%s%s", f.Rule, compatLabel(f), f.Message, removedNote(f), bumpNote(f))),
		CheckName:   Clean(f.Rule),
		Fingerprint: fingerprint(f, seen),
		Severity:    gitlabSeverity(f.Severity),
		Location:    gitlabLocation{Path: Clean(path), Lines: gitlabLines{Begin: line}},
	}
}

// problemFinding is an unreadable input as the platforms' formats show it:
// one more entry at its file and line, under its own check name.
func problemFinding(p Problem) rules.Finding {
	return rules.Finding{Rule: "contractlint-input", Message: "cannot read the contract: " + p.Msg,
		Where: rules.Location{File: p.File, Line: p.Line, Column: p.Column}}
}
