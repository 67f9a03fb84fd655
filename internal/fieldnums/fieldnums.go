// Package fieldnums reads the field numbers a .proto file declares, each
// with its field's name and type, from protocompile's syntax tree alone:
// no linking, no options, no descriptors. A type is resolved as the linker
// resolves it, against the file's own declarations and the symbols of its
// imports. The next version of a file is read by parsing only the
// declarations a change touched, top-level or inside a message, enum or
// service body (see Next), so a history of hundreds of versions of a large
// file costs about one parse of it.
package fieldnums

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile/ast"
	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
)

// Use is one field as a version declared it: its message's full name, its
// number, name and type (a scalar's kind, a message's or enum's full name;
// a map field's value type), as rules.UsedNumber records it.
type Use struct {
	Message string
	Number  int32
	Name    string
	Type    string
}

// Import is one import statement of a file.
type Import struct {
	Path   string
	Public bool
}

// File is one version of a .proto file, as far as its field numbers go.
type File struct {
	Package string
	Imports []Import
	decls   []*decl
	// safe[l] is where line l (1-based) starts outside every token and
	// comment: 0 outside every top-level declaration, d inside the body of
	// a message, enum or service at depth d (a top-level one is 1) and
	// outside its elements; -1 anywhere else. The text above such a line
	// and the text below it parse apart, in that body. safe has a slot per
	// line and one past the end.
	safe []int8
	syms *Symbols
	// res is the resolver Uses last built, for the imports resDeps
	// found; the next version keeps it (see Next).
	res     *resolver
	resDeps Deps
}

// decl is one top-level declaration: the lines it spans, whether it is
// part of the header (syntax, edition, package, import), the names it
// declares and its messages with their fields.
type decl struct {
	start, end int
	header     bool
	lead       bool // the syntax or edition line, above which nothing is declared
	// scope is a message's, enum's or service's body (nil for other
	// declarations); declared and msgs are read from it.
	scope    *scope
	declared []symbol
	msgs     []*message
}

type symbol struct {
	name string // relative to the package
	kind Kind
}

type message struct {
	name   string // relative to the package
	fields []field
	// resolved caches the uses of fields for the resolver they were
	// resolved with: a message a change left alone keeps them.
	resolved struct {
		by   *resolver
		uses []Use
		ok   bool
	}
}

type field struct {
	name   string
	number int32
	// typ is the type as written; a group's is its message's name
	// relative to the package, resolved already.
	typ   string
	group bool
}

// Parse reads text, the contents of the file called name.
func Parse(name string, text []byte) (*File, error) {
	node, err := parser.Parse(name, bytes.NewReader(text), reporter.NewHandler(nil))
	if err != nil {
		return nil, err
	}
	f := &File{safe: safeLines(node, 0, lineCount(text)+1)}
	f.decls = declsOf(node, f)
	f.syms = f.symbols()
	return f, nil
}

func lineCount(text []byte) int { return bytes.Count(text, []byte{'\n'}) + 1 }

// maxDepth is the deepest body a change is read in alone: deeper ones are
// read with the body that holds them.
const maxDepth = 100

// safeLines marks the lines that start outside every element and every
// comment of the file or of a message's, enum's or service's body, with
// the depth of that body: a cut there leaves both sides whole. It marks
// lines [first, last], line l at l-first.
func safeLines(node *ast.FileNode, first, last int) []int8 {
	safe := make([]int8, last-first+1)
	mark := func(s, e int, v int8) {
		for l := max(s, first); l <= min(e, last); l++ {
			safe[l-first] = v
		}
	}
	span := func(s, e int) { mark(s+1, e, -1) }
	var body func(n ast.Node, depth int)
	body = func(n ast.Node, depth int) {
		open, close, elems := bodyOf(n)
		if depth > maxDepth {
			return
		}
		mark(node.NodeInfo(open).Start().Line+1, node.NodeInfo(close).Start().Line, int8(depth))
		for _, e := range elems {
			info := node.NodeInfo(e)
			span(info.Start().Line, info.End().Line)
			if nests(n, e) {
				body(e, depth+1)
			}
		}
	}
	for _, d := range node.Decls {
		info := node.NodeInfo(d)
		span(info.Start().Line, info.End().Line)
		switch d.(type) {
		case *ast.MessageNode, *ast.EnumNode, *ast.ServiceNode:
			body(d, 1)
		}
	}
	items := node.Items()
	for it, ok := items.First(); ok; it, ok = items.Next(it) {
		if _, c := node.GetItem(it); c.IsValid() {
			span(c.Start().Line, c.End().Line)
		}
	}
	return safe
}

// bodyOf is the braces and elements of a message, enum or service.
func bodyOf(n ast.Node) (open, close ast.Node, elems []ast.Node) {
	switch n := n.(type) {
	case *ast.MessageNode:
		for _, e := range n.Decls {
			elems = append(elems, e)
		}
		return n.OpenBrace, n.CloseBrace, elems
	case *ast.EnumNode:
		for _, e := range n.Decls {
			elems = append(elems, e)
		}
		return n.OpenBrace, n.CloseBrace, elems
	case *ast.ServiceNode:
		for _, e := range n.Decls {
			elems = append(elems, e)
		}
		return n.OpenBrace, n.CloseBrace, elems
	}
	return nil, nil, nil
}

