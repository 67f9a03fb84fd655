package limits_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
)

// depth is the parsed nesting of a YAML node: what DeepLine must bound.
func depth(n *yaml.Node) int {
	d := 0
	for _, c := range n.Content {
		d = max(d, depth(c))
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		d++
	}
	return d
}

// elements is what Scan estimates: keys and list items of a parsed node.
func elements(n *yaml.Node) int {
	c := 0
	for _, k := range n.Content {
		c += elements(k)
	}
	switch n.Kind {
	case yaml.MappingNode:
		c += len(n.Content) / 2
	case yaml.SequenceNode:
		c += len(n.Content)
	}
	return c
}

// TestScanMatchesParser checks the element count against a real YAML parse
// on every contract in testdata: it is an estimate, within 10 % (it counts
// an empty {} or [] as one), never off by more than a few elements.
func TestScanMatchesParser(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/*/*/*/*.yaml")
	if len(files) < 20 {
		t.Fatalf("found %d testdata contracts; the glob is wrong", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) != nil || bytes.Contains(b, []byte("&")) {
			continue
		}
		want := elements(&doc)
		if got := limits.Scan(b, 1000, 1<<30).Elements; got < want*9/10-2 || got > want*11/10+2 {
			t.Errorf("%s: scanned %d elements, parsed %d", f, got, want)
		}
	}
}

func TestDeepLine(t *testing.T) {
	for _, c := range []struct {
		name, text string
		max, line  int
	}{
		{"block", "a:\n  b:\n    c: 1\n", 3, 0},
		{"block too deep", "a:\n  b:\n    c:\n      d: 1\n", 3, 4},
		{"flow", "a: {b: [1, {c: 2}]}\n", 4, 0},
		{"flow too deep", "a: {b: [1, {c: [2]}]}\n", 4, 1},
		{"json", `{"a": {"b": [[[1]]]}}`, 5, 0},
		{"json too deep", `{"a": {"b": [[[[1]]]]}}`, 5, 1},
		{"brackets in quotes", "a: \"[[[[[[\"\nb: '{{{{{{'\n", 2, 0},
		{"brackets in plain text", "a: see [1] and [[[[ text\nb: 1\n", 2, 0},
		{"block scalar", "a: |\n  [[[[[[\n    x:\n      y:\n        z:\nb: 1\n", 2, 0},
		{"comment", "a: 1 # [[[[[[\n", 2, 0},
		{"sequences", "- - - - a\n", 3, 1},
		{"multi-line flow", "a: [\n  [\n    [\n      1]]]\n", 3, 3},
	} {
		if got := limits.DeepLine([]byte(c.text), c.max); got != c.line {
			t.Errorf("%s: DeepLine(max %d) = line %d, want %d", c.name, c.max, got, c.line)
		}
	}
}

func TestProtoDeepLine(t *testing.T) {
	p := "syntax = \"proto3\";\n// {{{{\n/* {{{{ */\nmessage A {\n  string s = 1 [(x) = \"{{{{\"];\n  message B {\n    map<string, int32> m = 1;\n  }\n}\n"
	if got := limits.ProtoDeepLine([]byte(p), 3); got != 0 {
		t.Errorf("proto within limit: line %d", got)
	}
	if got := limits.ProtoDeepLine([]byte(p), 2); got != 7 {
		t.Errorf("proto over limit: line %d, want 7 (map<)", got)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"100": 100, "64MiB": 64 << 20, "2k": 2048, "1 GB": 1 << 30, "10B": 10} {
		if got, err := limits.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "0", "MiB", "1.5MiB", "99999999999G"} {
		if _, err := limits.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	if got := limits.FormatSize(64 << 20); got != "64MiB" {
		t.Errorf("FormatSize = %q", got)
	}
}

// TestGuard: each limit, hit through the guard, names the file, the limit
// and the flag; a file past the size limit is refused without being read.
func TestGuard(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("big.yaml", strings.Repeat("a: 1\n", 300))
	write("deep.json", `{"a":[[[[1]]]]}`)
	write("ok.yaml", "a: 1\n")
	write("ok2.yaml", "b: 1\n")
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	show := func(s string) string { return "shown/" + s }
	g := limits.Limits{FileSize: 1000, Depth: 4, Files: 2}.Guard(src, show)
	for name, want := range map[string]string{
		"big.yaml":  "shown/big.yaml: 1500 bytes is larger than the limit of 1000 bytes on one file (raise it with --max-file-size)",
		"deep.json": "shown/deep.json:1: nested deeper than the limit of 4 levels (raise it with --max-depth)",
	} {
		_, err := g.ReadFile(name)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", name, err, want)
		}
	}
	if _, err := g.ReadFile("ok.yaml"); err == nil || !strings.Contains(err.Error(), "more than the limit of 2 files on one side (raise it with --max-files)") {
		t.Errorf("third file: got %v", err)
	}
	g = limits.Limits{}.Guard(src, nil)
	for _, name := range []string{"ok.yaml", "ok2.yaml", "ok.yaml"} {
		if b, err := g.ReadFile(name); err != nil || len(b) != 5 {
			t.Errorf("%s under default limits: %q, %v", name, b, err)
		}
	}
}

// TestScanElements: keys and list items, block or flow, counted before
// any alias is expanded; in .proto, declarations and list entries.
func TestScanElements(t *testing.T) {
	for text, want := range map[string]int{
		"a: 1\nb:\n  - x\n  - y\n":       4,
		"a: {b: 1, c: [1, 2, 3]}\n":      6,
		`{"a": [{"b": 1}, {"c": 2}]}`:    5,
		"a: |\n  - not: an item\nb: 1\n": 2,
		"- k: v\n  j: w\n- x\n":          4,
		"a: \"x, y, [z]\"\n":             1,
	} {
		if got := limits.Scan([]byte(text), 100, 1<<30).Elements; got != want {
			t.Errorf("Scan(%q) counted %d elements, want %d", text, got, want)
		}
	}
	p := "syntax = \"proto3\";\nmessage M {\n  string a = 1; // x; y;\n  reserved 2, 3, 4;\n}\n"
	if _, got := limits.ProtoScan([]byte(p), 10); got != 6 {
		t.Errorf("ProtoScan counted %d elements, want 6 (syntax, M, a, reserved 2, 3, 4)", got)
	}
}

// TestExpanded: aliases count as what they expand to, shared anchors are
// counted once however often they are used, and a bomb of nested mappings
// (each level aliasing the one below twice) is refused at the entry that
// passes the limit, after work linear in its text.
func TestExpanded(t *testing.T) {
	if n, _ := limits.Expanded([]byte("a: 1\nb: [2, 3]\n"), 100); n != 0 {
		t.Errorf("no anchor: counted %d, want 0 (Scan's count holds)", n)
	}
	if n, line := limits.Expanded([]byte("a: &x [1, 2, 3]\nb: *x\nc: *x\n"), 100); n != 12 || line != 0 {
		t.Errorf("three uses of a 3-item list = %d at line %d, want 12 (3 keys, 9 items)", n, line)
	}
	var b strings.Builder
	b.WriteString("a0: &a0 {t: s}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "a%d: &a%d {l: *a%d, r: *a%d}\n", i, i, i-1, i-1)
	}
	n, line := limits.Expanded([]byte(b.String()), 1_000_000)
	if n != 1_000_001 || line < 18 || line > 22 {
		t.Errorf("bomb of 2^40: counted %d at line %d, want past the limit near line 20", n, line)
	}
}

// TestDuplicateKey: a key twice in one JSON object is found at its second
// place; the same key in two objects, or in YAML, is not a duplicate here.
func TestDuplicateKey(t *testing.T) {
	for text, want := range map[string][3]any{
		`{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}`:      {0, 0, ""},
		"{\"a\": 1,\n \"b\": {\"x\": [1, {\"y\": 2}], \"x\": 3}}": {2, 28, "x"},
		`{"a": "a", "a": 1}`: {1, 12, "a"},
		"a: 1\na: 2\n":       {0, 0, ""},
		`{"a": 1, "a"`:       {1, 10, "a"}, // found before the text breaks
	} {
		line, col, key := limits.DuplicateKey([]byte(text))
		if got := [3]any{line, col, key}; got != want {
			t.Errorf("DuplicateKey(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSecondDocument: a document marker after content, followed by more,
// is a second document; markers around one document are not.
func TestSecondDocument(t *testing.T) {
	for text, want := range map[string]int{
		"a: 1\n---\nb: 2\n":           2,
		"---\na: 1\n...\n":            0,
		"---\na: 1\n---\n":            0,
		"a: 1\n--- {b: 2}\n":          2,
		"a: |\n  ---\n  text\nb: 1\n": 0,
	} {
		if got := limits.Scan([]byte(text), 10, 1<<30).SecondDocument; got != want {
			t.Errorf("Scan(%q).SecondDocument = %d, want %d", text, got, want)
		}
	}
}

// TestScanKeys: the keys of one mapping are counted across lines, past
// nested blocks and in flow style; the keys of different mappings, and
// the items of a list, are not added together.
func TestScanKeys(t *testing.T) {
	for text, wide := range map[string]int{
		"a: 1\nb:\n  x: 1\n  y: 2\nc: 3\n":            0,
		"a: 1\nb:\n  x: 1\n  y: 2\nc: 3\nd: 4\n":      6,
		"- a: 1\n  b: 2\n  c: 3\n- a: 1\n":            0,
		"- a: 1\n  b: 2\n  c: 3\n  d: 4\n":            4,
		"a: {x: 1, y: 2, z: 3}\nb: [1, 2, 3, 4, 5]\n": 0,
		"a: {x: 1, y: [1, 2], z: 3, w: 4}\n":          1,
		`{"a": 1, "b": {"x": 1}, "c": 2}`:             0,
		`{"a": 1, "b": {"x": 1}, "c": 2, "d": 3}`:     1,
	} {
		if got := limits.Scan([]byte(text), 100, 3).WideLine; got != wide {
			t.Errorf("Scan(%q, 3 keys).WideLine = %d, want %d", text, got, wide)
		}
	}
}

func TestLongLine(t *testing.T) {
	for text, want := range map[string]int{"ab\ncd\n": 0, "ab\ncdef\nx": 2, "abcd": 1, "abc": 0, "": 0} {
		if got := limits.LongLine([]byte(text), 3); got != want {
			t.Errorf("LongLine(%q, 3) = %d, want %d", text, got, want)
		}
	}
}

// TestKinds: the pre-parse scans count each kind where a parser would
// build it: operations only under paths (not a schema property named get),
// schemas under components.schemas or definitions, the widest properties
// mapping; in .proto, messages, fields (not enum values, options or
// reserved statements) and each reserved entry.
func TestKinds(t *testing.T) {
	yamlCases := map[string]limits.Counts{
		// Block YAML; a property named "get" is not an operation.
		"paths:\n  /a:\n    get: {}\n    post: {}\n    parameters: []\n  /b:\n    delete: {}\ncomponents:\n  schemas:\n    A:\n      properties:\n        get: {}\n        b: {}\n    B: {}\n": {limits.Operations: 3, limits.Schemas: 2, limits.Properties: 2},
		// JSON, on one line and spread over lines.
		`{"paths": {"/a": {"get": {}, "put": {"x": 1}}}, "components": {"schemas": {"A": {"properties": {"a": {}, "b": {}, "c": {}}}}}}`: {limits.Operations: 2, limits.Schemas: 1, limits.Properties: 3},
		"{\n  \"paths\": {\n    \"/a\": {\n      \"get\": {}\n    }\n  },\n  \"definitions\": {\"A\": {}, \"B\": {}}\n}\n":               {limits.Operations: 1, limits.Schemas: 2},
		// Flow YAML with plain keys, and a colon inside a value.
		"paths: {/a: {get: {description: \"a: b\"}, head: {}}}\ncomponents: {schemas: {A: {properties: {x: {}, y: {}}}}}\n": {limits.Operations: 2, limits.Schemas: 1, limits.Properties: 2},
	}
	for text, want := range yamlCases {
		if got := limits.Scan([]byte(text), 100, 1<<30).Counts; got != want {
			t.Errorf("Scan(%q).Counts = %v, want %v", text, got, want)
		}
	}
	proto := `syntax = "proto3";
// message NotOne { }
message A {
  string s = 1 [(opt) = { a: 1, b: "message {" }, deprecated = true];
  map<string, int32> m = 2;
  oneof o { int32 x = 3; string y = 4; }
  message B { reserved 5 to 9, 12; reserved "z"; }
  enum E { E_UNSPECIFIED = 0; E_ONE = 1; }
  option (x) = { y: 2 };
}
service S { rpc Get(A) returns (A); }
`
	if got, want := limits.ProtoShape([]byte(proto), 100).Counts, (limits.Counts{limits.Messages: 2, limits.Fields: 4, limits.Reserved: 3}); got != want {
		t.Errorf("ProtoShape counts = %v, want %v (messages, fields, reserved)", got, want)
	}
}

// TestParseCount: --max-count takes KIND=N for a known kind and a positive N.
func TestParseCount(t *testing.T) {
	if k, n, err := limits.ParseCount("fields=12"); k != limits.Fields || n != 12 || err != nil {
		t.Errorf("ParseCount(fields=12) = %v, %d, %v", k, n, err)
	}
	for _, bad := range []string{"fields", "field=3", "fields=0", "fields=x", "=3"} {
		if _, _, err := limits.ParseCount(bad); err == nil {
			t.Errorf("ParseCount(%q) accepted", bad)
		}
	}
}

// A config's limits may lower a ceiling, never raise one: each raised is
// held at the default and named.
func TestCapped(t *testing.T) {
	l := limits.Limits{Keys: 90_000, Depth: 7, Elements: 300_000, Counts: limits.Counts{limits.Operations: 1 << 20}}
	l.ProtoElements = l.Elements
	got, held := l.Capped()
	if got.Keys != limits.DefaultKeys || got.Depth != 7 || got.Elements != 300_000 || got.ProtoElements != limits.DefaultProtoElements ||
		got.Counts[limits.Operations] != limits.Default().Counts[limits.Operations] {
		t.Errorf("Capped() = %+v", got)
	}
	want := []string{
		"limits.elements 300000 is above the built-in ceiling for .proto files and is held at 180000 there (only --max-elements raises it)",
		"limits.keys 90000 is above the built-in ceiling and is held at 10000 (only --max-keys raises it)",
		"limits.operations 1048576 is above the built-in ceiling and is held at 50000 (only --max-count operations=N raises it)",
	}
	if strings.Join(held, "\n") != strings.Join(want, "\n") {
		t.Errorf("held:\n%s\nwant:\n%s", strings.Join(held, "\n"), strings.Join(want, "\n"))
	}
	if _, held := (limits.Limits{Keys: 4}).Capped(); len(held) != 0 {
		t.Errorf("a lowered limit is held: %q", held)
	}
}
