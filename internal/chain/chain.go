// Package chain is the one ordered list of steps every command's findings
// pass once its comparisons ran, before any reporter sees them: the config
// accepts that matched nothing, what the change accepted itself, the
// oasdiff path filter, the waivers file, oasdiff ignore lines,
// require-approval and the order. Each step is a named value with one
// method over the findings, as golangci-lint's processors are; every
// command (diff, lint, review and so the hook and the Action, and the
// editor's server) runs the same Chain, so a new output or a new kind of
// acceptance cannot skip a step. What a step does not apply to a command
// (no waivers file, no base to compare acceptances with) is data the step
// holds, never a step left out. The comparison's own steps (supersession,
// inline ignores, config accepts, ignored paths, severity, de-duplication,
// one finding per edit, the version gate) run inside internal/engine, per
// comparison, since they read the two contracts.
package chain

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/glob"
	"github.com/contractlint/contractlint/internal/waiver"
	"github.com/contractlint/contractlint/rules"
)

// Set is the findings at one point of the chain, and what acceptances
// took out of them so far.
type Set struct {
	Findings []rules.Finding
	Accepted []Accepted
}

// Accepted is a finding an acceptance let pass, and what the reports say
// of it.
type Accepted struct {
	Finding       rules.Finding
	Justification string
	// InPR is set when the change under review added the acceptance
	// itself: every format shows it.
	InPR bool
	// At, By and Reason are the acceptance's place, who answers for it and
	// why, for require-approval; Fails is set when the acceptance is a
	// failing finding already (a config line, config-weakened).
	At         rules.Location
	By, Reason string
	Fails      bool
}

// Step is one named processor of the findings.
type Step interface {
	Name() string
	Process(*Set)
}

// Chain is the steps in the order they run.
type Chain []Step

// Run passes fs through every step, in order.
func (c Chain) Run(fs []rules.Finding) Set {
	s := Set{Findings: fs}
	for _, st := range c {
		st.Process(&s)
	}
	return s
}

// Names lists the steps in order.
func (c Chain) Names() []string {
	out := make([]string, len(c))
	for i, st := range c {
		out[i] = st.Name()
	}
	return out
}

// Command is what a command's chain needs to know; a zero field leaves its
// step with nothing to do.
type Command struct {
	// Settings and Matched are the config and what its accepts and the
	// change's own inline ignores matched across the command's runs;
	// Compared names the files compared (as shown): an accept for files
	// none matches is not judged unused.
	Settings *rules.Settings
	Matched  *rules.Matched
	Compared []string
	// Author is who wrote the line near at that says says (git blame of
	// the change), "" when unknown: who answers for an acceptance that
	// names no owner.
	Author Author
	// MatchPath is --match-path.
	MatchPath *regexp.Regexp
	// Waivers is the waivers file, judged at Now; WaiverInBase tells
	// whether the base already held a waiver (nil: no base to ask).
	Waivers      []waiver.Waiver
	Now          time.Time
	WaiverInBase func(waiver.Waiver) bool
	// Lines are the oasdiff ignore files' lines, named by Names;
	// LineInBase tells whether the base held one (nil: no base).
	Lines      []waiver.IgnoreLine
	Names      waiver.Names
	LineInBase func(rules.Location) bool
	// RequireApproval is the base config's require-approval.
	RequireApproval bool
}

// For is the chain every command runs, in its order.
func For(c Command) Chain {
	return Chain{
		UnusedAccepts{Settings: c.Settings, Matched: c.Matched, Compared: c.Compared},
		InlineAccepted{Matched: c.Matched, Author: c.Author},
		ConfigLoosened{Author: c.Author},
		MatchPath{Re: c.MatchPath},
		Waivers{List: c.Waivers, Now: c.Now, InBase: c.WaiverInBase},
		IgnoreLines{Lines: c.Lines, Names: c.Names, InBase: c.LineInBase},
		RequireApproval{On: c.RequireApproval},
		Sort{},
	}
}

// Author names who wrote the line near at that says says; "" when
// unknown. A nil Author knows nobody.
type Author func(at rules.Location, says string) string

// owner names who answers for an acceptance the change added at at, and
// what it is: the owner it names itself, else its line's author ("Ada
// <ada@example.com> (inline ignore at api.yaml:3:5)"), else only what and
// where.
func (a Author) owner(named string, at rules.Location, says, what string) string {
	where := what + " at " + at.String()
	if named == "" && a != nil {
		named = a(at, says)
	}
	if named == "" {
		return "the " + where
	}
	return named + " (" + where + ")"
}

// UnusedAccepts reports the config's accepts that matched no finding of
// any comparison, at their line.
type UnusedAccepts struct {
	Settings *rules.Settings
	Matched  *rules.Matched
	Compared []string
}

func (UnusedAccepts) Name() string { return "unused-accepts" }

func (u UnusedAccepts) Process(s *Set) {
	if u.Settings == nil || u.Matched == nil {
		return
	}
	name := u.Settings.IgnoreName
	if name == nil {
		name = func(f string) string { return f }
	}
	s.Findings = append(s.Findings, u.Matched.UnusedAccepts(u.Settings, func(g string) bool {
		return slices.ContainsFunc(u.Compared, func(f string) bool { return glob.Match(g, name(f)) })
	})...)
}

// InlineAccepted lists what the inline ignores the change added accepted
// (the comparisons recorded it in Matched) as accepted in this PR.
type InlineAccepted struct {
	Matched *rules.Matched
	Author  Author
}

func (InlineAccepted) Name() string { return "inline-accepted-in-pr" }