// nests reports whether e, an element of n's body, is a body a change may
// be read in alone: a message or enum declared in a message.
func nests(n, e ast.Node) bool {
	if _, ok := n.(*ast.MessageNode); !ok {
		return false
	}
	switch e.(type) {
	case *ast.MessageNode, *ast.EnumNode:
		return true
	}
	return false
}

// declsOf reads node's top-level declarations, setting f's package and
// imports from its header.
func declsOf(node *ast.FileNode, f *File) []*decl {
	out := make([]*decl, 0, len(node.Decls)+1)
	header := func(n ast.Node) {
		info := node.NodeInfo(n)
		out = append(out, &decl{start: info.Start().Line, end: info.End().Line, header: true, lead: true})
	}
	if node.Syntax != nil {
		header(node.Syntax)
	}
	if node.Edition != nil {
		header(node.Edition)
	}
	for _, d := range node.Decls {
		info := node.NodeInfo(d)
		x := &decl{start: info.Start().Line, end: info.End().Line}
		switch d := d.(type) {
		case *ast.PackageNode:
			x.header = true
			if f != nil {
				f.Package = string(d.Name.AsIdentifier())
			}
		case *ast.ImportNode:
			x.header = true
			if f != nil {
				f.Imports = append(f.Imports, Import{Path: d.Name.AsString(), Public: d.Public != nil})
			}
		case *ast.MessageNode, *ast.EnumNode, *ast.ServiceNode:
			x.scope = scopeOf(node, d, "", x.start)
			x.derive()
		case *ast.ExtendNode:
			x.extend("", d)
		}
		out = append(out, x)
	}
	return out
}

// scope is the body of a message, enum or service: its elements with the
// lines they span, so that a change inside it is read alone (see Next).
// Its lines count from the line its declaration starts on, so that a
// declaration moved by a change above it keeps its scope as it is.
type scope struct {
	kind        Kind   // Message, Enum or Service
	name        string // relative to the package
	open, close int    // the lines of its braces
	elems       []elem
	msg         *message // a message's fields (see fields)
}

// elem is one element of a body.
type elem struct {
	start, end int    // its lines, counted as its scope's are
	sub        *scope // a message or enum declared in a message (its lines count from start)
	leaf       *leaf  // what another element of a message adds, if anything
}

// leaf is what an element of a message's body other than a message or an
// enum adds: fields of the message, and the messages and names its groups
// declare.
type leaf struct {
	fields   []field
	msgs     []*message
	declared []symbol
}

// scopeOf reads n, a message, enum or service declared in outer (a
// message's name, "" at the top) on line base.
func scopeOf(node *ast.FileNode, n ast.Node, outer string, base int) *scope {
	s := &scope{}
	switch n := n.(type) {
	case *ast.MessageNode:
		s.kind, s.name = Message, join(outer, n.Name.Val)
	case *ast.EnumNode:
		s.kind, s.name = Enum, join(outer, n.Name.Val)
	case *ast.ServiceNode:
		s.kind, s.name = Service, join(outer, n.Name.Val)
	}
	open, close, elems := bodyOf(n)
	s.open, s.close = node.NodeInfo(open).Start().Line-base, node.NodeInfo(close).Start().Line-base
	s.elems = s.elemsOf(node, elems, base)
	s.fields()
	return s
}

// fields sets a message's msg from its elements; the message is new, so
// its uses are resolved again.
func (s *scope) fields() {
	if s.kind != Message {
		return
	}
	s.msg = &message{name: s.name}
	for _, e := range s.elems {
		if e.leaf != nil {
			s.msg.fields = append(s.msg.fields, e.leaf.fields...)
		}
	}
}

// elemsOf reads elems, elements of s's body, its lines counted from base.
func (s *scope) elemsOf(node *ast.FileNode, elems []ast.Node, base int) []elem {
	out := make([]elem, 0, len(elems))
	for _, e := range elems {
		info := node.NodeInfo(e)
		x := elem{start: info.Start().Line - base, end: info.End().Line - base}
		if s.kind == Message {
			switch e := e.(type) {
			case *ast.MessageNode, *ast.EnumNode:
				x.sub = scopeOf(node, e, s.name, info.Start().Line)
			default:
				x.leaf = leafOf(s.name, e.(ast.MessageElement))
			}
		}
		out = append(out, x)
	}
	return out
}

// leafOf is what e, an element of the message full's body, adds (see
// message); nil for nothing.
func leafOf(full string, e ast.MessageElement) *leaf {
	x, m := &decl{}, &message{}
	if !x.fieldOf(m, full, e) {
		if ext, ok := e.(*ast.ExtendNode); ok {
			x.extend(full, ext)
		}
	}
	if len(m.fields) == 0 && len(x.msgs) == 0 && len(x.declared) == 0 {
		return nil
	}
	return &leaf{fields: m.fields, msgs: x.msgs, declared: x.declared}
}

