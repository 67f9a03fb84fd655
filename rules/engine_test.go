package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// TestMatchGlob: ** spans any number of directories, including none; the
// other wildcards stay within one name, as in path.Match.
func TestMatchGlob(t *testing.T) {
	for _, c := range []struct {
		glob, name string
		want       bool
	}{
		{"vendor/**", "vendor/a.yaml", true},
		{"vendor/**", "vendor/x/y/a.yaml", true},
		{"vendor/**", "api/vendor/a.yaml", false},
		{"**/gen/*.proto", "gen/a.proto", true},
		{"**/gen/*.proto", "a/b/gen/c.proto", true},
		{"**/gen/*.proto", "a/gen/b/c.proto", false},
		{"api/*.yaml", "api/v1/a.yaml", false},
		{"api/?.yaml", "api/a.yaml", true},
		{"**", "a/b/c", true},
	} {
		if got := MatchGlob(c.glob, c.name); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.glob, c.name, got, c.want)
		}
	}
}

// TestDropPaths: globs see each file as IgnoreName renames it, and a file
// outside the config's directory is never dropped, however wide the glob.
func TestDropPaths(t *testing.T) {
	at := func(file string) Finding { return Finding{Rule: "r", Where: Location{File: file, Line: 1}} }
	fs := []Finding{at("shop.yaml"), at("../api/shop.yaml"), at("../../outside.yaml")}
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
	removed := Rule{ID: "response-property-removed", Pack: "breaking", Severity: Error, Mode: DiffRule, Formats: OpenAPI,
		Check: func(in *Input) []Finding {
			var out []Finding
			for _, c := range in.Changes {
				out = append(out, Finding{Rule: "response-property-removed", Severity: Error, Path: c.Path, Where: c.OldLoc})
			}
			return out
		}}
	reg, err := NewRegistry([]*Rule{&removed})
	if err != nil {
		t.Fatal(err)
	}
	at := Location{File: ".contractlint.yaml", Line: 3, Column: 5}
	s := &Settings{}
	s.Accept(
		Ignore{Rule: "response-property-removed", Element: "tracking_url", File: "api/*.yaml", Reason: "r", Loc: at},
		Ignore{Rule: "response-property-removed", Element: "#/components/schemas/Order/properties/note", Reason: "r", Loc: at},
		Ignore{Rule: "response-property-removed", Element: "gone", Reason: "r", Loc: at},
	)
	in := &Input{Changes: []Change{
		{Path: "#/components/schemas/Order/properties/tracking_url", OldLoc: Location{File: "api/orders.yaml", Line: 9}},
		{Path: "#/components/schemas/Order/properties/tracking_url", OldLoc: Location{File: "other/orders.yaml", Line: 9}},
		{Path: "#/components/schemas/Order/properties/note", OldLoc: Location{File: "api/orders.yaml", Line: 10}},
		{Path: "#/components/schemas/Order/properties/carrier", OldLoc: Location{File: "api/orders.yaml", Line: 11}},
	}}
	fs := Run(reg, s, DiffRule, in)
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d", f.Where.File, f.Where.Line))
	}
	if want := []string{"api/orders.yaml:11", "other/orders.yaml:9"}; !slices.Equal(got, want) {
		t.Errorf("findings at %v, want %v", got, want)
	}
	unused := s.UnusedAccepts(func(string) bool { return true })
	if len(unused) != 1 || unused[0].Rule != UnusedIgnoreID || unused[0].Where != at || !strings.Contains(unused[0].Message, "gone") {
		t.Errorf("UnusedAccepts = %+v, want one unused-ignore for element gone at %v", unused, at)
	}
	// An ignore for files no comparison read is not judged.
	if u := s.UnusedAccepts(func(string) bool { return false }); len(u) != 0 {
		t.Errorf("nothing compared: UnusedAccepts = %+v", u)
	}
}
