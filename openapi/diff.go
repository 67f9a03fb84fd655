package openapi

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// differ computes the typed diff once. Schema pairs are compared once each
// (memo), and every change remembers the operations and directions that reach
// it, so a change in a shared component is one change, not one per operation.
type differ struct {
	old, new *Doc
	changes  []rules.Change
	reached  []map[string]rules.Direction
	// sent holds, per change, the directions in which its data travels:
	// a readOnly property is never sent by clients, a writeOnly one never
	// read by them.
	sent []rules.Direction
	memo map[pair]*node
	// below holds, per schema node an operation reaches directly, the
	// operations and directions; finish spreads them over the node's closure.
	below map[*node]map[string]rules.Direction
	// turn is set while comparing webhooks and callbacks, where the API
	// sends the request and the client reads it.
	turn bool
	// schemes holds the changes of each security scheme, reached from the
	// operations that use it.
	schemes map[string][]int
}

type pair struct{ o, n *openapi3.Schema }

// node is one compared schema pair: the changes found in it and the pairs
// compared under it (properties, items, members). Nodes form a graph with the
// cycles of the documents' $refs.
type node struct {
	own  []int
	kids []edge
}

// edge leads to a pair compared under another, in the directions its data
// travels (a readOnly property's schema only in responses).
type edge struct {
	to  *node
	dir rules.Direction
}

// Diff compares two loaded documents.
func Diff(old, new *Doc) []rules.Change {
	d := &differ{old: old, new: new, memo: map[pair]*node{}, below: map[*node]map[string]rules.Direction{}}
	d.components()
	d.securitySchemes()
	d.paths()
	d.webhooks()
	return d.finish()
}

// add records a change and returns its index.
func (d *differ) add(c rules.Change) int {
	c.Format = rules.OpenAPI
	d.changes = append(d.changes, c)
	d.reached = append(d.reached, nil)
	d.sent = append(d.sent, rules.Request|rules.Response)
	return len(d.changes) - 1
}

// reach marks changes as reached from operation op in direction dir.
func (d *differ) reach(idx []int, op string, dir rules.Direction) {
	dir = d.direction(dir)
	for _, i := range idx {
		if d.reached[i] == nil {
			d.reached[i] = map[string]rules.Direction{}
		}
		d.reached[i][op] |= dir & d.sent[i]
	}
}

// reachSchema marks everything in and under schema node n as reached from op.
func (d *differ) reachSchema(n *node, op string, dir rules.Direction) {
	if n == nil {
		return
	}
	if d.below[n] == nil {
		d.below[n] = map[string]rules.Direction{}
	}
	d.below[n][op] |= d.direction(dir)
}

// spread resolves reachSchema once the graph is complete: each directly
// reached node is walked once per direction, whatever the number of
// operations reaching it.
func (d *differ) spread() {
	dirty := d.dirty()
	for n, ops := range d.below {
		if !dirty[n] {
			continue
		}
		seen := map[*node]rules.Direction{}
		stack := []edge{{n, rules.Request | rules.Response}}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x.dir&^seen[x.to] == 0 {
				continue
			}
			seen[x.to] |= x.dir
			for op, dir := range ops {
				d.reach(x.to.own, op, dir&x.dir)
			}
			for _, k := range x.to.kids {
				if dirty[k.to] {
					stack = append(stack, edge{k.to, k.dir & x.dir})
				}
			}
		}
	}
}

// dirty marks the nodes with a change in or below them, by walking back from
// the nodes that own one. Most of a large document is unchanged, so spread
// then walks only the few paths that lead to a change.
func (d *differ) dirty() map[*node]bool {
	parents := map[*node][]*node{}
	var queue []*node
	for _, n := range d.memo {
		for _, k := range n.kids {
			parents[k.to] = append(parents[k.to], n)
		}
		if len(n.own) > 0 {
			queue = append(queue, n)
		}
	}
	dirty := make(map[*node]bool, len(queue))
	for _, n := range queue {
		dirty[n] = true
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, p := range parents[n] {
			if !dirty[p] {
				dirty[p] = true
				queue = append(queue, p)
			}
		}
	}
	return dirty
}

