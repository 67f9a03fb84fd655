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
		was, now string
		keeps    bool
	}{
		{"^x$", "^$|^x$", true},
		{"^$|^$|^x$", "^$|^x$", true},
		{"^x$", "^y$", false},
		{"^(a|b)$", "^a$|^(a|c)$", false},
		{"", "^x$", false},
	} {
		if got := keepsAlternatives(c.was, c.now); got != c.keeps {
			t.Errorf("keepsAlternatives(%q, %q) = %v, want %v", c.was, c.now, got, c.keeps)
		}
	}
}
