package openapi

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Split specs (Redocly's, Speakeasy's and Stoplight's layouts) write an
// operation as a $ref to its own file: `get: {$ref: ops/list.yaml}`. OpenAPI
// allows no $ref there and kin-openapi reads such an operation as empty, so
// every change inside it would pass in silence. They are read the way
// bundlers (redocly bundle, swagger-cli bundle) read them: the file's
// operation takes the $ref's place, with every $ref inside it resolved
// against that file, and places in it pointing into it.
//
// kin-openapi resolves a path item written as a $ref, with places kept, so
// an operation file is loaded as one: the file is served, under the name
// below, as the path item `get: <the file>`, its lines moved one down and one
// right (Loc moves them back).

// opQuery marks the name an operation file is served under as a path item.
const opQuery = "contractlint-operation"

// maxOpChain bounds operations whose file is itself a $ref to another.
const maxOpChain = 8

// asPathItem is b, an operation, written as a path item holding it as get:
// every line indented by one, below a new first line. A document marker or
// directive would end the mapping, so it becomes a comment.
func asPathItem(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/32+8)
	out = append(out, "get:\n"...)
	for line := range strings.Lines(string(b)) {
		if marker(line) {
			out = append(out, '#')
		} else {
			out = append(out, ' ')
		}
		out = append(out, line...)
	}
	return out
}

func marker(line string) bool {
	return strings.HasPrefix(line, "%") || strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...")
}

// servedName splits a name kin-openapi records for a place into the file and
// whether it was served as an operation's path item.
func servedName(file string) (string, bool) {
	name, q, _ := strings.Cut(file, "?")
	return name, q == opQuery
}

// joinRef resolves a $ref against the file that holds it, as kin-openapi's
// default does, but with the operation marker kept only on the $ref that
// carries it: a file an operation file $refs is read as itself. Any other
// query is, as before, no part of the name.
func joinRef(base, rel *url.URL) *url.URL {
	if base == nil {
		return rel
	}
	out := *base
	out.Path = path.Join(path.Dir(base.Path), rel.Path)
	out.RawQuery = ""
	if rel.RawQuery == opQuery {
		out.RawQuery = opQuery
	}
	return &out
}

// opRef is an operation written as a $ref, where it stands.
type opRef struct {
	item   *openapi3.PathItem
	method string
	op     *openapi3.Operation
	where  string // "GET /users", for messages
}

// resolveOperations replaces each operation written as a $ref by the
// operation its file holds, and returns the note, once, that the document
// does so (nil when none is).
func (d *Doc) resolveOperations(l *openapi3.Loader) (*rules.Invalid, error) {
	var first *opRef
	for round := 0; ; round++ {
		todo := d.opRefs()
		if len(todo) == 0 {
			break
		}
		if first == nil {
			first = &todo[0]
		}
		if round == maxOpChain {
			return nil, d.opError(todo[0], "the $ref leads through more than %d operation files written as $refs", maxOpChain)
		}
		for _, r := range todo {
			if err := d.resolveOperation(l, r); err != nil {
				return nil, err
			}
		}
	}
	if first == nil {
		return nil, nil
	}
	return &rules.Invalid{Loc: d.KeyLoc(first.op.Origin),
		Msg: "an operation is written as a $ref, which OpenAPI does not allow: it is read, with every operation written so, as bundlers (redocly bundle, swagger-cli bundle) read them"}, nil
}

// opRefs lists the operations written as $refs: in paths, webhooks and the
// callbacks of every operation, in a stable order.
func (d *Doc) opRefs() []opRef {
	var out []opRef
	var visit func(prefix string, items map[string]*openapi3.PathItem, depth int)
	visit = func(prefix string, items map[string]*openapi3.PathItem, depth int) {
		if depth > maxOpChain {
			return
		}
		for _, p := range slices.Sorted(maps.Keys(items)) {
			item := items[p]
			if item == nil {
				continue
			}
			ops := item.Operations()
			for _, m := range slices.Sorted(maps.Keys(ops)) {
				op := ops[m]
				where := strings.TrimSpace(prefix + " " + m + " " + p)
				if _, ok := op.Extensions["$ref"].(string); ok {
					out = append(out, opRef{item: item, method: m, op: op, where: where})
					continue
				}
				for _, cb := range op.Callbacks {
					if cb != nil && cb.Value != nil {
						visit(where+" callback", cb.Value.Map(), depth+1)
					}
				}
			}
		}
	}
	if d.T.Paths != nil {
		visit("", d.T.Paths.Map(), 0)
	}
	visit("webhook", d.T.Webhooks, 0)
	return out
}

