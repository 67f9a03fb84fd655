package fieldnums

import (
	"bytes"
	"slices"

	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
)

// Next reads text, a later or earlier version of old (the text f was read
// from). It parses only the lines that differ, found by a line diff and
// widened to lines where f is cut safely (outside every declaration and
// comment); the declarations between are f's, moved. The result is what
// Parse of text gives: the text above a cut is old's, so the parser
// reaches the cut outside everything; the changed lines parse on their
// own to the end, so it leaves them outside everything; the text below is
// old's again. A change to the header (syntax, package, imports), or lines
// that do not parse on their own, are read whole.
func (f *File) Next(name string, old, text []byte) (*File, error) {
	cuts := f.hunks(f.cut(old, text), old, text)
	for _, c := range cuts {
		for _, d := range f.decls {
			if d.header && d.end >= c.from && d.start < c.to {
				return Parse(name, text)
			}
		}
	}
	// From the bottom up: each cut's lines are still old's above it.
	g := f
	for i := len(cuts) - 1; i >= 0; i-- {
		c := cuts[i]
		part := make([]byte, c.from-1, c.from-1+c.hi-c.lo)
		for i := range part {
			part[i] = '\n' // the part keeps its line numbers
		}
		part = append(part, text[c.lo:c.hi]...)
		node, err := parser.Parse(name, bytes.NewReader(part), reporter.NewHandler(nil))
		if err != nil {
			return Parse(name, text)
		}
		mid := declsOf(node, nil)
		if slices.ContainsFunc(mid, func(d *decl) bool { return d.header }) {
			return Parse(name, text)
		}
		g = g.splice(c, mid, safeLines(node, lineCount(part)))
	}
	return g, nil
}

// cut is the lines of a change: old's lines [from, to) became text's
// [from, to+delta), which are text's bytes [lo, hi).
type cut struct {
	from, to, delta int
	lo, hi          int
}

func (f *File) cut(old, text []byte) cut {
	pre := commonPrefix(old, text)
	suf := commonSuffix(old[pre:], text[pre:])
	// The unchanged tail is made of whole lines: it starts after the
	// first line break of the common suffix.
	tailAt := len(old) - suf
	tailFrom, newTailFrom := lineCount(old)+1, lineCount(text)+1
	if i := bytes.IndexByte(old[tailAt:], '\n'); i >= 0 {
		tailAt += i + 1
		tailFrom = lineCount(old[:tailAt])
		newTailFrom = lineCount(text[:len(text)-(len(old)-tailAt)])
	} else {
		tailAt = len(old)
	}
	headAt := bytes.LastIndexByte(old[:pre], '\n') + 1
	c := cut{from: lineCount(old[:headAt]), to: tailFrom, delta: newTailFrom - tailFrom, lo: headAt}
	for !f.safe[c.from] {
		c.from--
		c.lo = bytes.LastIndexByte(old[:c.lo-1], '\n') + 1
	}
	hiOld := tailAt
	for !f.safe[c.to] {
		c.to++
		if i := bytes.IndexByte(old[hiOld:], '\n'); i >= 0 {
			hiOld += i + 1
		} else {
			hiOld = len(old)
		}
	}
	c.hi = hiOld + len(text) - len(old)
	return c
}

// splice is f with the declarations of c's lines replaced by mid, whose
// lines parsed on their own are marked safe as safe says.
func (f *File) splice(c cut, mid []*decl, safe []bool) *File {
	g := &File{Package: f.Package, Imports: f.Imports, syms: f.syms}
	var before, after []*decl
	var gone, came []symbol
	for _, d := range f.decls {
		switch {
		case d.end < c.from:
			before = append(before, d)
		case d.start >= c.to:
			moved := *d
			moved.start, moved.end = d.start+c.delta, d.end+c.delta
			after = append(after, &moved)
		default:
			gone = append(gone, d.declared...)
		}
	}
	for _, d := range mid {
		came = append(came, d.declared...)
	}
	g.decls = slices.Concat(before, mid, after)
	if !slices.Equal(gone, came) {
		g.syms = g.symbols()
	}
	g.safe = make([]bool, len(f.safe)+c.delta)
	copy(g.safe, f.safe[:c.from+1])
	if end := c.to + c.delta; end > c.from+1 {
		copy(g.safe[c.from+1:end], safe[c.from+1:end])
	}
	copy(g.safe[c.to+c.delta:], f.safe[c.to:])
	return g
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[i:i+64], b[i:i+64]) {
		i += 64
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+64 <= n && bytes.Equal(a[len(a)-i-64:len(a)-i], b[len(b)-i-64:len(b)-i]) {
		i += 64
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
