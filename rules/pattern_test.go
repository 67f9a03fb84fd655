package rules

import (
	"slices"
	"testing"
)

func TestAlternatives(t *testing.T) {
	for re, want := range map[string][]string{
		"^a$":              {"^a$"},
		"^$|^a$":           {"^$", "^a$"},
		"^(a|b)$|c":        {"^(a|b)$", "c"},
		"[|]x|y":           {"[|]x", "y"},
		"[]|]x|y":          {"[]|]x", "y"},
		"[^]|]x|y":         {"[^]|]x", "y"},
		`a\|b|c`:           {`a\|b`, "c"},
		"^[^:]+:[^|]+$|^x": {"^[^:]+:[^|]+$", "^x"},
	} {
		if got := alternatives(re); !slices.Equal(got, want) {
			t.Errorf("alternatives(%q) = %q, want %q", re, got, want)
		}
	}
}

func TestKeepsAlternatives(t *testing.T) {
	for _, c := range []struct {
		was, now  string
		re2, ecma bool // kept as RE2 reads them, and as written
	}{
		{"^x$", "^$|^x$", true, true},
		{"^$|^$|^x$", "^$|^x$", true, true},
		{"^x$", "^y$", false, false},
		{"^(a|b)$", "^a$|^(a|c)$", false, false},
		{"", "^x$", false, false},
		// One class spelled otherwise: the same in RE2 only.
		{"^[[:word:]]+$", "^[\\w]+$", true, false},
		{"^[[:alnum:]]x$", "^$|^[0-9a-zA-Z]x$", true, false},
		{"^[[:word:]]+$", "^[a-z]+$", false, false},
		// What RE2 cannot parse is compared as written.
		{"^(?<=a)b$", "^(?<=a)b$", true, true},
		{"^(?<=a)b$", "^(?<=b)b$", false, false},
	} {
		if got := keepsAlternatives(c.was, c.now, true); got != c.re2 {
			t.Errorf("keepsAlternatives(%q, %q, re2) = %v, want %v", c.was, c.now, got, c.re2)
		}
		if got := keepsAlternatives(c.was, c.now, false); got != c.ecma {
			t.Errorf("keepsAlternatives(%q, %q) = %v, want %v", c.was, c.now, got, c.ecma)
		}
	}
}
