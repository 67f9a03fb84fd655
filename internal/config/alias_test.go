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

// A config naming a rule by an ID since renamed or retired (contractlint's
// or buf's) loads: each warns, naming the line and what covers it now, and
// stands for the rules that do; one nothing covers does nothing.
func TestRetiredIDsLoad(t *testing.T) {
	reg := rules.Default().WithRetired(
		rules.Retirement{ID: "old-operation-removed", In: "v0.9.0", By: []string{"operation-removed"}, Renamed: true},
		rules.Retirement{ID: "path-case-changed", In: "v0.9.0"},
	)
	c, err := parse(reg, "c.yaml", ".", []byte(`rules:
  path-case-changed: off
severity:
  old-operation-removed: warning
  FIELD_SAME_CTYPE: info
`))
	if err != nil {
		t.Fatalf("a retired ID failed the load: %v", err)
	}
	if c.Severity["operation-removed"] != rules.Warning || c.Severity["proto-field-ctype-changed"] != rules.Info {
		t.Errorf("severities %v: want the renamed ID as operation-removed, FIELD_SAME_CTYPE as proto-field-ctype-changed", c.Severity)
	}
	want := []string{
		"c.yaml:2:3: rule path-case-changed was retired in v0.9.0 and no rule covers it now; naming it does nothing",
		"c.yaml:4:3: rule old-operation-removed was renamed operation-removed in v0.9.0; the old name still works",
		"c.yaml:5:3: FIELD_SAME_CTYPE is a retired buf rule, now covered by FIELD_SAME_CPP_STRING_TYPE; it stands for the rules those map to",
	}
	if strings.Join(c.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(c.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if _, err := parse(reg, "c.yaml", ".", []byte("rules:\n  never-released: off\n")); err == nil {
		t.Error("an ID never released loaded")
	}
}
