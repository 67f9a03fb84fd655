package engine

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// TestDropPaths: globs see each file as rules.IgnoreName renames it, and a file
// outside the config's directory is never dropped, however wide the glob.
func TestDropPaths(t *testing.T) {
	at := func(file string) rules.Finding {
		return rules.Finding{Rule: "r", Where: rules.Location{File: file, Line: 1}}
	}
	fs := []rules.Finding{at("shop.yaml"), at("../api/shop.yaml"), at("../../outside.yaml")}
	kept := func(globs []string, name func(string) string) []string {
		var out []string
		for _, f := range dropPaths(slices.Clone(fs), globs, name) {
			out = append(out, f.Where.File)
		}
		return out
	}
	// Run from vendor/, a file shown as shop.yaml is vendor/shop.yaml to the config.
	fromVendor := func(f string) string { return path.Join("vendor", f) }
	for _, c := range []struct {
		globs []string
		name  func(string) string
		want  []string
	}{
		{[]string{"vendor/**"}, fromVendor, []string{"../api/shop.yaml", "../../outside.yaml"}},
		{[]string{"api/*.yaml"}, fromVendor, []string{"shop.yaml", "../../outside.yaml"}},
		{[]string{"vendor/**"}, nil, []string{"shop.yaml", "../api/shop.yaml", "../../outside.yaml"}},
		{[]string{"**"}, nil, []string{"../api/shop.yaml", "../../outside.yaml"}},
		{[]string{"**"}, fromVendor, []string{"../../outside.yaml"}},
		{nil, fromVendor, []string{"shop.yaml", "../api/shop.yaml", "../../outside.yaml"}},
	} {
		if got := kept(c.globs, c.name); !slices.Equal(got, c.want) {
			t.Errorf("globs %q (renamed: %v): kept %q, want %q", c.globs, c.name != nil, got, c.want)
		}
	}
}

// A config ignore accepts one change by rule, element and file; across the
// comparisons of one command, one that accepted nothing is unused-ignore at
// its line in the config.
func TestAccepts(t *testing.T) {
	removed := rules.Rule{ID: "response-property-removed", Pack: "breaking", Severity: rules.Error, Mode: rules.DiffRule, Formats: rules.OpenAPI,
		Check: func(in *rules.Input) []rules.Finding {
			var out []rules.Finding
			for _, c := range in.Changes {
				out = append(out, rules.Finding{Rule: "response-property-removed", Severity: rules.Error, Path: c.Path, Where: c.OldLoc})
			}
			return out
		}}
	reg, err := rules.NewRegistry([]*rules.Rule{&removed})
	if err != nil {
		t.Fatal(err)
	}
	at := rules.Location{File: ".contractlint.yaml", Line: 3, Column: 5}
	s := &rules.Settings{Accepts: []rules.Ignore{
		{Rule: "response-property-removed", Element: "tracking_url", File: "api/*.yaml", Reason: "r", Loc: at},
		{Rule: "response-property-removed", Element: "#/components/schemas/Order/properties/note", Reason: "r", Loc: at},
		{Rule: "response-property-removed", Element: "gone", Reason: "r", Loc: at},
	}}
	in := &rules.Input{Changes: []rules.Change{
		{Path: "#/components/schemas/Order/properties/tracking_url", OldLoc: rules.Location{File: "api/orders.yaml", Line: 9}},
		{Path: "#/components/schemas/Order/properties/tracking_url", OldLoc: rules.Location{File: "other/orders.yaml", Line: 9}},
		{Path: "#/components/schemas/Order/properties/note", OldLoc: rules.Location{File: "api/orders.yaml", Line: 10}},
		{Path: "#/components/schemas/Order/properties/carrier", OldLoc: rules.Location{File: "api/orders.yaml", Line: 11}},
	}}
	var matched rules.Matched
	fs := RunMatched(reg, s, &matched, rules.DiffRule, in)
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d", f.Where.File, f.Where.Line))
	}
	if want := []string{"api/orders.yaml:11", "other/orders.yaml:9"}; !slices.Equal(got, want) {
		t.Errorf("findings at %v, want %v", got, want)
	}
	unused := matched.UnusedAccepts(s, func(string) bool { return true })
	if len(unused) != 1 || unused[0].Rule != rules.UnusedIgnoreID || unused[0].Where != at || !strings.Contains(unused[0].Message, "gone") {
		t.Errorf("UnusedAccepts = %+v, want one unused-ignore for element gone at %v", unused, at)
	}
	// An ignore for files no comparison read is not judged.
	if u := matched.UnusedAccepts(s, func(string) bool { return false }); len(u) != 0 {
		t.Errorf("nothing compared: UnusedAccepts = %+v", u)
	}
}

