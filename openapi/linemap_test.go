package openapi

import (
	"bytes"
	"strings"
	"testing"
)

// TestFragmentCompacted: a fragment leaves out the lines of the chunks it
// does not hold, and its map takes each of its lines back to the line of
// the document it came from (a stub's line gains " {}").
func TestFragmentCompacted(t *testing.T) {
	src := subsetDoc(pathA+pathC, schA+schB+schC+"    D:\n      type: object\n      properties:\n        x: {type: string}\n")
	d, why := cut([]byte(src))
	if why != nil {
		t.Fatal(why)
	}
	for _, keep := range []map[string]bool{
		{"#/paths/~1c": true},
		{"#/paths/~1a": true, "#/components/schemas/D": true},
		{"#/components/schemas/C": true},
		{},
	} {
		text, lines, ok := d.fragment(keep)
		if !ok {
			t.Fatalf("keep %v: no fragment", keep)
		}
		full := strings.Split(src, "\n")
		got := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		if len(got) >= len(full)-1 {
			t.Errorf("keep %v: %d lines of %d, want the left-out ones removed", keep, len(got), len(full))
		}
		for i, l := range got {
			orig := full[lines.line(i+1)-1]
			if l != orig && l != orig+" {}" {
				t.Errorf("keep %v: line %d %q maps to line %d %q", keep, i+1, l, lines.line(i+1), orig)
			}
		}
		if !bytes.Contains(text, []byte("openapi: 3.0.3")) {
			t.Errorf("keep %v: the header is missing:\n%s", keep, text)
		}
	}
}

func TestLineMap(t *testing.T) {
	var m lineMap
	for _, p := range [][2]int{{1, 1}, {2, 2}, {3, 7}, {4, 8}, {5, 20}} {
		m.add(p[0], p[1])
	}
	for at, want := range map[int]int{1: 1, 2: 2, 3: 7, 4: 8, 5: 20, 6: 21} {
		if got := m.line(at); got != want {
			t.Errorf("line(%d) = %d, want %d", at, got, want)
		}
	}
	if len(m.segs) != 2 {
		t.Errorf("%d segments, want 2 (one per jump)", len(m.segs))
	}
}
