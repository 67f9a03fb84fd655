package rules

import (
	"fmt"
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
	// Accepts are the config's ignores of one change each (see Accept).
	Accepts []Ignore
	hits    *acceptHits
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

// acceptHits counts, across every Run of one command, the findings each
// accepted change (a config ignore) matched; Run may be called from
// several goroutines with one Settings.
type acceptHits struct {
	mu sync.Mutex
	n  map[int]int
}

// Accept adds config ignores: each accepts the findings of one rule about
// one element (a name, or a JSON pointer), in the files matching its File
// glob (every file when empty).
func (s *Settings) Accept(igs ...Ignore) {
	if s.hits == nil {
		s.hits = &acceptHits{n: map[int]int{}}
	}
	s.Accepts = append(s.Accepts, igs...)
}

// AcceptHit records that accepted change i (an index into Accepts)
// matched a finding; the engine calls it, UnusedAccepts reads it.
func (s *Settings) AcceptHit(i int) { s.hits.add(i) }

func (h *acceptHits) add(i int) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.n[i]++
	h.mu.Unlock()
}

// UnusedAccepts reports, once every comparison of a command has run, the
// accepted changes that matched nothing, at their line in the config.
// compared tells whether the command read any file matching a File glob
// ("**" for an accept without one): one for files nobody compared could
// not have matched, and is not judged.
func (s *Settings) UnusedAccepts(compared func(glob string) bool) []Finding {
	var out []Finding
	for i, a := range s.Accepts {
		glob := a.File
		if glob == "" {
			glob = "**"
		}
		if s.hits != nil {
			s.hits.mu.Lock()
			n := s.hits.n[i]
			s.hits.mu.Unlock()
			if n > 0 {
				continue
			}
		}
		if !compared(glob) {
			continue
		}
		out = append(out, Finding{Rule: UnusedIgnoreID, Severity: Warning, Where: a.Loc,
			Message: fmt.Sprintf("ignore of %s for element %s matched no finding; remove it", a.Rule, a.Element)})
	}
	return out
}