func (x InlineAccepted) Process(s *Set) {
	for _, a := range x.Matched.Accepted() {
		s.Accepted = append(s.Accepted, inPR(a.Finding, a.By.Loc, x.Author.owner(a.By.Owner, a.By.Loc, a.By.Rule, "inline ignore"), a.By.Reason))
	}
}

// inPR is f accepted by an acceptance the change added at at, by who, for
// reason.
func inPR(f rules.Finding, at rules.Location, by, reason string) Accepted {
	return Accepted{Finding: f, InPR: true, Justification: "accepted in this PR by " + by + ": " + reason, At: at, By: by, Reason: reason}
}

// ConfigLoosened lists each config line the change loosens the gate with
// (a config-weakened finding, which stays a failing finding) as accepted
// in this PR too, at that line: no list of acceptances leaves it out.
type ConfigLoosened struct{ Author Author }

func (ConfigLoosened) Name() string { return "config-accepted-in-pr" }

func (x ConfigLoosened) Process(s *Set) {
	for _, f := range s.Findings {
		if f.Rule == rules.ConfigWeakenedID {
			s.Accepted = append(s.Accepted, Accepted{Finding: f, InPR: true, At: f.Where, Fails: true,
				Justification: "accepted in this PR by " + x.Author.owner("", f.Where, "", "config line")})
		}
	}
}

// MatchPath keeps the findings about a path --match-path selects, as
// oasdiff's flag does; a finding about no operation (a config or waiver
// finding) is kept.
type MatchPath struct{ Re *regexp.Regexp }

func (MatchPath) Name() string { return "match-path" }

func (m MatchPath) Process(s *Set) {
	if m.Re == nil {
		return
	}
	s.Findings = slices.DeleteFunc(s.Findings, func(f rules.Finding) bool { return !m.matches(f) })
	s.Accepted = slices.DeleteFunc(s.Accepted, func(a Accepted) bool { return !m.matches(a.Finding) })
}

func (m MatchPath) matches(f rules.Finding) bool {
	if len(f.Operations) == 0 {
		return true
	}
	for _, op := range f.Operations {
		_, p, ok := strings.Cut(op, " ")
		if !ok {
			p = op
		}
		if m.Re.MatchString(p) {
			return true
		}
	}
	return false
}

// Waivers applies the waivers file: what a live waiver accepts leaves the
// findings; an expired waiver is a finding of its own. A waiver the base
// lacked is the change's own acceptance.
type Waivers struct {
	List   []waiver.Waiver
	Now    time.Time
	InBase func(waiver.Waiver) bool
}

func (Waivers) Name() string { return "waivers" }

func (x Waivers) Process(s *Set) {
	if len(x.List) == 0 {
		return
	}
	var waived []waiver.Waived
	s.Findings, waived = waiver.Apply(x.List, s.Findings, x.Now)
	s.accept(waived, func(w waiver.Waived) (bool, string, string) {
		return x.InBase != nil && !x.InBase(w.Waiver), w.Waiver.Owner, w.Waiver.Reason
	})
}

// accept lists what a file of acceptances let pass; own says whether the
// change added the acceptance itself, and by whom for what reason.
func (s *Set) accept(ws []waiver.Waived, own func(waiver.Waived) (added bool, by, reason string)) {
	for _, w := range ws {
		if added, by, reason := own(w); added {
			s.Accepted = append(s.Accepted, inPR(w.Finding, w.Waiver.Loc, by, reason))
			continue
		}
		s.Accepted = append(s.Accepted, Accepted{Finding: w.Finding, Justification: w.Justification()})
	}
}

// IgnoreLines applies oasdiff ignore files' lines; a line the base lacked
// is the change's own acceptance.
type IgnoreLines struct {
	Lines  []waiver.IgnoreLine
	Names  waiver.Names
	InBase func(rules.Location) bool
}

func (IgnoreLines) Name() string { return "ignore-lines" }

func (x IgnoreLines) Process(s *Set) {
	if len(x.Lines) == 0 {
		return
	}
	var ignored []waiver.Waived
	s.Findings, ignored = waiver.ApplyIgnoreLines(x.Lines, s.Findings, x.Names)
	s.accept(ignored, func(w waiver.Waived) (bool, string, string) {
		return x.InBase != nil && !x.InBase(w.Waiver.Loc), w.Waiver.Owner + " " + w.Waiver.Loc.File, "line " + strconv.Itoa(w.Waiver.Loc.Line)
	})
}

// RequireApproval makes, when the base config sets it (On), every
// acceptance the change added itself a failing acceptance-unapproved
// finding at its place.
type RequireApproval struct{ On bool }

func (RequireApproval) Name() string { return "require-approval" }

func (r RequireApproval) Process(s *Set) {
	if !r.On {
		return
	}
	for _, a := range s.Accepted {
		if a.InPR && !a.Fails {
			s.Findings = append(s.Findings, waiver.Unapproved(a.Finding, a.At, a.By, a.Reason))
		}
	}
}

// Drop drops the findings Fn says (none when Fn is nil), named Label: a
// filter a loader sets up, such as buf.yaml's breaking ignores.
type Drop struct {
	Label string
	Fn    func(rules.Finding) bool
}

func (d Drop) Name() string { return d.Label }

func (d Drop) Process(s *Set) {
	if d.Fn != nil {
		s.Findings = slices.DeleteFunc(s.Findings, d.Fn)
	}
}

// Sort puts the findings in report order.
type Sort struct{}

func (Sort) Name() string { return "sort" }

func (Sort) Process(s *Set) { rules.SortFindings(s.Findings) }