// TestAcceptsLiteral: a Settings written as a literal holds no record of
// its own: each command's Matched records what its runs accepted, so two
// commands with one Settings, side by side, judge their accepts apart.
func TestAcceptsLiteral(t *testing.T) {
	reg, err := rules.NewRegistry([]*rules.Rule{{ID: "enum-value-removed", Pack: "breaking", Severity: rules.Error, Mode: rules.DiffRule, Formats: rules.OpenAPI,
		Check: func(in *rules.Input) []rules.Finding {
			var out []rules.Finding
			for _, c := range in.Changes {
				out = append(out, rules.Finding{Rule: "enum-value-removed", Severity: rules.Error, Path: c.Path})
			}
			return out
		}}})
	if err != nil {
		t.Fatal(err)
	}
	s := &rules.Settings{Accepts: []rules.Ignore{{Rule: "enum-value-removed", Element: "Status", Reason: "r"}}}
	var hit, miss rules.Matched
	var wg sync.WaitGroup
	wg.Go(func() {
		if fs := RunMatched(reg, s, &hit, rules.DiffRule, &rules.Input{Changes: []rules.Change{{Path: "#/components/schemas/Status"}}}); len(fs) != 0 {
			t.Errorf("findings %+v, want the accepted one dropped", fs)
		}
	})
	wg.Go(func() { RunMatched(reg, s, &miss, rules.DiffRule, &rules.Input{}) })
	wg.Wait()
	all := func(string) bool { return true }
	if u := hit.UnusedAccepts(s, all); len(u) != 0 {
		t.Errorf("after a match: UnusedAccepts = %+v, want none", u)
	}
	if u := miss.UnusedAccepts(s, all); len(u) != 1 {
		t.Errorf("after no match: UnusedAccepts = %+v, want the accept", u)
	}
}

// A finding carries its rule's bump, and a severity override lowers how
// loud it is, not what version the change needs.
func TestBumpSurvivesSeverityOverride(t *testing.T) {
	removed := rules.Rule{ID: "operation-removed", Pack: rules.Breaking, Severity: rules.Error, Mode: rules.DiffRule, Formats: rules.OpenAPI,
		Check: func(*rules.Input) []rules.Finding {
			return []rules.Finding{{Rule: "operation-removed", Severity: rules.Error, Path: "#/paths/~1a/get", Where: rules.Location{File: "a.yaml", Line: 3}}}
		}}
	reg, err := rules.NewRegistry([]*rules.Rule{&removed})
	if err != nil {
		t.Fatal(err)
	}
	s := &rules.Settings{Severity: map[string]rules.Severity{"operation-removed": rules.Info}}
	fs := Run(reg, s, rules.DiffRule, &rules.Input{New: &rules.Contract{}, Old: &rules.Contract{}})
	if len(fs) != 1 || fs[0].Severity != rules.Info || fs[0].Bump != rules.Major {
		t.Fatalf("got %+v, want one info finding that still needs a major bump", fs)
	}
}

