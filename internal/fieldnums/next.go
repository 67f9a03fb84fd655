package fieldnums

import (
	"bytes"
	"slices"

	"github.com/bufbuild/protocompile/ast"
	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
)

// Next reads text, a later or earlier version of old (the text f was read
// from). It parses only the lines that differ, found by a line diff and
// widened to lines where f is cut safely: outside every comment, and
// between two elements of the innermost message, enum or service body that
// holds the change, else between two top-level declarations; the
// declarations and elements between are f's, moved. The result is what
// Parse of text gives: the text above a cut is old's, so the parser
// reaches the cut between two elements of that body; the changed lines
// parse on their own as elements of such a body (inside a body of that
// kind when the cut is in one), so it leaves them there; the text below is
// old's again. A change to the header (syntax, package, imports), or lines
// that do not parse on their own, are read with the whole top-level
// declarations that hold them, else whole.
func (f *File) Next(name string, old, text []byte) (*File, error) {
	if g, ok, err := f.next(name, old, text, true); ok {
		return g, err
	}
	g, _, err := f.next(name, old, text, false)
	return g, err
}

// next is Next with cuts inside bodies when nested is set; false when a
// part inside a body did not parse there (the change is then read again
// without them).
func (f *File) next(name string, old, text []byte, nested bool) (*File, bool, error) {
	cuts := f.hunks(f.cut(old, text), old, text, nested)
	for _, c := range cuts {
		for _, d := range f.decls {
			if c.depth == 0 && d.header && d.end >= c.from && d.start < c.to {
				g, err := Parse(name, text)
				return g, true, err
			}
		}
	}
	// From the bottom up: each cut's lines are still old's above it.
	g := f
	for i := len(cuts) - 1; i >= 0; i-- {
		c := cuts[i]
		if c.depth > 0 {
			h, ok := g.spliceIn(name, c, text)
			if !ok {
				return nil, false, nil
			}
			g = h
			continue
		}
		part := make([]byte, c.from-1, c.from-1+c.hi-c.lo)
		for i := range part {
			part[i] = '\n' // the part keeps its line numbers
		}
		part = append(part, text[c.lo:c.hi]...)
		node, err := parser.Parse(name, bytes.NewReader(part), reporter.NewHandler(nil))
		if err != nil {
			g, err := Parse(name, text)
			return g, true, err
		}
		mid := declsOf(node, nil)
		above := func(d *decl) bool { return d.lead && d.start >= c.to } // the syntax line below the part
		if slices.ContainsFunc(mid, func(d *decl) bool { return d.header }) || len(mid) > 0 && slices.ContainsFunc(g.decls, above) {
			g, err := Parse(name, text)
			return g, true, err
		}
		g = g.splice(c, mid, safeLines(node, c.from, c.to+c.delta), 0)
	}
	return g, true, nil
}

// cut is the lines of a change: old's lines [from, to) became text's
// [from, to+delta), which are text's bytes [lo, hi). depth is the depth of
// the body the lines are elements of (0: the file's top level). cut sets
// rawFrom and rawTo, the lines between the common head and tail before
// they are widened.
type cut struct {
	from, to, delta int
	lo, hi          int
	depth           int
	rawFrom, rawTo  int
}

