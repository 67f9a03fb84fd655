package fieldnums

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind is what a full name names, as far as resolving a type goes. Fields,
// enum values, methods and oneofs are left out: where the linker meets one
// it goes on to the next scope, as if nothing were there.
type Kind uint8

const (
	None Kind = iota
	Message
	Enum
	Service
	// Namespace is a package or a prefix of one.
	Namespace
	// missing is a qualified name whose first part was found but whose
	// whole is not: the linker stops there with an error.
	missing
)

func (k Kind) isType() bool { return k == Message || k == Enum }

func (k Kind) aggregate() bool { return k == Message || k == Enum || k == Service || k == Namespace }

// Symbols are the names one file declares, by full name, its package and
// its imports: what another file that imports it resolves against.
type Symbols struct {
	Package string
	Imports []Import
	kinds   map[string]Kind
}

// Deps finds the symbols of an import by its path. A File keeps what it
// resolved with a Deps, which it compares with ==: a pointer, say.
type Deps interface {
	Lookup(path string) (*Symbols, error)
}

// Symbols are the names f declares.
func (f *File) Symbols() *Symbols { return f.syms }

func (f *File) symbols() *Symbols {
	s := &Symbols{Package: f.Package, Imports: f.Imports, kinds: map[string]Kind{}}
	for _, d := range f.decls {
		for _, x := range d.declared {
			s.kinds[join(f.Package, x.name)] = x.kind
		}
	}
	return s
}

// FromDescriptor are the names a compiled file declares: the standard
// imports (google/protobuf/*.proto) the compiler provides itself.
func FromDescriptor(fd protoreflect.FileDescriptor) *Symbols {
	s := &Symbols{Package: string(fd.Package()), kinds: map[string]Kind{}}
	for i := 0; i < fd.Imports().Len(); i++ {
		imp := fd.Imports().Get(i)
		s.Imports = append(s.Imports, Import{Path: imp.Path(), Public: imp.IsPublic})
	}
	var messages func(ms protoreflect.MessageDescriptors)
	enums := func(es protoreflect.EnumDescriptors) {
		for i := 0; i < es.Len(); i++ {
			s.kinds[string(es.Get(i).FullName())] = Enum
		}
	}
	messages = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			s.kinds[string(m.FullName())] = Message
			messages(m.Messages())
			enums(m.Enums())
		}
	}
	messages(fd.Messages())
	enums(fd.Enums())
	for i := 0; i < fd.Services().Len(); i++ {
		s.kinds[string(fd.Services().Get(i).FullName())] = Service
	}
	return s
}

// find is what name names in s: one of its declarations, else a package
// namespace, else nothing.
func (s *Symbols) find(name string) Kind {
	if k, ok := s.kinds[name]; ok {
		return k
	}
	if p := s.Package; p != "" && (p == name || strings.HasPrefix(p, name) && p[len(name)] == '.') {
		return Namespace
	}
	return None
}

// resolver resolves the type names of one version of a file: the file
// itself, then its imports and, through them, their public imports, in the
// order the linker searches them.
type resolver struct {
	own   *Symbols
	files []*Symbols
}

func (f *File) resolver(deps Deps) (*resolver, bool) {
	r := &resolver{own: f.syms, files: []*Symbols{f.syms}}
	// The search: the file's imports, each followed by the public
	// imports it passes on.
	chain := map[*Symbols]bool{} // a cycle of imports is searched once
	var public func(s *Symbols)
	public = func(s *Symbols) {
		if chain[s] {
			return
		}
		chain[s] = true
		r.files = append(r.files, s)
		for _, imp := range s.Imports {
			if d, err := deps.Lookup(imp.Path); err == nil && imp.Public {
				public(d)
			}
		}
		delete(chain, s)
	}
	// Every file imported, however deep, must be there, or the compiler
	// refuses the version.
	seen := map[string]bool{}
	var all func(s *Symbols) bool
	all = func(s *Symbols) bool {
		for _, imp := range s.Imports {
			if seen[imp.Path] {
				continue
			}
			seen[imp.Path] = true
			d, err := deps.Lookup(imp.Path)
			if err != nil || !all(d) {
				return false
			}
		}
		return true
	}
	if !all(f.syms) {
		return nil, false
	}
	for _, imp := range f.syms.Imports {
		d, _ := deps.Lookup(imp.Path)
		public(d)
	}
	return r, true
}

// element is what a full name names in any file searched.
func (r *resolver) element(name string) Kind {
	for _, s := range r.files {
		if k := s.find(name); k != None {
			return k
		}
	}
	return None
}

// message resolves the types of m's fields.
func (r *resolver) message(m *message) ([]Use, bool) {
	pkg := r.own.Package
	out := make([]Use, 0, len(m.fields))
	for _, f := range m.fields {
		typ := f.typ
		switch {
		case f.group:
			typ = join(pkg, typ)
		case scalars[typ]:
		default:
			t, ok := r.resolve(typ, m.name)
			if !ok {
				return nil, false
			}
			typ = t
		}
		out = append(out, Use{Message: join(pkg, m.name), Number: f.number, Name: f.name, Type: typ})
	}
	return out, true
}

// resolve finds the message or enum name names, written in the message
// scope (relative to the package), as protocompile's linker does: the
// innermost scope first, the message scopes searching the file alone, the
// file scope every file from the package outwards. A name found that is
// not a type is passed over only while it is a single word.
func (r *resolver) resolve(name, scope string) (string, bool) {
	if full, ok := strings.CutPrefix(name, "."); ok {
		return full, r.element(full).isType()
	}
	first, _, _ := strings.Cut(name, ".")
	simple := first == name
	pkg := r.own.Package
	for s := scope; s != ""; s = parentScope(s) {
		prefix := join(pkg, s)
		full, k := relative(prefix+"."+first, prefix+"."+name, r.own.find)
		if k == None {
			continue
		}
		if k.isType() || !simple {
			return full, k.isType()
		}
	}
	for _, prefix := range prefixes(pkg) {
		at := join(prefix, first)
		if prefix == "" {
			at = name // at the root the linker looks up the whole name
		}
		full, k := relative(at, join(prefix, name), r.element)
		if k != None {
			return full, k.isType()
		}
	}
	return "", false
}

// relative looks up first, the first part of a name, and then the whole
// of it if first is something that holds names.
func relative(first, whole string, find func(string) Kind) (string, Kind) {
	k := find(first)
	if k == None || first == whole {
		return first, k
	}
	if !k.aggregate() {
		return "", None
	}
	if k := find(whole); k != None {
		return whole, k
	}
	return whole, missing
}

func parentScope(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[:i]
	}
	return ""
}

// prefixes are pkg and each shorter package above it, then the root ("").
func prefixes(pkg string) []string {
	var out []string
	for p := pkg; p != ""; p = parentScope(p) {
		out = append(out, p)
	}
	return append(out, "")
}

var scalars = map[string]bool{
	"double": true, "float": true, "int32": true, "int64": true, "uint32": true, "uint64": true,
	"sint32": true, "sint64": true, "fixed32": true, "fixed64": true, "sfixed32": true, "sfixed64": true,
	"bool": true, "string": true, "bytes": true,
}
