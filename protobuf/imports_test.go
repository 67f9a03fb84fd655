package protobuf

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// importRE is how importPaths read imports before.
var importRE = regexp.MustCompile(`(?m)^\s*import\s+(?:public\s+|weak\s+)?"([^"\n]+)"\s*;`)

// TestImportPathsIsRE: importPaths reads the imports importRE's matches
// name, in order, over random texts made of the pieces an import line has
// (and near misses: other white space, words that start alike, quotes,
// line breaks and semicolons where they do not belong, imports in comments
// and paths).
func TestImportPathsIsRE(t *testing.T) {
	space := []string{" ", " ", "\t", "\n", "\r", "\f", "\v", ""}
	// An import's parts, in order, each with near misses.
	parts := [][]string{
		{"\n", "\n", "\n", " ", "\t", ""}, space,
		{"import", "import", "import", "imports", "x", "// import"},
		space, space,
		{"", "", "public", "weak", "publicx", "weakly", "public\"", "/* c */"},
		space, space,
		{"\"", "\"", "\"", "", "x"},
		{"a/b.proto", "c.proto", "", "x\ny", "é", "\x00", "import \"d.proto\";"},
		{"\"", "\"", "\"", "", "\n"},
		space, space,
		{";", ";", ";", "", "x;", "\"", "; import \"e.proto\";"},
		space,
	}
	rng := rand.New(rand.NewPCG(47, 2))
	matched := 0
	for i := range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			for _, choices := range parts {
				if rng.IntN(30) > 0 {
					b.WriteString(choices[rng.IntN(len(choices))])
				}
			}
		}
		text := []byte(b.String())
		var want []string
		for _, m := range importRE.FindAllSubmatch(text, -1) {
			want = append(want, string(m[1]))
		}
		matched += len(want)
		if got := importPaths(text); !slices.Equal(got, want) {
			t.Fatalf("text %d %q: importPaths %q, importRE %q", i, text, got, want)
		}
	}
	if matched < 1000 {
		t.Errorf("only %d imports in the texts: the test reads too few", matched)
	}
}
