package openapi

import (
	"bytes"
	"testing"
)

// TestLineOf: the line of every offset, found by searching the line index,
// is the number of line breaks before it, as counting them says.
func TestLineOf(t *testing.T) {
	for _, src := range []string{"", "\n", "a", "a\n", "{\n  \"a\": 1,\n\n  \"b\": [\n  ]\n}", "\n\nx\n\n"} {
		d := newPieces([]byte(src))
		for off := 0; off <= len(src); off++ {
			if got, want := d.lineOf(off), bytes.Count([]byte(src[:off]), []byte("\n")); got != want {
				t.Errorf("lineOf(%q, %d) = %d, want %d", src, off, got, want)
			}
		}
	}
}
