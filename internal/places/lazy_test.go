package places

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"go.yaml.in/yaml/v4"
)

// TestLazyAgreesWithWhole holds the lazy reader to a parse of the whole
// text: on every document of the repository's testdata and on the corpus'
// contracts, every path the document has (a sample of them on the corpus)
// and one step past each, it finds the same place and the same number of
// segments.
func TestLazyAgreesWithWhole(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*/*/*/*.yaml", "*/*/*/*.json", "*/*/*.yaml", "*/*/*.json", "*/*.yaml", "*/*.json"} {
		f, _ := filepath.Glob(filepath.Join("..", "..", "testdata", pattern))
		files = append(files, f...)
	}
	// Outside the full run a fifth of the texts is a sample enough to
	// catch a slip, in a fifth of the time.
	step := 5
	if corpus.Full() {
		step = 1
	}
	read := 0
	for i := 0; i < len(files); i += step {
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if agree(t, files[i], b, 1) {
			read++
		}
	}
	if read < 300/step {
		t.Errorf("compared %d texts of %d, want %d or more", read, len(files), 300/step)
	}
	for _, name := range []string{"stripe-spec3-2023-09-12.yaml", "openai-openapi-855e5d4.yaml"} {
		t.Run(name, func(t *testing.T) {
			if !agree(t, name, corpus.Text(t, name), 97) {
				t.Errorf("%s does not parse", name)
			}
		})
	}
}

// agree compares the lazy reader with the whole parse on every every-th
// path of text; false when the text does not parse.
func agree(t *testing.T, name string, text []byte, every int, probes ...[]string) bool {
	t.Helper()
	whole, err := Read(text)
	if err != nil || whole.Documents() == 0 {
		return false
	}
	lazy := NewLazy(text)
	lazy.small = 0 // cut as deep as the cut can, whatever the size
	var paths [][]string
	walkPaths(whole.docs[0].Content[0], nil, 8, &paths)
	paths = append(paths, probes...)
	for i, p := range paths {
		if i%every != 0 && i < len(paths)-len(probes) {
			continue
		}
		for _, q := range [][]string{p, append(append([]string(nil), p...), "absent")} {
			wp, wm := whole.Find(q)
			lp, lm := lazy.Find(q)
			if wm != lm || wp.Line != lp.Line || wp.Column != lp.Column || wp.Start != lp.Start {
				t.Errorf("%s: %s: lazy found %+v (%d segments), the whole parse %+v (%d)", name, strings.Join(q, "/"), lp, lm, wp, wm)
				return true
			}
		}
	}
	return true
}

// walkPaths lists the path of every node under n, depth levels deep.
func walkPaths(n *yaml.Node, path []string, depth int, out *[][]string) {
	if depth == 0 || n.Kind == yaml.AliasNode {
		return
	}
	step := func(seg string, child *yaml.Node) {
		p := append(append([]string(nil), path...), seg)
		*out = append(*out, p)
		walkPaths(child, p, depth-1, out)
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Tag != "!!merge" {
				step(n.Content[i].Value, n.Content[i+1])
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			step(strconv.Itoa(i), c)
		}
	}
}

// hardLayouts are block YAML the cut must not misread: a value quoted or
// in flow style over several lines (one continuing at its key's
// indentation), a block scalar whose lines look like keys, an alias whose
// anchor is in another entry, a merge key, a list under a key at the key's
// own indentation, quoted keys, comments and CRLF line ends.
var hardLayouts = []string{
	"x:\n  a: \"foo\n  b: bar\"\n  c: 1\ny: 2\n",
	"x:\n  a: 'foo\n  b: bar'\n  c: 1\n",
	"x:\n  a: [1,\n  b]\n  c: {d: 1,\n  e: 2}\n",
	"x:\n  text: |\n    b: not a key\n    c: nor this\n  d:\n    e: 1\n",
	"base: &b\n  k: 1\n  m:\n    n: 2\nuse:\n  <<: *b\n  own: *b\n",
	"x:\n- a: 1\n- b:\n    c: 2\ny:\n  z: 3\n",
	"'quoted key':\n  \"double\": 1\n  plain#not a comment: 2\n  'it''s': 3\n  \"esc\\\"aped\": 4\n",
	"# head\nx: # after the key\n  # inside\n  a:\n    b: 1 # after\n\n  c: 2\n",
	"x:\r\n  a:\r\n    b: 1\r\n  c: 2\r\n",
	"x:\n  ? complex\n  : 1\n  a: 2\n",
	"x: !!map\n  a: 1\nz: &anchor\n  b: 2\n",
	// an explicit key whose value is a block mapping, and one whose
	// key line is followed by more of the key (not read as explicit)
	"x:\n  ? complex\n  : b: 1\n    c: 2\n  a: 2\n",
	"x:\n  ? complex\n    key\n  : 1\n  a: 2\n",
	// lists written at their key's indentation, and a leading document marker
	"---\nx:\n  a:\n  - 1\n  - b: 2\n  c: 3\nuse:\n- k\n",
}

// TestLazyHardLayouts: on each hard layout the lazy reader, cutting at
// every level, finds what the whole parse finds, asked also for the keys
// a line seems to hold and the parser does not read there.
func TestLazyHardLayouts(t *testing.T) {
	probes := [][]string{{"x", "b"}, {"x", "text", "b"}, {"x", "text", "c"}, {"x", "e"}, {"use", "k"}, {"use", "m", "n"}, {"x", "a", "b"}, {"x", "complex"}, {"x", "complex", "b"}, {"x", "complex", "c"}, {"x", "a", "1", "b"}, {"x", "c"}, {"use", "0"}}
	for i, text := range hardLayouts {
		if !agree(t, "layout "+strconv.Itoa(i), []byte(text), 1, probes...) {
			t.Errorf("layout %d does not parse:\n%s", i, text)
		}
	}
}
