package rules

import (
	"path"
	"slices"
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
