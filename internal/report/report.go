// Package report renders findings; one Reporter per format. Reporters never
// decide what is a finding, and escape every piece of contract text they print.
package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// Report is everything a reporter prints.
type Report struct {
	Findings []rules.Finding
	Rules    *rules.Registry
	// Tool and Version identify contractlint in machine-readable formats.
	Tool    string
	Version string
	// Review is set by `review`: the base and what was compared.
	Review *Review
	// Notes say what the run compared, beside the findings: the releases a
	// transitive review checked and those it skipped.
	Notes []string
	// Problems are input that could not be read (the run exits 2); the
	// formats a CI reads (github, sarif) show them beside findings.
	Problems []Problem
	// Passes are the checks a live command (probe) ran and saw hold; the
	// text and json formats show them before the findings.
	Passes []Pass
	// Waived are the findings a waiver or ignore accepted: json lists them
	// apart, sarif as suppressed results with the waiver's justification.
	// Those the change itself accepted (InPR) every format shows.
	Waived []Waived
	// Bump is the version bump the compared changes need beyond what their
	// findings say (an added operation is no finding, yet needs a minor
	// bump); zero when the command compared nothing (lint, probe, replay)
	// or saw no changes, and then the run states no bump.
	Bump rules.Bump
}

// Waived is a finding a waiver accepted, and what the waiver says.
type Waived struct {
	Finding       rules.Finding
	Justification string
	// InPR is set when what accepted the finding (an inline ignore, a
	// waiver) was added by the change under review, not found in its base:
	// a pull request may accept its own break, but reviewers must see it.
	InPR bool
}

// acceptedInPR lists the findings the change itself accepted.
func (r *Report) acceptedInPR() []Waived {
	var out []Waived
	for _, w := range r.Waived {
		if w.InPR {
			out = append(out, w)
		}
	}
	return out
}

// Pass is one check that held, at the place it is about.
type Pass struct {
	Where   rules.Location
	Rule    string
	Message string
}

// Problem is one input that could not be read, at file:line:col.
type Problem struct {
	File         string
	Line, Column int
	Msg          string
}

// Summary counts findings by severity.
type Summary struct {
	Findings int `json:"findings"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// AcceptedInPR counts the findings the change itself accepted (see
	// Waived.InPR); they are not among Findings.
	AcceptedInPR int `json:"acceptedInPR,omitempty"`
	// Bump is the version bump the whole run needs: the largest of its
	// findings' and of Report.Bump; omitted when nothing was compared or
	// nothing changed (Report.Bump is zero), since a bump is what a change
	// needs: lint's findings each need a patch, its run none.
	Bump rules.Bump `json:"bump,omitempty"`
}

// Summarize counts r's findings.
func (r *Report) Summarize() Summary {
	s := Summary{Findings: len(r.Findings), Bump: r.Bump, AcceptedInPR: len(r.acceptedInPR())}
	for _, f := range r.Findings {
		if s.Bump != 0 {
			s.Bump = max(s.Bump, bumpOf(f))
		}
		switch f.Severity {
		case rules.Error:
			s.Errors++
		case rules.Warning:
			s.Warnings++
		case rules.Info:
			s.Infos++
		}
	}
	return s
}

// acceptedNote is what a summary line adds for the findings the change
// itself accepted: ", 1 accepted in this PR", or "".
func acceptedNote(s Summary) string {
	if s.AcceptedInPR == 0 {
		return ""
	}
	return fmt.Sprintf(", %d accepted in this PR", s.AcceptedInPR)
}

// acceptedLine is one finding the change accepted, in plain text: where,
// the rule, what changed and who accepted it why.
func acceptedLine(w Waived) string {
	return fmt.Sprintf("%s: accepted %s: %s (%s)", Clean(findingPlace(w.Finding)), Clean(w.Finding.Rule), Clean(w.Finding.Message), Clean(w.Justification))
}

// acceptedAsInfo is a finding the change accepted as the formats that
// list only findings show it: an info at its place, whose message says it
// was accepted in this PR, by whom and why. It fails no gate.
func acceptedAsInfo(w Waived) rules.Finding {
	f := w.Finding
	f.Severity = rules.Info
	f.Message = "accepted in this PR: " + f.Message + " (" + strings.TrimPrefix(w.Justification, "accepted in this PR ") + ")"
	return f
}

// bumpOf is the version bump f needs. A finding no rule stamped (an
// unused ignore, a live probe's) is about no change to the API: patch.
func bumpOf(f rules.Finding) rules.Bump { return cmp.Or(f.Bump, rules.Patch) }

// bumpNote is how a finding's line says the bump it needs: " (needs major)".
func bumpNote(f rules.Finding) string { return " (needs " + bumpOf(f).String() + ")" }

// bumpLine is the summary's sentence about the version the run needs, ""
// when nothing changed.
func bumpLine(s Summary) string {
	if s.Bump == 0 {
		return ""
	}
	return "needs a " + strings.ToUpper(s.Bump.String()) + " version bump"
}

// Options carries what a reporter may need from the environment.
type Options struct {
	// Color turns on ANSI colour in text output (only on a terminal).
	Color bool
	// Getenv reads GITHUB_STEP_SUMMARY and the like.
	Getenv func(string) string
	// RulesURL is where Markdown output links rule IDs (default
	// DefaultRulesURL); "-" links nowhere.
	RulesURL string
	// Root and Dir place SARIF's file names (see SARIF): the top of the
	// work tree and the directory the names are relative to.
	Root, Dir string
	// Sources reads the compared files (github-review quotes them); nil
	// when the command has none to give.
	Sources Sources
}

// Sources reads a contract file, named as the findings name it, on each
// side of the change.
type Sources interface {
	Head(name string) ([]byte, error)
	Base(name string) ([]byte, error)
}

func (o Options) rulesURL() string {
	switch o.RulesURL {
	case "":
		return DefaultRulesURL
	case "-":
		return ""
	}
	return o.RulesURL
}

// Reporter writes one report in one format.
type Reporter interface {
	Write(w io.Writer, r *Report) error
}

// constructors maps a format name to its reporter.
var constructors = map[string]func(Options) Reporter{
	"text":  func(o Options) Reporter { return &Text{Color: o.Color} },
	"json":  func(Options) Reporter { return JSON{} },
	"sarif": func(o Options) Reporter { return SizedSARIF{SARIF: SARIF{Root: o.Root, Dir: o.Dir}} },
	"github": func(o Options) Reporter {
		return &GitHub{Getenv: o.Getenv, RulesURL: o.rulesURL()}
	},
	"markdown": func(o Options) Reporter {
		return &Markdown{RulesURL: o.rulesURL(), MaxBytes: commentBudget}
	},
	"junit": func(Options) Reporter { return JUnit{} },
	"msvs":  func(Options) Reporter { return MSVS{} },

	// Where each platform reviews: its own report shapes and limits.
	"gitlab": func(o Options) Reporter { return GitLab{Root: o.Root, Dir: o.Dir} },
	"bitbucket": func(o Options) Reporter {
		return Bitbucket{Root: o.Root, Dir: o.Dir, RulesURL: o.rulesURL()}
	},
	"github-review": func(o Options) Reporter {
		return GitHubReview{Sources: o.Sources, RulesURL: o.rulesURL()}
	},
}

// Formats lists the format names, sorted.
func Formats() []string {
	var names []string
	for k := range constructors {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// New returns the reporter for format.
func New(format string, o Options) (Reporter, error) {
	c, ok := constructors[format]
	if !ok {
		return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats(), ", "))
	}
	return c(o), nil
}
