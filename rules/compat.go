package rules

import (
	"fmt"
	"strings"
)

// Compat is the set of directions a diff is judged in, as schema registries
// name them: backward asks whether existing clients work against the new
// server; forward asks whether new clients work against the old server (a
// rolling deploy, a rollback). The zero value is backward, today's question.
type Compat uint8

const (
	Backward Compat = 1 << iota
	Forward
	Full = Backward | Forward
)

func (c Compat) String() string {
	switch c {
	case Backward:
		return "backward"
	case Forward:
		return "forward"
	case Full:
		return "full"
	}
	return ""
}

// MarshalText spells a direction as the flag does.
func (c Compat) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Has reports whether c includes any of x; the zero value is backward.
func (c Compat) Has(x Compat) bool { return c.orDefault()&x != 0 }

func (c Compat) orDefault() Compat {
	if c == 0 {
		return Backward
	}
	return c
}

// ParseCompat reads --compat and the config's compat key.
func ParseCompat(s string) (Compat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "backward":
		return Backward, nil
	case "forward":
		return Forward, nil
	case "full":
		return Full, nil
	}
	return 0, fmt.Errorf("unknown compat %q (want backward, forward or full)", s)
}

// Judges reports whether rule r runs under s: a diff rule judges one
// direction (backward unless it says otherwise); lint rules judge none.
func (s *Settings) Judges(r *Rule) bool {
	return r.Mode != DiffRule || s.Compat.Has(r.Compat.orDefault())
}

// Labelled stamps each finding of r with its direction when the run judges
// more than backward, so every report can say which way a change breaks.
func (s *Settings) Labelled(r *Rule, fs []Finding) []Finding {
	if r.Mode != DiffRule || s.Compat.orDefault() == Backward {
		return fs
	}
	for i := range fs {
		fs[i].Compat = r.Compat.orDefault()
	}
	return fs
}
