package config_test

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/rules"
)

// compat: sets the directions diff and review judge; Apply hands it on.
func TestCompat(t *testing.T) {
	tmpl, err := config.Parse("t.yaml", "/repo", config.Template)
	if err != nil || tmpl.Compat != rules.Backward {
		t.Errorf("the init template's compat is %v (%v), want backward", tmpl.Compat, err)
	}
	for text, want := range map[string]rules.Compat{"compat: full\n": rules.Full, "compat: forward\n": rules.Forward, "{}": 0} {
		c, err := config.Parse("c.yaml", "/repo", []byte(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		var s rules.Settings
		c.Apply(&s)
		if c.Compat != want || s.Compat != want {
			t.Errorf("%q: config %v, settings %v, want %v", text, c.Compat, s.Compat, want)
		}
	}
	for text, want := range map[string]string{
		"compat: both\n":      `c.yaml:1:9: compat: want backward, forward or full, not "both"`,
		"compat: [forward]\n": `c.yaml:1:9: compat: want backward, forward or full`,
	} {
		if _, err := config.Parse("c.yaml", "/repo", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", text, err, want)
		}
	}
}
