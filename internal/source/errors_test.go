package source_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
)

// TestProblemsCapped: an error shows at most MaxPerFile problems of each
// file, then one line counting the rest, other files unaffected; a
// Collector keeps no more than it shows, and its count survives.
func TestProblemsCapped(t *testing.T) {
	var ps source.Problems
	var c source.Collector
	for i := range 1000 {
		p := source.Problem{File: "junk.proto", Line: i + 1, Column: 1, Msg: "invalid character"}
		ps = append(ps, p)
		c.Add(p)
	}
	ps = append(ps, source.Problem{File: "a.proto", Line: 3, Msg: "one"})
	c.Add(source.Problem{File: "a.proto", Line: 3, Msg: "one"})
	for name, err := range map[string]source.Problems{"all kept": ps, "collected": c.Problems()} {
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 1+source.MaxPerFile+1 {
			t.Errorf("%s: %d lines, want %d", name, len(lines), source.MaxPerFile+2)
			continue
		}
		if lines[0] != "a.proto:3: one" || lines[1] != "junk.proto:1:1: invalid character" {
			t.Errorf("%s: starts %q, %q", name, lines[0], lines[1])
		}
		want := fmt.Sprintf("junk.proto: and %d more problems not shown", 1000-source.MaxPerFile)
		if last := lines[len(lines)-1]; last != want {
			t.Errorf("%s: last line %q, want %q", name, last, want)
		}
	}
	if n := len(c.Problems()); n != source.MaxPerFile+2 {
		t.Errorf("the collector kept %d problems, want %d", n, source.MaxPerFile+2)
	}
}

// TestProblemIsOneLine: a committed file name (or a message quoting
// contract text) with a line break cannot start a line of its own on
// standard error, where a CI runner would read `::error ...` as a command.
func TestProblemIsOneLine(t *testing.T) {
	p := source.Problems{{File: "x\n::error title=pwn::y.yaml", Line: 2, Msg: "bad\r\n::warning::z\u2028w"}}
	if got := p.Error(); strings.ContainsAny(got, "\r\n\u2028") {
		t.Errorf("Error() = %q, want one line", got)
	}
}

// TestProblemBounded: an error quoting a huge value quotes a prefix of it.
func TestProblemBounded(t *testing.T) {
	p := source.Problems{{File: "a.yaml", Line: 1, Msg: "bad value " + strings.Repeat("9", 1_000_000)}}
	if got := p.Error(); len(got) > source.MaxMessage+100 || !strings.Contains(got, "more bytes)") {
		t.Errorf("Error() is %d bytes, want at most about %d, saying what was cut", len(got), source.MaxMessage)
	}
}