// resolveOperation loads r's file as a path item through l, the loader that
// read the document (so each file is read through the same guards), and puts
// its operation in r's place. A summary or description written beside the
// $ref is kept, as a Reference Object's are.
func (d *Doc) resolveOperation(l *openapi3.Loader, r opRef) error {
	ref := r.op.Extensions["$ref"].(string)
	u, err := url.Parse(ref)
	if err != nil {
		return d.opError(r, "$ref %q is not a URI reference", ref)
	}
	base := d.opBase(r)
	method := "GET"
	target := u.Path + "?" + opQuery
	if u.Fragment != "" {
		// A pointer to an operation of a path item (`paths.yaml#/~1users/get`):
		// the path item is loaded, and its operation taken.
		parent, last, _ := cutLast(u.Fragment)
		if !httpMethods[last] {
			return d.opError(r, "$ref %q names no operation of a path item (write the file of one operation, or FILE#/PATH/METHOD); bundle the document first (redocly bundle) to compare it", ref)
		}
		file := u.Path
		if file == "" {
			file = path.Base(base)
		}
		target, method = file+"#"+parent, strings.ToUpper(last)
	}
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		// Refused by the reader too; said here at the operation's place.
		return d.opError(r, "$ref to %q refused: contractlint never fetches remote or file: URLs", ref)
	}
	item := &openapi3.PathItem{Ref: target}
	// The root's components go along: kin-openapi resolves a discriminator's
	// mapping (`#/components/schemas/Bank`) in a root schema an operation
	// file reaches (`../openapi.yaml#/components/schemas/Payment`) against
	// the document being resolved, which is this one.
	doc := &openapi3.T{OpenAPI: d.T.OpenAPI, Info: d.T.Info, Components: d.T.Components,
		Paths: openapi3.NewPaths(openapi3.WithPath("/", item))}
	if err := l.ResolveRefsIn(doc, &url.URL{Path: base}); err != nil {
		return err
	}
	got := item.GetOperation(method)
	if got == nil {
		return d.opError(r, "$ref %q holds no operation", ref)
	}
	op := *got
	op.Summary = cmp.Or(r.op.Summary, op.Summary)
	op.Description = cmp.Or(r.op.Description, op.Description)
	r.item.SetOperation(r.method, &op)
	return nil
}

var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true,
	"options": true, "head": true, "patch": true, "trace": true, "query": true}

// cutLast splits a JSON pointer at its last token, unescaped.
func cutLast(ptr string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", "", false
	}
	last = unescape(ptr[i+1:])
	return ptr[:i], last, true
}

// opBase is the file r's $ref is written in: where kin-openapi placed the
// operation, or, for a document read without places (JSON with a duplicate
// key), the file of its path item.
func (d *Doc) opBase(r opRef) string {
	if o := r.op.Origin; o != nil && o.Key != nil && o.Key.File != "" {
		name, _ := servedName(o.Key.File)
		if u, err := url.PathUnescape(name); err == nil {
			return u
		}
		return name
	}
	if r.item.Ref != "" {
		file, _, _ := strings.Cut(r.item.Ref, "#")
		file, _, _ = strings.Cut(file, "?")
		if file != "" {
			return path.Join(path.Dir(d.name), file)
		}
	}
	return d.name
}

// opError is an input error at r's place.
func (d *Doc) opError(r opRef, format string, args ...any) error {
	loc := d.KeyLoc(r.op.Origin)
	return source.Errorf(loc.File, loc.Line, loc.Column, "%s: %s", r.where, fmt.Sprintf(format, args...))
}
