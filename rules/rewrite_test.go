package rules_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/ruletest"
	"github.com/contractlint/contractlint/rules"
)

// A generated schema: an object whose properties are scalars, enums, arrays
// or objects again. It is written out in several equivalent forms (form).
type gen struct {
	kind     string // string, integer, boolean, enum, array, object
	enum     []string
	items    *gen
	props    []gprop
	nullable bool
}

type gprop struct {
	name string
	s    *gen
	req  bool
}

func genObject(r *rand.Rand, depth int) *gen {
	g := &gen{kind: "object"}
	n := 1 + r.IntN(4)
	for i := range n {
		g.props = append(g.props, gprop{name: fmt.Sprintf("p%d_%d", depth, i), s: genValue(r, depth+1), req: r.IntN(2) == 0})
	}
	return g
}

func genValue(r *rand.Rand, depth int) *gen {
	kinds := []string{"string", "integer", "boolean", "enum"}
	if depth < 3 {
		kinds = append(kinds, "array", "object")
	}
	var g *gen
	switch k := kinds[r.IntN(len(kinds))]; k {
	case "object":
		g = genObject(r, depth)
	case "array":
		g = &gen{kind: "array", items: genValue(r, depth+1)}
	case "enum":
		g = &gen{kind: "enum", enum: []string{"a", "b", "c"}[:1+r.IntN(3)]}
	default:
		g = &gen{kind: k}
	}
	// An enum admits null only when it lists null, however nullable is
	// spelled: enums stay non-null here.
	g.nullable = g.kind != "object" && g.kind != "enum" && r.IntN(4) == 0
	return g
}

// form is one way of writing the same schema.
type form struct {
	version     string // "3.0.3" or "3.1.0"
	splitAllOf  bool   // objects as allOf of two halves
	extract     bool   // nested objects as components behind $ref
	enumAsOneOf bool   // enums as oneOf of consts (3.1)
	shuffle     *rand.Rand
}

// writer renders schemas in one form, collecting the components it extracts.
type writer struct {
	f          form
	components map[string]any
	next       int
}

func (w *writer) schema(g *gen, top bool) any {
	var out map[string]any
	switch g.kind {
	case "object":
		out = w.object(g.props)
		if w.f.splitAllOf && len(g.props) > 1 {
			half := len(g.props) / 2
			out = map[string]any{"allOf": []any{w.object(g.props[:half]), w.object(g.props[half:])}}
		}
		if w.f.extract && !top {
			w.next++
			name := fmt.Sprintf("S%d", w.next)
			w.components[name] = out
			return map[string]any{"$ref": "#/components/schemas/" + name}
		}
		return out
	case "array":
		out = map[string]any{"type": "array", "items": w.schema(g.items, false)}
	case "enum":
		vals := w.order(g.enum)
		if w.f.enumAsOneOf {
			var alts []any
			for _, v := range vals {
				alts = append(alts, map[string]any{"const": v})
			}
			out = map[string]any{"oneOf": alts}
		} else {
			out = map[string]any{"type": "string", "enum": vals}
		}
	default:
		out = map[string]any{"type": g.kind}
	}
	if g.nullable {
		w.null(out)
	}
	return out
}

// null makes a rendered schema admit null in the form's own spelling.
func (w *writer) null(out map[string]any) {
	switch {
	case w.f.version == "3.0.3":
		out["nullable"] = true
	case out["oneOf"] != nil:
		out["oneOf"] = append(out["oneOf"].([]any), map[string]any{"type": "null"})
	default:
		out["type"] = []any{out["type"], "null"}
	}
}

func (w *writer) object(props []gprop) map[string]any {
	ps := map[string]any{}
	var req []string
	for _, p := range props {
		ps[p.name] = w.schema(p.s, false)
		if p.req {
			req = append(req, p.name)
		}
	}
	out := map[string]any{"type": "object", "properties": ps}
	if len(req) > 0 {
		out["required"] = w.order(req)
	}
	return out
}

