package openapi

import (
	"cmp"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/places"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// The idempotency rules judge an operation by the API's key convention,
// which counts every operation of the contract, the ones a subset load
// leaves out too. The operation index reads, from the texts the planner
// already holds, what the convention needs of each operation, resolving
// $refs as the loader does, so that a subset load can count the operations
// it left out instead of loading the whole document again.

// IndexedOp is one operation of a document, as the key convention reads
// it: where its method's key is, whether it says it is idempotent, and the
// name of the Idempotency-Key header it takes ("" when none).
type IndexedOp struct {
	Method, Path string
	File         string
	Line, Column int
	Idempotent   bool
	Key          string
}

// fixedMethods are the path item keys kin-openapi reads as operations.
var fixedMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace", "connect", "query"}

// IndexOperations lists every operation of the document root, reading it
// and the files it $refs with read (names as the loader resolves them,
// against the folder of the file that holds the $ref); ok is false when a
// file does not read or parse, or the document is written in a way the
// index is not sure it reads as the loader does (an operation written as a
// $ref, additionalOperations, an alias, a $ref it cannot follow).
func IndexOperations(root string, read func(name string) ([]byte, bool)) ([]IndexedOp, bool) {
	if ops, ok := indexOperations(root, read, true); ok {
		return ops, true
	}
	// What the root's paths and components alone do not answer (a $ref
	// into another of its entries, or an index that declines) is asked
	// of the whole root.
	return indexOperations(root, read, false)
}

// indexOperations is IndexOperations, with the root read through
// indexRoot when lazy is set.
func indexOperations(root string, read func(name string) ([]byte, bool), lazy bool) ([]IndexedOp, bool) {
	x := &indexer{read: read, docs: map[string]*yaml.Node{}}
	if lazy {
		b, ok := read(root)
		if !ok {
			return nil, false
		}
		if x.docs[root], ok = indexRoot(b); !ok {
			return nil, false
		}
	}
	doc, ok := x.doc(root)
	if !ok || doc.Kind != yaml.MappingNode {
		return nil, false
	}
	paths := Lookup(doc, "paths")
	if paths == nil {
		return nil, true
	}
	if paths.Kind != yaml.MappingNode {
		return nil, false
	}
	var out []IndexedOp
	for i := 0; i+1 < len(paths.Content); i += 2 {
		ops, ok := x.pathItem(root, paths.Content[i].Value, paths.Content[i+1])
		if !ok {
			return nil, false
		}
		out = append(out, ops...)
	}
	return out, true
}

// indexer reads the files of one document, each parsed once.
type indexer struct {
	read func(string) ([]byte, bool)
	docs map[string]*yaml.Node
}

// doc is the top node of the file name.
func (x *indexer) doc(name string) (*yaml.Node, bool) {
	if d, ok := x.docs[name]; ok {
		return d, d != nil
	}
	x.docs[name] = nil
	b, ok := x.read(name)
	if !ok {
		return nil, false
	}
	var n yaml.Node
	if yaml.Unmarshal(b, &n) != nil || n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, false
	}
	x.docs[name] = n.Content[0]
	return n.Content[0], true
}

// indexRoot is the root's top node as the index reads it: its paths and
// its components but the schemas (no operation's place or key is read
// there), each entry parsed alone through places.Lazy, at its lines in
// the root. The index is asked only of a planned pair, whose plan has
// parsed every entry of this outline and found it the parser's. The
// root's other entries are not read: a $ref into one finds nothing, and
// the index declines. ok is false where the outline or a parse fails.
func indexRoot(b []byte) (*yaml.Node, bool) {
	l := places.NewLazy(b)
	tops, ok := l.Outline(nil)
	if !ok {
		return nil, false
	}
	// add appends the entry sp, parsed at its lines, to the mapping m.
	add := func(m *yaml.Node, sp places.Span) bool {
		v, err := places.ReadEntry(l.Text(sp), sp.Key)
		if err != nil {
			return false
		}
		shiftLines(v, sp.From)
		m.Content = append(m.Content, keyNode(sp.Key), v)
		return true
	}
	root := &yaml.Node{Kind: yaml.MappingNode}
	for _, t := range tops {
		switch t.Key {
		case "paths":
			if !add(root, t) {
				return nil, false
			}
		case "components":
			kinds, ok := l.Outline([]string{"components"})
			if !ok {
				return nil, false
			}
			c := &yaml.Node{Kind: yaml.MappingNode}
			for _, k := range kinds {
				if k.Key != "schemas" && !add(c, k) {
					return nil, false
				}
			}
			root.Content = append(root.Content, keyNode("components"), c)
		}
	}
	return root, true
}

// keyNode is a mapping's key node for key.
func keyNode(key string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
}

// shiftLines moves the places of n and all under it by lines.
func shiftLines(n *yaml.Node, lines int) {
	n.Line += lines
	for _, c := range n.Content {
		shiftLines(c, lines)
	}
}

// maxRefs bounds a chain of $refs to $refs (a cycle the loader refuses).
const maxRefs = 32

