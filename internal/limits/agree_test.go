package limits_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/limits"
)

// parsedShape is what the parser builds of a text, in the terms of
// limits.Shape: its deepest nesting, widest mapping, operations, schemas,
// the most properties of one schema, and how many documents hold content.
type parsedShape struct {
	depth, widest, documents int
	counts                   limits.Counts
	anchors                  bool
}

// shapeOf parses every document of b; ok is false when b does not parse.
func shapeOf(b []byte) (s parsedShape, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return s, true
		}
		if err != nil {
			return s, false
		}
		if len(doc.Content) == 0 {
			continue
		}
		s.documents++
		s.depth = max(s.depth, depth(&doc))
		s.walk(doc.Content[0], nil)
	}
}

// walk notes the width and kinds of n and everything under it; path holds
// the keys on the way to n ("-" for a list item), as the scan names them.
func (s *parsedShape) walk(n *yaml.Node, path []string) {
	s.anchors = s.anchors || n.Anchor != ""
	switch n.Kind {
	case yaml.MappingNode:
		s.widest = max(s.widest, len(n.Content)/2)
		if len(path) > 0 && path[len(path)-1] == "properties" {
			s.counts[limits.Properties] = max(s.counts[limits.Properties], len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			switch {
			case len(path) == 2 && path[0] == "paths" && isMethod(key):
				s.counts[limits.Operations]++
			case len(path) == 2 && path[0] == "components" && path[1] == "schemas", len(path) == 1 && path[0] == "definitions":
				s.counts[limits.Schemas]++
			}
			s.anchors = s.anchors || n.Content[i].Anchor != ""
			s.walk(n.Content[i+1], append(path, key))
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			s.walk(c, append(path, "-"))
		}
	}
}

func isMethod(k string) bool {
	switch k {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

// TestScanAgreesWithParser holds the pre-parse scan, the one line reader
// the limits keep (a parse costs 17–25 times the scan on Stripe and
// OpenAI: BenchmarkScanCorpus, scan/parse), to
// the parser on every YAML and JSON document of the testdata and on the
// corpus' contracts: its depth is never lower than the parsed one and at
// most one level higher; its widest mapping, operations, schemas and
// largest properties are the parser's; it finds a second document exactly
// when the parser does, and an anchor wherever the parser does.
func TestScanAgreesWithParser(t *testing.T) {
	var files []string
	for _, glob := range []string{"*/*.yaml", "*/*/*.yaml", "*/*/*/*.yaml", "*/*.json", "*/*/*.json", "*/*/*/*.json"} {
		m, _ := filepath.Glob(filepath.Join("..", "..", "testdata", glob))
		files = append(files, m...)
	}
	compared := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if scanAgrees(t, f, b) {
			compared++
		}
	}
	if compared < 500 {
		t.Errorf("compared %d of %d documents", compared, len(files))
	}
	for _, name := range []string{"stripe-spec3-2023-09-12.yaml", "openai-openapi-855e5d4.yaml"} {
		t.Run(name, func(t *testing.T) {
			if !scanAgrees(t, name, corpus.Text(t, name)) {
				t.Errorf("%s does not parse", name)
			}
		})
	}
}

// scanAgrees compares the scan of b with its parse; false when b does
// not parse.
func scanAgrees(t *testing.T, name string, b []byte) bool {
	t.Helper()
	want, ok := shapeOf(b)
	if !ok || want.documents == 0 {
		return false
	}
	if limits.DeepLine(b, want.depth-1) == 0 || limits.DeepLine(b, want.depth+1) != 0 {
		t.Errorf("%s: the scan's depth is not the parsed %d or one more", name, want.depth)
	}
	if limits.Scan(b, 1<<20, want.widest).WideLine != 0 || want.widest > 0 && limits.Scan(b, 1<<20, want.widest-1).WideLine == 0 {
		t.Errorf("%s: the scan's widest mapping is not the parsed one's %d keys", name, want.widest)
	}
	sh := limits.Scan(b, 1<<20, 1<<30)
	for _, k := range []limits.Kind{limits.Operations, limits.Schemas, limits.Properties} {
		if sh.Counts[k] != want.counts[k] {
			t.Errorf("%s: scanned %d %s, parsed %d", name, sh.Counts[k], k, want.counts[k])
		}
	}
	if want.anchors && !sh.Anchors {
		t.Errorf("%s: the parser finds an anchor, the scan none", name)
	}
	if second := sh.SecondDocument > 0; second != (want.documents > 1) {
		t.Errorf("%s: the scan finds a second document at line %d, the parser %d documents", name, sh.SecondDocument, want.documents)
	}
	return true
}

// TestScanAnchors: the scan finds an anchor wherever one can begin a node,
// as the parser reads it, and none in text that only looks like one (an
// HTML entity in a description, & in a pattern), which would cost a parse
// of the whole document to count what aliases expand to.
func TestScanAnchors(t *testing.T) {
	for text, anchors := range map[string]bool{
		"a: &x 1\nb: *x\n":                   true,
		"a:\n  - &x {b: 1}\n  - *x\n":        true,
		"&x a: 1\n":                          true,
		"a: [&x 1, *x]\n":                    true,
		"a: {b: 1,&x c: 2}\n":                true,
		"a: !!map &x\n  b: 1\nc: *x\n":       true,
		"--- &x\na: 1\n":                     true,
		"a: [\n  1,\n  &x 2\n]\n":            true,
		"a: >\n  the format &lt;major&gt;\n": false,
		"pattern: ^[a-z?&=.]*$\n":            false,
		"a: 'a &x b'\nb: \"&y\"\n":           false,
		"a: b & c\n":                         false,
		"a: 1 # &x is a comment\n":           false,
		"description: |\n  &x\n  *x\nb: 1\n": false,
		"a: \"quoted\n  &x over lines\"\n":   false,
		"a: tom&jerry\n":                     false,
		"a: x\n  continued &amp; plain\n":    false,
		"expression: a && b\n":               false,
		"e: x.?[a eq 'b'].size()>0 && y\n":   false,
		"a: {b: x &y, c: &z 1}\n":            true,
		"a:\n  &x b: 1\n":                    true,
		"a: [b, c]\nd: {e: f}\n":             false,
	} {
		want, ok := shapeOf([]byte(text))
		if !ok {
			t.Errorf("%q does not parse", text)
			continue
		}
		if want.anchors && !anchors {
			t.Errorf("%q: the parser finds an anchor; the case says none", text)
		}
		if got := limits.Scan([]byte(text), 100, 100).Anchors; got != anchors {
			t.Errorf("%q: the scan finds anchors %v, want %v", text, got, anchors)
		}
	}
}