func (w *writer) order(vs []string) []string {
	out := slices.Clone(vs)
	if w.f.shuffle != nil {
		w.f.shuffle.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// document writes a contract sending req in POST /things and returning
// resp from GET /things, in form f.
func document(f form, req, resp *gen) []byte {
	w := &writer{f: f, components: map[string]any{}}
	content := func(g *gen) any {
		return map[string]any{"application/json": map[string]any{"schema": w.schema(g, true)}}
	}
	doc := map[string]any{
		"openapi": f.version,
		"info":    map[string]any{"title": "things", "version": "1"},
		"paths": map[string]any{"/things": map[string]any{
			"post": map[string]any{"requestBody": map[string]any{"content": content(req)},
				"responses": map[string]any{"204": map[string]any{"description": "ok"}}},
			"get": map[string]any{"responses": map[string]any{"200": map[string]any{"description": "ok", "content": content(resp)}}},
		}},
	}
	if len(w.components) > 0 {
		doc["components"] = map[string]any{"schemas": w.components}
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		panic(err)
	}
	return b
}

// randomForm picks a way of writing; enums as consts need 3.1.
func randomForm(r *rand.Rand) form {
	f := form{version: []string{"3.0.3", "3.1.0"}[r.IntN(2)], splitAllOf: r.IntN(2) == 0, extract: r.IntN(2) == 0,
		shuffle: rand.New(rand.NewPCG(r.Uint64(), 1))}
	f.enumAsOneOf = f.version == "3.1.0" && r.IntN(2) == 0
	return f
}

// breaking lists the rules that judge OpenAPI diffs for breaks.
func breaking(reg *rules.Registry) []string {
	var ids []string
	for _, r := range reg.All() {
		if r.Pack == rules.Breaking && r.Formats&rules.OpenAPI != 0 {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func diffFindings(t *testing.T, reg *rules.Registry, ids []string, old, new []byte) []rules.Finding {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.yaml"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.yaml"), new, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := ruletest.Run(reg, dir, ids)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestRewritesKeepCompat writes one generated contract in two equivalent
// forms (allOf split or merged, objects behind $ref or inline, enums as
// enum or as oneOf of consts, nullable or type [x, "null"], lists
// reordered) and requires no breaking finding: compatibility is decided by
// what a schema accepts, not how it is written.
func TestRewritesKeepCompat(t *testing.T) {
	reg := rules.Default()
	ids := breaking(reg)
	// 3.0 on one side and 3.1 on the other is nullable against type [x, "null"].
	generated(45, 100, func(i int, _ *rand.Rand, req, resp *gen, of, nf form) {
		old, new := document(of, req, resp), document(nf, req, resp)
		if fs := diffFindings(t, reg, ids, old, new); len(fs) > 0 {
			t.Errorf("case %d: a rewrite gave %d findings, first %s: %s\nold:\n%s\nnew:\n%s", i, len(fs), fs[0].Rule, fs[0].Message, old, new)
		}
	})
}

// generated calls f n times, from a fixed seed, with a request and a
// response schema and a form for each side.
func generated(seed uint64, n int, f func(i int, r *rand.Rand, req, resp *gen, of, nf form)) {
	r := rand.New(rand.NewPCG(seed, seed))
	for i := range n {
		req, resp := genObject(r, 0), genObject(r, 0)
		f(i, r, req, resp, randomForm(r), randomForm(r))
	}
}

// TestNarrowingFound makes one break in a generated contract written in a
// different form on each side (a request property made required or an
// enum value removed from it; a response property made optional or
// nullable) and requires an error on that property.
func TestNarrowingFound(t *testing.T) {
	reg := rules.Default()
	ids := breaking(reg)
	generated(46, 40, func(i int, r *rand.Rand, req, resp *gen, of, nf form) {
		old := document(of, req, resp)
		inRequest := r.IntN(2) == 0
		target := resp
		if inRequest {
			target = req
		}
		name := mutate(r, target, inRequest)
		new := document(nf, req, resp)
		fs := diffFindings(t, reg, ids, old, new)
		if !slices.ContainsFunc(fs, func(f rules.Finding) bool {
			return f.Severity == rules.Error && strings.Contains(f.Path+" "+f.Message, name)
		}) {
			t.Errorf("case %d: breaking %s (request %v) gave no error about it: %v\nold:\n%s\nnew:\n%s", i, name, inRequest, fs, old, new)
		}
	})
}

// mutate makes one breaking edit to a top-level property of g and names it:
// in a request an optional property made required or an enum value
// removed; in a response a required property made optional or a value
// made nullable. When no property allows either, a required property is
// added to the request, or a property removed from the response.
func mutate(r *rand.Rand, g *gen, inRequest bool) string {
	order := r.Perm(len(g.props))
	for _, i := range order {
		p := &g.props[i]
		switch {
		case inRequest && !p.req:
			p.req = true
			return p.name
		case inRequest && p.s.kind == "enum" && len(p.s.enum) > 1:
			p.s.enum = p.s.enum[:len(p.s.enum)-1]
			return p.name
		case !inRequest && p.req:
			p.req = false
			return p.name
		case !inRequest && p.s.kind != "enum" && p.s.kind != "object" && !p.s.nullable:
			p.s.nullable = true
			return p.name
		}
	}
	if inRequest {
		g.props = append(g.props, gprop{name: "added", s: &gen{kind: "string"}, req: true})
		return "added"
	}
	name := g.props[order[0]].name
	g.props = slices.Delete(g.props, order[0], order[0]+1)
	return name
}
