package chain

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/waiver"
	"github.com/contractlint/contractlint/rules"
)

// TestForOrder: the command's steps run in the order docs/design.md
// gives, whatever the command holds.
func TestForOrder(t *testing.T) {
	want := []string{"unused-accepts", "inline-accepted-in-pr", "config-accepted-in-pr", "match-path", "waivers", "ignore-lines", "require-approval", "sort"}
	for _, c := range []Command{{}, {RequireApproval: true, MatchPath: regexp.MustCompile("x")}} {
		if got := For(c).Names(); !slices.Equal(got, want) {
			t.Errorf("For(%+v).Names() = %v, want %v", c, got, want)
		}
	}
}

// TestRequireApprovalAfterEveryAcceptance: require-approval sees what
// every acceptance step let pass (an inline ignore, a waiver the base
// lacked), never a waiver's acceptance of its own finding; a config line
// already fails as config-weakened and is not judged twice; --match-path
// drops an acceptance about another path, as it drops a finding.
func TestRequireApprovalAfterEveryAcceptance(t *testing.T) {
	removed := rules.Finding{Rule: "response-property-removed", Severity: rules.Error, Path: "#/paths/~1orders/get/x",
		Where: rules.Location{File: "api.yaml", Line: 9}, Operations: []string{"GET /orders"}}
	other := removed
	other.Path, other.Operations = "#/paths/~1pets/get/x", []string{"GET /pets"}
	loosened := rules.Finding{Rule: rules.ConfigWeakenedID, Severity: rules.Error, Message: "rule x switched off",
		Where: rules.Location{File: ".contractlint.yaml", Line: 2}}
	matched := &rules.Matched{}
	matched.Accept(rules.Ignore{Rule: other.Rule, Reason: "pets moved", Loc: rules.Location{File: "api.yaml", Line: 3}}, []rules.Finding{other})
	w := waiver.Waiver{Rule: removed.Rule, Element: removed.Path, Owner: "@orders", Reason: "no client reads it", Loc: rules.Location{File: waiver.FileName, Line: 2}}
	set := For(Command{Matched: matched, Waivers: []waiver.Waiver{w}, Now: time.Unix(0, 0), WaiverInBase: func(waiver.Waiver) bool { return false },
		RequireApproval: true, MatchPath: regexp.MustCompile("^/orders")}).Run([]rules.Finding{removed, loosened})
	var rulesGot []string
	for _, f := range set.Findings {
		rulesGot = append(rulesGot, f.Rule)
	}
	// In report order: the waivers file sorts before the config.
	if want := []string{waiver.UnapprovedID, "config-weakened"}; !slices.Equal(rulesGot, want) {
		t.Errorf("findings %v, want %v", rulesGot, want)
	}
	if len(set.Accepted) != 2 || set.Accepted[0].Finding.Rule != rules.ConfigWeakenedID || set.Accepted[1].Finding.Path != removed.Path || !set.Accepted[1].InPR {
		t.Errorf("accepted %+v, want the config line and the waiver's, the other path's left out", set.Accepted)
	}
	if got := set.Findings[0].Where; got != w.Loc {
		t.Errorf("acceptance-unapproved at %v, want the waiver's line %v", got, w.Loc)
	}
}
