package rules

import (
	"fmt"
	"sync"
)

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

// applyAccepts drops the findings an accepted change covers.
func applyAccepts(fs []Finding, s *Settings) []Finding {
	if len(s.Accepts) == 0 {
		return fs
	}
	name := s.IgnoreName
	if name == nil {
		name = func(f string) string { return f }
	}
	out := fs[:0]
	for _, f := range fs {
		hit := false
		for i, a := range s.Accepts {
			if a.Rule == f.Rule && a.covers(f.Path) && (a.File == "" || MatchGlob(a.File, name(f.Where.File))) {
				hit = true
				s.hits.add(i)
			}
		}
		if !hit {
			out = append(out, f)
		}
	}
	return out
}

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