// derive reads x's messages and names from its scope, in the order
// message meets them.
func (x *decl) derive() {
	x.msgs, x.declared = nil, nil
	x.walk(x.scope)
}

func (x *decl) walk(s *scope) {
	if s.kind != Message {
		x.declared = append(x.declared, symbol{s.name, s.kind})
		return
	}
	x.msgs = append(x.msgs, s.msg)
	x.declared = append(x.declared, symbol{s.name, Message})
	for _, e := range s.elems {
		switch {
		case e.sub != nil:
			x.walk(e.sub)
		case e.leaf != nil:
			x.msgs = append(x.msgs, e.leaf.msgs...)
			x.declared = append(x.declared, e.leaf.declared...)
		}
	}
}

// message records the message name declares in scope, its fields and
// what it nests, as the compiler lowers them: a group is a field and a
// message; a map field's entry message holds nothing a history records.
// A group's body is read so; a message's is read as a scope (see derive),
// in the same order.
func (x *decl) message(scope, name string, body []ast.MessageElement) {
	full := join(scope, name)
	m := &message{name: full}
	x.msgs = append(x.msgs, m)
	x.declared = append(x.declared, symbol{full, Message})
	for _, e := range body {
		if x.fieldOf(m, full, e) {
			continue
		}
		switch e := e.(type) {
		case *ast.MessageNode:
			x.message(full, e.Name.Val, e.Decls)
		case *ast.EnumNode:
			x.declared = append(x.declared, symbol{join(full, e.Name.Val), Enum})
		case *ast.ExtendNode:
			x.extend(full, e)
		}
	}
}

// fieldOf records e in m when it declares fields (a field, a map field, a
// group, a oneof's fields), and says whether it did.
func (x *decl) fieldOf(m *message, full string, e ast.MessageElement) bool {
	switch e := e.(type) {
	case *ast.FieldNode:
		m.add(e.Name, e.Tag, string(e.FldType.AsIdentifier()))
	case *ast.MapFieldNode:
		m.add(e.Name, e.Tag, string(e.MapType.ValueType.AsIdentifier()))
	case *ast.GroupNode:
		x.group(m, full, e)
	case *ast.OneofNode:
		for _, o := range e.Decls {
			switch o := o.(type) {
			case *ast.FieldNode:
				m.add(o.Name, o.Tag, string(o.FldType.AsIdentifier()))
			case *ast.GroupNode:
				x.group(m, full, o)
			}
		}
	default:
		return false
	}
	return true
}

// group records a group field of m (nil in an extend, whose fields are
// extensions) and the message it declares in scope.
func (x *decl) group(m *message, scope string, g *ast.GroupNode) {
	if m != nil && g.Tag != nil {
		m.fields = append(m.fields, field{name: strings.ToLower(g.Name.Val), number: int32(g.Tag.Val),
			typ: join(scope, g.Name.Val), group: true})
	}
	x.message(scope, g.Name.Val, g.Decls)
}

// extend records the messages an extend block's groups declare in scope;
// its fields are extensions, which no message lists.
func (x *decl) extend(scope string, e *ast.ExtendNode) {
	for _, d := range e.Decls {
		if g, ok := d.(*ast.GroupNode); ok {
			x.group(nil, scope, g)
		}
	}
}

func (m *message) add(name *ast.IdentNode, tag *ast.UintLiteralNode, typ string) {
	if tag != nil {
		m.fields = append(m.fields, field{name: name.Val, number: int32(tag.Val), typ: typ})
	}
}

func join(scope, name string) string {
	if scope == "" {
		return name
	}
	return scope + "." + name
}

// Uses lists every field of every message f declares, messages by full
// name and fields in the order written, with types resolved against f and
// the imports deps finds. false when a type does not resolve to a message
// or an enum (the version does not compile), or an import is not found.
func (f *File) Uses(deps Deps) ([]Use, bool) {
	r := f.res
	if r == nil || r.own != f.syms || f.resDeps != deps {
		nr, ok := f.resolver(deps)
		if !ok {
			return nil, false
		}
		// The same names searched in the same files resolve alike: the
		// resolver stays, and so do the uses it resolved.
		if r == nil || r.own != nr.own || !slices.Equal(r.files, nr.files) {
			r = nr
		}
		f.res, f.resDeps = r, deps
	}
	var per [][]Use
	for _, d := range f.decls {
		for _, m := range d.msgs {
			c := &m.resolved
			if c.by != r {
				c.by = r
				c.uses, c.ok = r.message(m)
			}
			if !c.ok {
				return nil, false
			}
			per = append(per, c.uses)
		}
	}
	slices.SortFunc(per, func(a, b []Use) int {
		if len(a) == 0 || len(b) == 0 {
			return cmp.Compare(len(a), len(b))
		}
		return strings.Compare(a[0].Message, b[0].Message)
	})
	var out []Use
	for _, us := range per {
		out = append(out, us...)
	}
	return out, true
}
