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