// resolve follows n, written in file, through its $refs: the node they end
// at and the file that holds it. Keys beside a $ref are not read, as the
// loader reads a parameter's; a path item's are refused by the caller.
func (x *indexer) resolve(file string, n *yaml.Node) (string, *yaml.Node, bool) {
	for range maxRefs {
		if n.Kind == yaml.AliasNode {
			return "", nil, false
		}
		ref := Lookup(n, "$ref")
		if n.Kind != yaml.MappingNode || ref == nil {
			return file, n, true
		}
		if ref.Kind != yaml.ScalarNode {
			return "", nil, false
		}
		u, err := url.Parse(ref.Value)
		if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || strings.HasPrefix(u.Path, "/") {
			return "", nil, false
		}
		if u.Path != "" {
			if file, err = source.Clean(path.Join(path.Dir(file), u.Path)); err != nil {
				return "", nil, false
			}
		}
		d, ok := x.doc(file)
		if !ok {
			return "", nil, false
		}
		if n, ok = pointer(d, u.Fragment); !ok {
			return "", nil, false
		}
	}
	return "", nil, false
}

// pointer is the node the JSON pointer p names in d ("" is d itself).
func pointer(d *yaml.Node, p string) (*yaml.Node, bool) {
	if p == "" {
		return d, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	n := d
	for tok := range strings.SplitSeq(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.Kind {
		case yaml.MappingNode:
			n = Lookup(n, tok)
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, false
			}
			n = n.Content[i]
		default:
			return nil, false
		}
		if n == nil || n.Kind == yaml.AliasNode {
			return nil, false
		}
	}
	return n, true
}

// Lookup is the value of key in the mapping node n; nil when n is not a
// mapping or lacks the key.
func Lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// pathItem lists the operations of the paths entry p, written in file.
func (x *indexer) pathItem(file, p string, n *yaml.Node) ([]IndexedOp, bool) {
	if Lookup(n, "$ref") != nil && len(n.Content) > 2 {
		return nil, false
	}
	file, item, ok := x.resolve(file, n)
	if !ok || item.Kind != yaml.MappingNode || Lookup(item, "additionalOperations") != nil || Lookup(item, "<<") != nil {
		return nil, false
	}
	shared, ok := x.headerKey(file, Lookup(item, "parameters"))
	if !ok {
		return nil, false
	}
	var out []IndexedOp
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		if !slices.Contains(fixedMethods, k.Value) {
			continue
		}
		if v.Kind != yaml.MappingNode || Lookup(v, "$ref") != nil || Lookup(v, "<<") != nil {
			return nil, false
		}
		key, ok := x.headerKey(file, Lookup(v, "parameters"))
		if !ok {
			return nil, false
		}
		var idem any
		if n := Lookup(v, "x-idempotent"); n != nil && n.Decode(&idem) != nil {
			return nil, false
		}
		op := IndexedOp{Method: strings.ToUpper(k.Value), Path: p, File: file, Line: k.Line, Column: k.Column,
			Idempotent: truthy(idem), Key: cmp.Or(key, shared)}
		out = append(out, op)
	}
	return out, true
}

// headerKey is the name of the Idempotency-Key header (matched in any
// case) among the parameters list, written in file; "" when none. Of two,
// the later wins, as the loader's later parameter does.
func (x *indexer) headerKey(file string, list *yaml.Node) (string, bool) {
	if list == nil {
		return "", true
	}
	if list.Kind != yaml.SequenceNode {
		return "", false
	}
	key := ""
	for _, n := range list.Content {
		_, p, ok := x.resolve(file, n)
		if !ok || p.Kind != yaml.MappingNode {
			return "", false
		}
		in, name := Lookup(p, "in"), Lookup(p, "name")
		if in == nil || name == nil || in.Kind != yaml.ScalarNode || name.Kind != yaml.ScalarNode {
			return "", false
		}
		if in.Value == openapi3.ParameterInHeader && strings.EqualFold(name.Value, "Idempotency-Key") {
			key = name.Value
		}
	}
	return key, true
}

// Convention is every operation of the whole document c was lowered from
// (Contract.Convention): c's own, and those of ops, the document's index,
// that a subset load left out, with what the key convention reads of them,
// in the order of their places, as the whole load's lowering orders them.
func (d *Doc) Convention(c *rules.Contract, ops []IndexedOp) []*rules.Operation {
	loaded := map[string]bool{}
	for _, op := range c.Operations {
		loaded[op.ID] = true
	}
	out := slices.Clone(c.Operations)
	for _, x := range ops {
		id := x.Method + " " + x.Path
		if loaded[id] {
			continue
		}
		o := &rules.Operation{
			ID:         id,
			Method:     x.Method,
			Path:       "#/paths/" + escape(x.Path) + "/" + strings.ToLower(x.Method),
			Loc:        d.place(x.File, x.Line, x.Column),
			Idempotent: slices.Contains(idempotentMethods, x.Method) || x.Idempotent,
		}
		if x.Key != "" {
			o.Key = &rules.Param{Name: x.Key, In: openapi3.ParameterInHeader}
		} else if !o.Idempotent {
			o.Key = c.Key
		}
		out = append(out, o)
	}
	slices.SortStableFunc(out, func(a, b *rules.Operation) int { return cmpLoc(a.Loc, b.Loc) })
	return out
}
