package rules_test

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/rules"
)

// v1 had price = 3, v2 deleted it without reserving, v3 adds currency = 3:
// the v2 -> v3 diff alone cannot see the reuse; the history can.
func TestFieldNumberReusedFromHistory(t *testing.T) {
	v2 := &rules.Contract{Format: rules.Proto, Messages: []*rules.Message{{Name: "shop.Charge"}}}
	add := rules.Change{Kind: rules.Added, Subject: rules.SubjectField, Format: rules.Proto,
		Name: "currency", Path: "shop.Charge.currency",
		NewField: &rules.Field{Name: "currency", Type: "string", Number: 3},
		NewLoc:   rules.Location{File: "shop.proto", Line: 4, Column: 3}}
	v1 := &rules.Contract{Format: rules.Proto, Messages: []*rules.Message{{Name: "shop.Charge",
		Fields: []*rules.Field{{Name: "price", Type: "double", Number: 3}}}}}
	hist := &rules.History{}
	hist.Add(v1, "abc1234")
	hist.Add(v1, "def5678") // the same use seen twice is kept once
	if len(hist.Used) != 1 {
		t.Fatalf("history holds %d uses, want 1", len(hist.Used))
	}
	run := func(h *rules.History) []rules.Finding {
		in := &rules.Input{Changes: []rules.Change{add}, Old: v2, New: v2, History: h}
		return engine.Run(rules.Default(), &rules.Settings{}, rules.DiffRule, in)
	}
	if fs := run(nil); hasRule(fs, "field-number-reused") {
		t.Errorf("without history: %v", fs)
	}
	fs := run(hist)
	if !hasRule(fs, "field-number-reused") {
		t.Fatalf("with history, no field-number-reused: %v", fs)
	}
	for _, f := range fs {
		if f.Rule == "field-number-reused" && (!strings.Contains(f.Message, `"price"`) || !strings.Contains(f.Message, "abc1234") || f.Where.Line != 4) {
			t.Errorf("finding does not name the earlier field and commit at the new line: %+v", f)
		}
	}
	// The same field coming back on its old number is no reuse.
	back := &rules.History{Used: []rules.UsedNumber{{Message: "shop.Charge", Number: 3, Name: "currency", Type: "string", Seen: "lock"}}}
	if fs := run(back); hasRule(fs, "field-number-reused") {
		t.Errorf("a field restored on its own number was reported: %v", fs)
	}
}

func hasRule(fs []rules.Finding, id string) bool {
	for _, f := range fs {
		if f.Rule == id {
			return true
		}
	}
	return false
}
