package source

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Problem is one reason a contract cannot be read, at file:line:col.
type Problem struct {
	File   string
	Line   int
	Column int
	Msg    string
	// Omitted, when non-zero, makes this a summary standing for that many
	// problems in File that a reader stopped keeping (see Collector).
	Omitted int
}

// String is the problem on one line: a line break inside a file name or a
// message (a committed name can hold one) becomes a space, as the reports
// on standard output write it, so no text of the contract's can start a
// line of its own (a workflow command such as ::error) on standard error.
func (p Problem) String() string {
	p.File, p.Msg = oneLine.Replace(p.File), Bound(oneLine.Replace(p.Msg))
	if p.Omitted > 0 {
		return fmt.Sprintf("%s: and %d more %s not shown", p.File, p.Omitted, plural(p.Omitted, "problem"))
	}
	switch {
	case p.File == "":
		return p.Msg
	case p.Line == 0:
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	case p.Column == 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Msg)
}

// MaxMessage bounds one problem's message, in bytes: a message quoting a
// value of the contract's (a 1,000,000-digit number) quotes a prefix of it,
// so one error line, or one annotation, stays readable.
const MaxMessage = 1024

// Bound cuts msg to MaxMessage bytes at a character boundary, saying how
// much was left out.
func Bound(msg string) string {
	if len(msg) <= MaxMessage {
		return msg
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", msg[:cut], len(msg)-cut)
}

var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ", "\u0085", " ")

// MaxPerFile is how many problems of one file an error shows; the rest are
// counted ("and N more"), so junk fed as a contract cannot print megabytes.
const MaxPerFile = 50

// Problems is an input error: every problem found, sorted, one per line,
// at most MaxPerFile for each file.
type Problems []Problem

func (ps Problems) Error() string {
	// Sort a copy: Error may run on the same value from several goroutines.
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Omitted, b.Omitted), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), cmp.Compare(a.Msg, b.Msg))
	})
	var lines []string
	for len(ps) > 0 {
		n := 1
		for n < len(ps) && ps[n].File == ps[0].File {
			n++
		}
		lines = appendCapped(lines, ps[:n])
		ps = ps[n:]
	}
	return strings.Join(lines, "\n")
}

// appendCapped shows the first MaxPerFile problems of one file and one line
// counting the rest, summaries included.
func appendCapped(lines []string, file []Problem) []string {
	more := 0
	for i, p := range file {
		switch {
		case p.Omitted > 0:
			more += p.Omitted
		case i < MaxPerFile:
			lines = append(lines, p.String())
		default:
			more++
		}
	}
	if more > 0 {
		lines = append(lines, Problem{File: file[0].File, Omitted: more}.String())
	}
	return lines
}

// Collector gathers problems as a parser reports them, keeping at most
// MaxPerFile of each file and counting the rest, so a file of junk costs
// memory in proportion to what is shown, not to its millions of errors.
type Collector struct {
	kept    Problems
	perFile map[string]int
}

// Add keeps p, or counts it when its file already has MaxPerFile.
func (c *Collector) Add(p Problem) {
	if c.perFile == nil {
		c.perFile = map[string]int{}
	}
	c.perFile[p.File]++
	if c.perFile[p.File] <= MaxPerFile {
		c.kept = append(c.kept, p)
	}
}

// Problems returns what was kept plus one summary per file that had more.
func (c *Collector) Problems() Problems {
	out := slices.Clone(c.kept)
	for f, n := range c.perFile {
		if n > MaxPerFile {
			out = append(out, Problem{File: f, Omitted: n - MaxPerFile})
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Errorf makes a one-problem input error.
func Errorf(file string, line, col int, format string, args ...any) Problems {
	return Problems{{File: file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}}
}