// finish attaches the operations to each change, once per direction, so a
// rule about requests names only the operations that send the change. Schema
// changes no operation reaches are dropped: an unused component breaks nobody.
func (d *differ) finish() []rules.Change {
	d.spread()
	out := make([]rules.Change, 0, len(d.changes))
	for i, c := range d.changes {
		for _, dir := range []rules.Direction{rules.Request, rules.Response} {
			var ops []string
			for op, got := range d.reached[i] {
				if got.Has(dir) {
					ops = append(ops, op)
				}
			}
			if len(ops) == 0 {
				continue
			}
			slices.Sort(ops)
			c.Dir, c.Operations = dir, ops
			out = append(out, c)
		}
	}
	return out
}

// components compares shared schemas first, so each change in one is
// located and named at the component, whichever operation reaches it.
func (d *differ) components() {
	oc, nc := d.old.T.Components, d.new.T.Components
	if oc == nil || nc == nil {
		return
	}
	for _, name := range sortedKeys(nc.Schemas) {
		if o, ok := oc.Schemas[name]; ok {
			d.schema(o, nc.Schemas[name], "#/components/schemas/"+escape(name))
		}
	}
}

func (d *differ) paths() {
	for _, p := range pairPaths(d.old.T.Paths, d.new.T.Paths) {
		op := p.old
		if p.new == nil {
			dep, sunset := pathDeprecation(op.item)
			i := d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectPath, Name: op.name,
				Path: "#/paths/" + escape(op.name), OldLoc: d.old.KeyLoc(op.item.Origin), Deprecated: dep, Sunset: sunset,
				Anchor: d.new.FieldLoc(d.new.T.Origin, "paths")})
			d.reach([]int{i}, op.name, rules.Request|rules.Response)
			continue
		}
		d.pathItem(op, *p.new)
	}
}

type namedPath struct {
	name string
	item *openapi3.PathItem
}

// pathPair is an old path and the new path it is, nil when it is gone.
type pathPair struct {
	old namedPath
	new *namedPath
}

// pairPaths pairs each old path with the new one it is: the path of the
// same name, else the one of the same template with parameter names erased
// (renaming {id} to {orderId} changes nothing on the wire). Paths alike
// but for their parameters' names, which OpenAPI forbids and Xero's
// accounting spec has, are told apart by name; left over alike on both
// sides, they pair in the order of their names. The old paths come in the
// order of their templates, the same every run.
func pairPaths(old, new *openapi3.Paths) []pathPair {
	olds, news := sortedPaths(old), sortedPaths(new)
	byName := make(map[string]*namedPath, len(news))
	for i := range news {
		byName[news[i].name] = &news[i]
	}
	out := make([]pathPair, len(olds))
	used := map[string]bool{}
	for i, o := range olds {
		out[i].old = o
		if n, ok := byName[o.name]; ok {
			out[i].new, used[o.name] = n, true
		}
	}
	left := map[string][]*namedPath{} // the new paths not paired, by template
	for i, n := range news {
		if !used[n.name] {
			t := template(n.name)
			left[t] = append(left[t], &news[i])
		}
	}
	for i := range out {
		if out[i].new != nil {
			continue
		}
		t := template(out[i].old.name)
		if l := left[t]; len(l) > 0 {
			out[i].new, left[t] = l[0], l[1:]
		}
	}
	return out
}

// sortedPaths lists ps by template, then name.
func sortedPaths(ps *openapi3.Paths) []namedPath {
	if ps == nil {
		return nil
	}
	out := make([]namedPath, 0, ps.Len())
	for name, item := range ps.Map() {
		out = append(out, namedPath{name, item})
	}
	slices.SortFunc(out, func(a, b namedPath) int {
		return cmp.Or(strings.Compare(template(a.name), template(b.name)), strings.Compare(a.name, b.name))
	})
	return out
}

