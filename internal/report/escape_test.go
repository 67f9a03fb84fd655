package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"\x1b[31mred\x1b[0m": `\u001b[31mred\u001b[0m`,
		"a\r\nb\tc":          "a  b c",
		"\x9b31m":            `\ufffd31m`, // a lone C1 byte is invalid UTF-8
		"\u009b31m":          `\u009b31m`, // the C1 CSI as a character
		"\u202eevil":         `\u202eevil`,
		"zero\u200bwidth":    `zero\u200bwidth`,
		"bad\xffutf8":        `bad\ufffdutf8`,
		"non\uffffcharacter": `non\uffffcharacter`,
		"nul\x00":            `nul\u0000`,
		"ünïcödé is fine ✓":  "ünïcödé is fine ✓",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCleanIsXMLLegal runs every code point through Clean: what comes out is
// valid UTF-8 made only of characters XML 1.0 allows, so the JUnit report
// never needs a second filter.
func TestCleanIsXMLLegal(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		b.WriteRune(r)
	}
	b.WriteString("\xff\xfe\xed\xa0\x80") // invalid UTF-8 and an encoded surrogate
	out := Clean(b.String())
	if !utf8.ValidString(out) {
		t.Fatal("Clean produced invalid UTF-8")
	}
	for _, r := range out {
		legal := r == 0x9 || r == 0xa || r == 0xd || (r >= 0x20 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff)
		if !legal || needsClean(r) {
			t.Fatalf("Clean let %U through", r)
		}
	}
}
