package fix

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// apply makes the edits (sorted, not overlapping) to text.
func apply(text string, edits []Edit) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	at := 0
	for _, e := range edits {
		b.WriteString(strings.Join(lines[at:e.Start], ""))
		b.WriteString(e.Text)
		at = e.End
	}
	b.WriteString(strings.Join(lines[at:], ""))
	return b.String()
}

const chargeV1 = `syntax = "proto3";
package shop;
message Charge {
  string id = 1;
  double price = 2;
  reserved 7 to 9;
}
`

// TestReuseReserves: a number given to another field goes back to its
// deleted field, reserved by number and name, and the new field takes a
// number neither side has used (the base's reserved 7 to 9 included).
func TestReuseReserves(t *testing.T) {
	head := strings.Replace(chargeV1, "double price = 2;", "int64 amount_cents = 2;", 1)
	// Old is nil where the element sits where it did (rules.Change.Finding).
	f := &rules.Finding{Rule: "field-number-reused", Format: rules.Proto, Where: rules.Location{File: "shop.proto", Line: 5}}
	fixes := For(head, chargeV1, f)
	if len(fixes) != 1 {
		t.Fatalf("fixes = %+v, want one", fixes)
	}
	if want := `Reserve price's number 2 and name, give amount_cents the number 10`; fixes[0].Title != want {
		t.Errorf("title = %q, want %q", fixes[0].Title, want)
	}
	got := apply(head, fixes[0].Edits)
	want := strings.Replace(chargeV1, "  double price = 2;\n", "  reserved 2;\n  reserved \"price\";\n  int64 amount_cents = 10;\n", 1)
	if got != want {
		t.Errorf("fixed:\n%s\nwant:\n%s", got, want)
	}
}

// TestReuseMoved: a field moved to another number gets its number back.
func TestReuseMoved(t *testing.T) {
	head := strings.Replace(chargeV1, "double price = 2;", "double price = 3;", 1)
	f := &rules.Finding{Rule: "field-number-reused", Format: rules.Proto, Where: rules.Location{File: "shop.proto", Line: 5},
		Old: &rules.Location{File: "shop.proto", Line: 5}}
	fixes := For(head, chargeV1, f)
	if len(fixes) != 1 || apply(head, fixes[0].Edits) != chargeV1 {
		t.Errorf("fixes = %+v, want one that restores number 2", fixes)
	}
}

// TestNoFixForOtherShapes: nothing is offered when the lines are not the
// declarations the finding names.
func TestNoFixForOtherShapes(t *testing.T) {
	f := &rules.Finding{Rule: "field-number-reused", Format: rules.Proto, Where: rules.Location{File: "shop.proto", Line: 3},
		Old: &rules.Location{File: "shop.proto", Line: 5}}
	if fixes := For(chargeV1, chargeV1, f); fixes != nil {
		t.Errorf("fixes = %+v for a line that declares no field, want none", fixes)
	}
	f.Rule = "enum-value-added"
	if fixes := For(chargeV1, chargeV1, f); fixes != nil {
		t.Errorf("fixes = %+v for a rule without one, want none", fixes)
	}
}

// TestRemovedFieldFixes: a deleted proto field is offered its number and
// name reserved, or the field kept and marked deprecated.
func TestRemovedFieldFixes(t *testing.T) {
	head := strings.Replace(chargeV1, "  double price = 2;\n", "", 1)
	f := &rules.Finding{Rule: "proto-field-removed", Format: rules.Proto, Where: rules.Location{File: "shop.proto", Line: 3},
		Old: &rules.Location{File: "shop.proto", Line: 5}}
	fixes := For(head, chargeV1, f)
	if len(fixes) != 2 {
		t.Fatalf("fixes = %+v, want reserve and keep", fixes)
	}
	reserved := strings.Replace(head, "message Charge {\n", "message Charge {\n  reserved 2;\n  reserved \"price\";\n", 1)
	if got := apply(head, fixes[0].Edits); got != reserved {
		t.Errorf("reserve wrote:\n%s\nwant:\n%s", got, reserved)
	}
	kept := strings.Replace(head, "message Charge {\n", "message Charge {\n  double price = 2 [deprecated = true];\n", 1)
	if got := apply(head, fixes[1].Edits); got != kept || fixes[1].Title != "Keep price, deprecated, until a later release removes it" {
		t.Errorf("%q wrote:\n%s\nwant:\n%s", fixes[1].Title, got, kept)
	}
}