func template(p string) string {
	var b strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '{':
			depth++
			if depth == 1 {
				b.WriteString("{}")
			}
		case r == '}':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.TrimSuffix(b.String(), "/")
}

func (d *differ) pathItem(op, np namedPath) {
	if op.item == np.item {
		return // one value on both sides (see Patch): nothing below differs
	}
	oldOps, newOps := op.item.Operations(), np.item.Operations()
	for _, m := range sortedKeys(oldOps) {
		o := oldOps[m]
		id := strings.ToUpper(m) + " " + np.name
		n, ok := newOps[m]
		if !ok {
			d.operationGone(op, np, m, o)
			continue
		}
		d.operation(id, np.name+"/"+strings.ToLower(m), o, n, op, np)
	}
}

// operationGone reports a removed operation, or a changed method when the
// same operationId now sits under another method of the same path.
func (d *differ) operationGone(op, np namedPath, method string, o *openapi3.Operation) {
	id := strings.ToUpper(method) + " " + op.name
	c := rules.Change{Kind: rules.Removed, Subject: rules.SubjectOperation, Name: id,
		Path: "#/paths/" + escape(op.name) + "/" + strings.ToLower(method), OldLoc: d.old.KeyLoc(o.Origin),
		Deprecated: o.Deprecated, Sunset: sunsetOf(o.Extensions, op.item.Extensions), Anchor: d.new.KeyLoc(np.item.Origin)}
	if o.OperationID != "" {
		for nm, n := range np.item.Operations() {
			if _, had := op.item.Operations()[nm]; !had && n.OperationID == o.OperationID {
				c.Kind, c.Aspect = rules.Modified, "method"
				c.Old.Text, c.New.Text = strings.ToUpper(method), strings.ToUpper(nm)
				c.NewLoc = d.new.KeyLoc(n.Origin)
			}
		}
	}
	d.reach([]int{d.add(c)}, id, rules.Request|rules.Response)
}

func (d *differ) operation(id, ptr string, o, n *openapi3.Operation, op, np namedPath) {
	oldTmpl, newTmpl, oi, ni := op.name, np.name, op.item, np.item
	base := "#/paths/" + escape(ptr[:strings.LastIndex(ptr, "/")]) + ptr[strings.LastIndex(ptr, "/"):]
	var idx []int
	if o.OperationID != n.OperationID && o.OperationID != "" {
		idx = append(idx, d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectOperation,
			Aspect: rules.AspectOperationID, Name: id, Path: base, Old: rules.Value{Text: o.OperationID}, New: rules.Value{Text: n.OperationID},
			OldLoc: d.old.FieldLoc(o.Origin, "operationId"), NewLoc: d.new.FieldLoc(n.Origin, "operationId")}))
	}
	idx = append(idx, d.stability(id, base, o, n)...)
	d.reach(idx, id, rules.Request|rules.Response)
	d.parameters(id, base, params(oldTmpl, oi, o), params(newTmpl, ni, n), d.new.KeyLoc(n.Origin))
	d.requestBody(id, base, o, n)
	d.responses(id, base, o.Responses, n.Responses)
	d.security(id, base, o, n)
	d.callbacks(id, base, o, n)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape makes a JSON pointer token.
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// sunsetOf is the x-sunset date an operation (or else its path) announces.
func sunsetOf(exts ...map[string]any) string {
	for _, e := range exts {
		if v, ok := e["x-sunset"]; ok && v != nil {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// pathDeprecation says whether every operation of a path was deprecated,
// and the latest sunset they announce.
func pathDeprecation(item *openapi3.PathItem) (bool, string) {
	ops := item.Operations()
	sunset := sunsetOf(item.Extensions)
	for _, o := range ops {
		if !o.Deprecated {
			return false, ""
		}
		sunset = max(sunset, sunsetOf(o.Extensions))
	}
	return len(ops) > 0, sunset
}
