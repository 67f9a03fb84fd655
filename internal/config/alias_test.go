package config

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// TestAliases: a config written for buf or oasdiff names rules by their
// names there, and each stands for the rules it maps to.
func TestAliases(t *testing.T) {
	c, err := Parse("c.yaml", ".", []byte(`
rules:
  WIRE_JSON: off
severity:
  FIELD_NO_DELETE: warning
  api-path-removed-without-deprecation: info
ignore:
  - {rule: response-required-property-removed, element: id, reason: r}
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Severity["proto-field-removed"] != rules.Warning || c.Severity["path-removed"] != rules.Info {
		t.Errorf("severities %v: want FIELD_NO_DELETE as proto-field-removed, the oasdiff check as path-removed", c.Severity)
	}
	for _, id := range []string{"proto-field-json-name-changed", "proto-field-removed-unreserved-name"} {
		if on, ok := c.Rules[id]; !ok || on {
			t.Errorf("WIRE_JSON: off left %s %v", id, c.Rules[id])
		}
	}
	if _, ok := c.Rules["proto-field-removed"]; ok {
		t.Errorf("WIRE_JSON switched proto-field-removed, a FILE and PACKAGE rule")
	}
	if len(c.Accepts) != 1 || c.Accepts[0].Rule != "response-property-removed" {
		t.Errorf("accepts %v: want the oasdiff check read as response-property-removed", c.Accepts)
	}

	_, err = Parse("c.yaml", ".", []byte("ignore:\n  - {rule: WIRE, element: x, reason: r}\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2:12: WIRE stands for") {
		t.Errorf("an accept naming a category: got %v, want it refused at its line", err)
	}
}