// TestVersionGateFiltered: the version gate's finding passes through the
// same filters as every rule's: an inline ignore drops it (and is then
// used, not reported), a config accept drops it and records the match, a
// severity override lowers it; off, the gate reports nothing.
func TestVersionGateFiltered(t *testing.T) {
	gate, _ := rules.Default().Get(rules.VersionBumpMissingID)
	reg, err := rules.NewRegistry([]*rules.Rule{gate})
	if err != nil {
		t.Fatal(err)
	}
	on := func() *rules.Settings {
		return &rules.Settings{Rules: map[string]bool{rules.VersionBumpMissingID: true}}
	}
	input := func(ignores ...rules.Ignore) *rules.Input {
		at := rules.Location{File: "shop.yaml", Line: 3}
		return &rules.Input{
			Changes: []rules.Change{{Kind: rules.Added, Path: "#/paths/~1carts"}},
			Old:     &rules.Contract{Versions: []rules.DeclaredVersion{{What: "info.version", Value: "1.0.0", Loc: at}}},
			New:     &rules.Contract{Versions: []rules.DeclaredVersion{{What: "info.version", Value: "1.0.1", Loc: at}}, Ignores: ignores},
		}
	}
	rulesOf := func(fs []rules.Finding) []string {
		var ids []string
		for _, f := range fs {
			ids = append(ids, f.Rule+"/"+f.Severity.String())
		}
		return ids
	}
	if got := rulesOf(Run(reg, on(), rules.DiffRule, input())); !slices.Equal(got, []string{"version-bump-missing/error"}) {
		t.Errorf("gate on: %q, want one version-bump-missing error", got)
	}
	if got := Run(reg, &rules.Settings{}, rules.DiffRule, input()); len(got) != 0 {
		t.Errorf("gate off: %+v, want nothing", got)
	}
	inline := rules.Ignore{Rule: rules.VersionBumpMissingID, Reason: "frozen", Scope: "info", Loc: rules.Location{File: "shop.yaml", Line: 2}}
	if got := Run(reg, on(), rules.DiffRule, input(inline)); len(got) != 0 {
		t.Errorf("inline ignore: %q, want nothing (the finding dropped, the ignore used)", rulesOf(got))
	}
	s := on()
	s.Accepts = []rules.Ignore{{Rule: rules.VersionBumpMissingID, Element: "version", Reason: "frozen"}}
	matched := &rules.Matched{}
	if got := RunMatched(reg, s, matched, rules.DiffRule, input()); len(got) != 0 {
		t.Errorf("config accept: %q, want nothing", rulesOf(got))
	}
	if u := matched.UnusedAccepts(s, func(string) bool { return true }); len(u) != 0 {
		t.Errorf("the accept that dropped the gate's finding is reported unused: %+v", u)
	}
	s = on()
	s.Severity = map[string]rules.Severity{rules.VersionBumpMissingID: rules.Warning}
	if got := rulesOf(Run(reg, s, rules.DiffRule, input())); !slices.Equal(got, []string{"version-bump-missing/warning"}) {
		t.Errorf("severity override: %q, want one warning", got)
	}
}

// TestComparisonOrder: a comparison's findings pass its steps in the order
// docs/design.md gives; the version gate only when it is on.
func TestComparisonOrder(t *testing.T) {
	reg := rules.Default()
	in := &rules.Input{}
	base := []string{"supersede", "inline-ignores", "config-accepts", "ignored-paths", "severity", "dedupe"}
	for _, tc := range []struct {
		m    rules.Mode
		s    *rules.Settings
		want []string
	}{
		{rules.LintRule, &rules.Settings{}, append(slices.Clone(base), "unused-ignores", "sort")},
		{rules.DiffRule, &rules.Settings{}, append(slices.Clone(base), "one-finding-per-edit", "unused-ignores", "sort")},
		{rules.DiffRule, &rules.Settings{Rules: map[string]bool{rules.VersionBumpMissingID: true}},
			append(slices.Clone(base), "one-finding-per-edit", "version-gate", "unused-ignores", "sort")},
	} {
		if got := Comparison(reg, tc.s, nil, tc.m, in).Names(); !slices.Equal(got, tc.want) {
			t.Errorf("Comparison(%v).Names() = %v, want %v", tc.m, got, tc.want)
		}
	}
}
