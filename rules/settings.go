package rules

import (
	"fmt"
	"slices"
	"sync"
)

// Settings is what a run takes from flags and config to choose and shape
// findings. The zero value runs every default rule at its default severity.
type Settings struct {
	// Packs and Rules switch packs and single rules on (true) or off (false).
	Packs map[string]bool
	Rules map[string]bool
	// Severity overrides a rule's severity.
	Severity   map[string]Severity
	ProtoLevel ProtoLevel
	// IgnorePaths are globs (with **) of files whose findings are dropped.
	IgnorePaths []string
	// IgnoreName maps a finding's file, as shown, to the name IgnorePaths
	// are written against (the config file's directory); nil keeps it.
	IgnoreName func(file string) string
	// Compat is the directions diff rules judge (zero: backward).
	Compat Compat
	// Accepts are the config's ignores of one change each: each accepts
	// the findings of one rule about one element (a name, or a JSON
	// pointer), in the files matching its File glob (every file when
	// empty). Which of them matched is no part of the settings: each
	// command records it in its own Matched.
	Accepts []Ignore
	// Strict refuses (exit 2) a contract its format's validator calls
	// invalid, instead of reporting contract-invalid findings.
	Strict bool
}

// Enabled reports whether rule r runs under s.
func (s *Settings) Enabled(r *Rule) bool {
	if on, ok := s.Rules[r.ID]; ok {
		return on
	}
	if on, ok := s.Packs[string(r.Pack)]; ok && !on {
		return false
	}
	return !r.Off
}

// Level is the proto strictness a run judges: file (buf's default) unless set.
func (s *Settings) Level() ProtoLevel {
	if s.ProtoLevel == 0 {
		return LevelFile
	}
	return s.ProtoLevel
}

// UnusedIgnoreID is the pseudo-rule reported for an ignore that matched nothing.
const UnusedIgnoreID = "unused-ignore"

// Matched is one command's record of the accepts (Settings.Accepts, by
// index) that matched a finding, across every comparison it runs; the
// settings stay as the config gave them, so runs share nothing mutable
// but the record their command hands them. The zero value is empty and
// ready; it is safe for concurrent use, as the comparisons of one command
// run side by side.
type Matched struct {
	mu sync.Mutex
	n  map[int]int
	// accepted is what acceptances the change itself added let pass.
	accepted []Accepted
}

// Accepted is a finding that an acceptance the change under review added
// (one its old side did not have) let pass: the change may accept its own
// break, but never silently; every report shows it as accepted in this PR.
type Accepted struct {
	Finding Finding
	By      Ignore
}

// Accept records that by, which the change itself added, accepted fs; on a
// nil record it does nothing.
func (m *Matched) Accept(by Ignore, fs []Finding) {
	if m == nil || len(fs) == 0 {
		return
	}
	m.mu.Lock()
	for _, f := range fs {
		m.accepted = append(m.accepted, Accepted{Finding: f, By: by})
	}
	m.mu.Unlock()
}

// Accepted lists what Accept recorded, in the order of the findings, each
// finding once.
func (m *Matched) Accepted() []Accepted {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.accepted)
	slices.SortStableFunc(out, func(a, b Accepted) int { return compareFindings(a.Finding, b.Finding) })
	return slices.CompactFunc(out, func(a, b Accepted) bool {
		return a.Finding.Rule == b.Finding.Rule && a.Finding.Path == b.Finding.Path && a.Finding.Where == b.Finding.Where
	})
}

// Add records that accept i matched a finding; on a nil record it does
// nothing (a caller that reports no unused accepts keeps none).
func (m *Matched) Add(i int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.n == nil {
		m.n = map[int]int{}
	}
	m.n[i]++
	m.mu.Unlock()
}

func (m *Matched) count(i int) int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[i]
}

// UnusedAccepts reports, once every comparison of a command has run, the
// accepts of s that matched nothing, at their line in the config.
// compared tells whether the command read any file matching a File glob
// ("**" for an accept without one): one for files nobody compared could
// not have matched, and is not judged.
func (m *Matched) UnusedAccepts(s *Settings, compared func(glob string) bool) []Finding {
	var out []Finding
	for i, a := range s.Accepts {
		glob := a.File
		if glob == "" {
			glob = "**"
		}
		if m.count(i) > 0 || !compared(glob) {
			continue
		}
		out = append(out, Finding{Rule: UnusedIgnoreID, Severity: Warning, Where: a.Loc,
			Message: fmt.Sprintf("ignore of %s for element %s matched no finding; remove it", a.Rule, a.Element)})
	}
	return out
}
