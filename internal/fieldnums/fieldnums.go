// Package fieldnums reads the field numbers a .proto file declares, each
// with its field's name and type, from protocompile's syntax tree alone:
// no linking, no options, no descriptors. A type is resolved as the linker
// resolves it, against the file's own declarations and the symbols of its
// imports. The next version of a file is read by parsing only the
// top-level declarations a change touched (see Next), so a history of
// hundreds of versions of a large file costs about one parse of it.
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
	// safe[l] is set when line l (1-based) starts outside every token,
	// comment and top-level declaration: the text above it and the text
	// below it parse apart. safe has a slot per line and one past the end.
	safe []bool
	syms *Symbols
}

// decl is one top-level declaration: the lines it spans, whether it is
// part of the header (syntax, edition, package, import), the names it
// declares and its messages with their fields.
type decl struct {
	start, end int
	header     bool
	declared   []symbol
	msgs       []*message
	// resolved caches the uses of msgs for the symbols and imports they
	// were resolved against: a declaration a change left alone keeps them.
	resolved struct {
		syms *Symbols
		deps Deps
		uses [][]Use
		ok   bool
	}
}

type symbol struct {
	name string // relative to the package
	kind Kind
}

type message struct {
	name   string // relative to the package
	fields []field
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
	f := &File{safe: safeLines(node, lineCount(text))}
	f.decls = declsOf(node, f)
	f.syms = f.symbols()
	return f, nil
}

func lineCount(text []byte) int { return bytes.Count(text, []byte{'\n'}) + 1 }

// safeLines marks the lines that start outside every top-level
// declaration and every comment: a cut there leaves both sides whole.
func safeLines(node *ast.FileNode, lines int) []bool {
	safe := make([]bool, lines+2)
	for i := range safe {
		safe[i] = true
	}
	span := func(s, e int) {
		for l := s + 1; l <= e && l < len(safe); l++ {
			safe[l] = false
		}
	}
	for _, d := range node.Decls {
		info := node.NodeInfo(d)
		span(info.Start().Line, info.End().Line)
	}
	items := node.Items()
	for it, ok := items.First(); ok; it, ok = items.Next(it) {
		if _, c := node.GetItem(it); c.IsValid() {
			span(c.Start().Line, c.End().Line)
		}
	}
	return safe
}

// declsOf reads node's top-level declarations, setting f's package and
// imports from its header.
func declsOf(node *ast.FileNode, f *File) []*decl {
	out := make([]*decl, 0, len(node.Decls)+1)
	header := func(n ast.Node) {
		info := node.NodeInfo(n)
		out = append(out, &decl{start: info.Start().Line, end: info.End().Line, header: true})
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
		case *ast.MessageNode:
			x.message("", d.Name.Val, d.Decls)
		case *ast.EnumNode:
			x.declared = append(x.declared, symbol{d.Name.Val, Enum})
		case *ast.ServiceNode:
			x.declared = append(x.declared, symbol{d.Name.Val, Service})
		case *ast.ExtendNode:
			x.extend("", d)
		}
		out = append(out, x)
	}
	return out
}

// message records the message name declares in scope, its fields and
// what it nests, as the compiler lowers them: a group is a field and a
// message; a map field's entry message holds nothing a history records.
func (x *decl) message(scope, name string, body []ast.MessageElement) {
	full := join(scope, name)
	m := &message{name: full}
	x.msgs = append(x.msgs, m)
	x.declared = append(x.declared, symbol{full, Message})
	for _, e := range body {
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
		case *ast.MessageNode:
			x.message(full, e.Name.Val, e.Decls)
		case *ast.EnumNode:
			x.declared = append(x.declared, symbol{join(full, e.Name.Val), Enum})
		case *ast.ExtendNode:
			x.extend(full, e)
		}
	}
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
	r, ok := f.resolver(deps)
	if !ok {
		return nil, false
	}
	var per [][]Use
	for _, d := range f.decls {
		c := &d.resolved
		if c.syms != f.syms || c.deps != deps {
			c.syms, c.deps, c.uses, c.ok = f.syms, deps, nil, true
			for _, m := range d.msgs {
				us, ok := r.message(m)
				c.ok = c.ok && ok
				c.uses = append(c.uses, us)
			}
		}
		if !c.ok {
			return nil, false
		}
		per = append(per, c.uses...)
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
