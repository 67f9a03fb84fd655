package rules

import (
	"fmt"
	"strings"
)

// Bump is the part of a semantic version a change needs raised: Major when
// it breaks a client that exists, Minor when it adds what a client may use,
// Patch when it does neither (descriptions, examples, the linter's own
// files). Bumps are ordered: the larger covers the smaller.
type Bump uint8

const (
	Patch Bump = iota + 1
	Minor
	Major
)

func (b Bump) String() string {
	switch b {
	case Patch:
		return "patch"
	case Minor:
		return "minor"
	case Major:
		return "major"
	}
	return ""
}

// MarshalText lets reports spell a bump as the CLI does.
func (b Bump) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

func (b *Bump) UnmarshalText(t []byte) error {
	v, err := ParseBump(string(t))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// ParseBump reads major, minor or patch.
func ParseBump(s string) (Bump, error) {
	for b := Patch; b <= Major; b++ {
		if strings.EqualFold(strings.TrimSpace(s), b.String()) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown version bump %q (want major, minor or patch)", s)
}

// RequiredBump is the bump a finding of r needs. A rule declares it (Bump)
// as it declares its severity; undeclared, it follows from what the rule
// judges: a backward diff rule finds a break of an existing client (major,
// whatever its severity: a severity says how sure, not whom it breaks); a
// forward rule finds what new clients may use that the old side lacks (an
// addition: minor); a lint, probe or replay rule judges one version or a
// live server, which no version number changes (patch). A severity
// override therefore never changes the bump.
func (r *Rule) RequiredBump() Bump {
	switch {
	case r.Bump != 0:
		return r.Bump
	case r.Mode != DiffRule:
		return Patch
	case r.Compat.orDefault() == Forward:
		return Minor
	}
	return Major
}

// ChangeBump is the bump a change needs when no rule judged it: an element
// added is something a client may start to use; anything else no rule calls
// breaking (a description, an example, a loosened request) needs a patch.
func ChangeBump(c *Change) Bump {
	if c.Kind == Added {
		return Minor
	}
	return Patch
}

// MaxBump is the largest of bs (zero when there are none).
func MaxBump(bs ...Bump) Bump {
	var m Bump
	for _, b := range bs {
		m = max(m, b)
	}
	return m
}
