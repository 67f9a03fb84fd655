package glob

import "testing"

// TestMatch: ** spans any number of directories, including none; the
// other wildcards stay within one name, as in path.Match.
func TestMatch(t *testing.T) {
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
		if got := Match(c.glob, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.glob, c.name, got, c.want)
		}
	}
}
