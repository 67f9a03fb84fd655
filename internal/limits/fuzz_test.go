package limits_test

import (
	"testing"

	"github.com/contractlint/contractlint/internal/limits"
)

// FuzzScan feeds arbitrary text to every pre-parse check, which see the
// bytes before any parser does: none may panic, and every count and line
// they return must make sense for the text.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb:\n  - x\n  - {y: [1, 2]}\n",
		"a: &a {x: 1}\nb: *a\n---\nc: 2\n",
		`{"a": [1, {"b": 2}], "a": 3}`,
		"a: |\n  text\n  ---\nb: 'it''s'\n",
		"syntax = \"proto3\";\nmessage M { reserved 1, 2; }\n",
		"- - - a\n... \n%YAML 1.2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		lines := 1
		for _, c := range b {
			if c == '\n' {
				lines++
			}
		}
		sh := limits.Scan(b, 8, 4)
		for name, line := range map[string]int{"DeepLine": sh.DeepLine, "WideLine": sh.WideLine, "SecondDocument": sh.SecondDocument} {
			if line < 0 || line > lines {
				t.Fatalf("%s = %d, outside the text's %d lines", name, line, lines)
			}
		}
		if sh.Elements < 0 {
			t.Fatalf("negative element count %d", sh.Elements)
		}
		if line, n := limits.ProtoScan(b, 8); line < 0 || line > lines || n < 0 {
			t.Fatalf("ProtoScan = line %d, %d elements", line, n)
		}
		// Every thing of a limited kind is also an element, so the kind
		// limits never count what the element limits do not.
		ps := limits.ProtoShape(b, 8)
		for _, k := range limits.Kinds {
			if sh.Counts[k] < 0 || sh.Counts[k] > sh.Elements || ps.Counts[k] < 0 || ps.Counts[k] > ps.Elements {
				t.Fatalf("%s counted %d (YAML, of %d elements) and %d (.proto, of %d)", k, sh.Counts[k], sh.Elements, ps.Counts[k], ps.Elements)
			}
		}
		if sh.PropsLine < 0 || sh.PropsLine > lines {
			t.Fatalf("PropsLine = %d, outside the text's %d lines", sh.PropsLine, lines)
		}
		if n, line := limits.Expanded(b, 1000); n < 0 || n > 1001 || line < 0 || line > lines {
			t.Fatalf("Expanded = %d at line %d", n, line)
		}
		if line, col, _ := limits.DuplicateKey(b); line < 0 || line > lines || (line > 0 && col < 1) {
			t.Fatalf("DuplicateKey at %d:%d", line, col)
		}
	})
}