func (f *File) cut(old, text []byte) cut {
	pre := CommonPrefix(old, text)
	suf := CommonSuffix(old[pre:], text[pre:])
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
	c.rawFrom, c.rawTo = c.from, c.to
	for f.safe[c.from] != 0 {
		c.from--
		c.lo = bytes.LastIndexByte(old[:c.lo-1], '\n') + 1
	}
	hiOld := tailAt
	for f.safe[c.to] != 0 {
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
// lines parsed on their own are marked as safe says (from line c.from),
// each depth but -1 deeper by by.
func (f *File) splice(c cut, mid []*decl, safe []int8, by int) *File {
	g := &File{Package: f.Package, Imports: f.Imports, syms: f.syms, res: f.res, resDeps: f.resDeps}
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
	g.safe = f.spliceSafe(c, safe, by)
	return g
}

// spliceSafe is f.safe with c's lines marked as safe, the part's, marks
// them (safe[0] is line c.from; see splice).
func (f *File) spliceSafe(c cut, safe []int8, by int) []int8 {
	out := make([]int8, len(f.safe)+c.delta)
	copy(out, f.safe[:c.from+1])
	for l := c.from + 1; l < c.to+c.delta; l++ {
		d := int(safe[l-c.from])
		if d > 0 {
			if d += by; d > maxDepth {
				d = -1
			}
		}
		out[l] = int8(d)
	}
	copy(out[c.to+c.delta:], f.safe[c.to:])
	return out
}

// wrappers open a body of each kind around a part read inside one.
var wrappers = map[Kind]string{Message: "message M {", Enum: "enum E {", Service: "service S {"}

// spliceIn is f with the elements of c's lines, inside a body, replaced by
// text's, parsed inside a body of that kind; false when they do not parse
// there as elements.
func (f *File) spliceIn(name string, c cut, text []byte) (*File, bool) {
	at := slices.IndexFunc(f.decls, func(d *decl) bool { return d.start <= c.from && c.from <= d.end })
	if at < 0 || f.decls[at].scope == nil {
		return nil, false
	}
	d := f.decls[at]
	// The scopes from the declaration down to the cut's, and which
	// element of each holds the next.
	type step struct {
		s    *scope
		base int
		at   int
	}
	path := []step{{s: d.scope, base: d.start}}
	for len(path) < c.depth {
		st := &path[len(path)-1]
		st.at = slices.IndexFunc(st.s.elems, func(e elem) bool {
			return e.sub != nil && st.base+e.start <= c.from && c.from <= st.base+e.end
		})
		if st.at < 0 {
			return nil, false
		}
		e := st.s.elems[st.at]
		path = append(path, step{s: e.sub, base: st.base + e.start})
	}
	in := path[len(path)-1]
	last := c.to + c.delta // the part's closing line
	part := make([]byte, 0, len(wrappers[in.s.kind])+c.from+c.hi-c.lo+1)
	part = append(part, wrappers[in.s.kind]...)
	for range c.from - 1 {
		part = append(part, '\n') // the part keeps its line numbers
	}
	part = append(part, text[c.lo:c.hi]...)
	part = append(part, '}')
	node, err := parser.Parse(name, bytes.NewReader(part), reporter.NewHandler(nil))
	if err != nil || len(node.Decls) != 1 || node.Syntax != nil || node.Edition != nil {
		return nil, false
	}
	open, close, elems := bodyOf(node.Decls[0])
	if open == nil || kindOf(node.Decls[0]) != in.s.kind || node.NodeInfo(open).Start().Line != 1 ||
		node.NodeInfo(close).Start().Line != last {
		return nil, false
	}
	mid := in.s.elemsOf(node, elems, in.base)
	// The scope of the cut, then each above it, with the lines below the
	// cut moved.
	moved := func(es []elem) []elem {
		out := make([]elem, len(es))
		for i, e := range es {
			e.start, e.end = e.start+c.delta, e.end+c.delta
			out[i] = e
		}
		return out
	}
	var before, after []elem
	for _, e := range in.s.elems {
		switch {
		case in.base+e.end < c.from:
			before = append(before, e)
		case in.base+e.start >= c.to:
			after = append(after, e)
		case in.base+e.start < c.from || in.base+e.end >= c.to:
			return nil, false // an element the cut splits: not a cut between elements
		}
	}
	inner := &scope{kind: in.s.kind, name: in.s.name, open: in.s.open, close: in.s.close + c.delta,
		elems: slices.Concat(before, mid, moved(after))}
	inner.fields()
	for i := len(path) - 2; i >= 0; i-- {
		st := path[i]
		e := st.s.elems[st.at]
		e.end += c.delta
		e.sub = inner
		inner = &scope{kind: st.s.kind, name: st.s.name, open: st.s.open, close: st.s.close + c.delta,
			elems: slices.Concat(st.s.elems[:st.at], []elem{e}, moved(st.s.elems[st.at+1:])), msg: st.s.msg}
	}
	nd := *d
	nd.end += c.delta
	nd.scope = inner
	if in.s.kind == Message {
		nd.derive()
	}
	g := &File{Package: f.Package, Imports: f.Imports, syms: f.syms, res: f.res, resDeps: f.resDeps}
	g.decls = make([]*decl, 0, len(f.decls))
	g.decls = append(g.decls, f.decls[:at]...)
	g.decls = append(g.decls, &nd)
	for _, x := range f.decls[at+1:] {
		m := *x
		m.start, m.end = x.start+c.delta, x.end+c.delta
		g.decls = append(g.decls, &m)
	}
	if !slices.Equal(d.declared, nd.declared) {
		g.syms = g.symbols()
	}
	g.safe = f.spliceSafe(c, safeLines(node, c.from, c.to+c.delta), c.depth-1)
	return g, true
}

// kindOf is what n, a message, enum or service, declares.
func kindOf(n ast.Node) Kind {
	switch n.(type) {
	case *ast.MessageNode:
		return Message
	case *ast.EnumNode:
		return Enum
	case *ast.ServiceNode:
		return Service
	}
	return None
}

// CommonPrefix is how many bytes a and b start with alike, compared 64 at a
// time where they agree.
func CommonPrefix(a, b []byte) int {
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

// CommonSuffix is how many bytes a and b end with alike.
func CommonSuffix(a, b []byte) int {
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
