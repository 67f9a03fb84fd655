package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/rules"
)

// TestMergeKeepsRelatedAsData: one edit, one finding, and what the merged
// findings said stays data a tool can read (rule, severity, message), not
// only text joined into the kept message.
func TestMergeKeepsRelatedAsData(t *testing.T) {
	at := rules.Location{File: "api.yaml", Line: 50, Column: 9}
	removed := rules.Finding{Rule: "response-property-removed", Severity: rules.Error, Where: at, Path: "/x/seat",
		Removed: true, Message: `response property "seat" removed: clients that read it break`}
	undeprecated := rules.Finding{Rule: "field-removed-without-deprecation", Severity: rules.Warning, Where: at, Path: "/x/seat",
		Removed: true, Message: "seat: removed without being deprecated first"}
	again := removed // the same edit reached from another operation
	again.Operations = []string{"GET /b"}
	got := Merge(rules.Default(), []rules.Finding{removed, undeprecated, again})
	if len(got) != 1 {
		t.Fatalf("got %d findings, want the edit once: %v", len(got), got)
	}
	want := []rules.Related{{Rule: undeprecated.Rule, Severity: rules.Warning, Message: undeprecated.Message}}
	if d := cmp.Diff(want, got[0].Related); d != "" {
		t.Errorf("related (-want +got):\n%s", d)
	}
	if got[0].Rule != removed.Rule || got[0].Message == removed.Message {
		t.Errorf("kept %s %q; want %s with the other's words joined for people", got[0].Rule, got[0].Message, removed.Rule)
	}
}

// TestMergeSameRuleCountsOperations: one change met twice, once from an
// operation and once from two others (Adyen's BalancePlatform spec reaches
// an enum inline and through a component), says what it says once and how
// many operations it reaches in all, as a load that met it once does; it
// was "X; also: X (reaches 2 operations)".
func TestMergeSameRuleCountsOperations(t *testing.T) {
	at := rules.Location{File: "api.json", Line: 15319, Column: 21}
	const said = `response enum value "legalEntity" added: strict readers fail on it`
	one := rules.Finding{Rule: "response-enum-value-added", Severity: rules.Warning, Where: at, Path: "#/x/type",
		Message: said, Operations: []string{"GET /a"}}
	two := one
	two.Message, two.Operations = said+" (reaches 2 operations)", []string{"GET /b", "POST /c"}
	got := Merge(rules.Default(), []rules.Finding{one, two})
	if len(got) != 1 {
		t.Fatalf("got %d findings, want the change once: %v", len(got), got)
	}
	if want := said + " (reaches 3 operations)"; got[0].Message != want || len(got[0].Operations) != 3 {
		t.Errorf("merged %q over %v; want %q over three operations", got[0].Message, got[0].Operations, want)
	}
	if got[0].Related != nil {
		t.Errorf("related %v: the change met again is not another finding", got[0].Related)
	}
}
