package openapi

import (
	"context"
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// validateOnce runs kin-openapi's document validation with every schema
// checked exactly once. kin-openapi re-walks a shared schema at every place
// that references it, which on a spec like Stripe's costs twice the load
// itself; here all schemas are validated in one walk with one visited set,
// then the rest of the document with its schema slots briefly emptied.
func validateOnce(ctx context.Context, t *openapi3.T, opts ...openapi3.ValidationOption) error {
	if t.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.IsOpenAPI31OrLater())
	}
	sites := schemaSites(t)
	root := &openapi3.Schema{AllOf: make(openapi3.SchemaRefs, 0, len(sites))}
	for _, s := range sites {
		if s.Value != nil {
			root.AllOf = append(root.AllOf, &openapi3.SchemaRef{Value: s.Value})
		}
	}
	schemaErr := root.Validate(ctx, opts...)
	saved := make([]*openapi3.Schema, len(sites))
	for i, s := range sites {
		saved[i], s.Value = s.Value, &openapi3.Schema{}
	}
	defer func() {
		for i, s := range slices.Backward(sites) {
			s.Value = saved[i]
		}
	}()
	var all openapi3.MultiError
	for _, err := range []error{schemaErr, t.Validate(ctx, opts...)} {
		if err != nil {
			all = append(all, err)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

// schemaSites lists every place outside a schema that holds one: component
// schemas, and the schemas of parameters, headers and media types wherever
// they appear. Each is listed once.
func schemaSites(t *openapi3.T) []*openapi3.SchemaRef {
	w := &siteWalker{seen: map[*openapi3.SchemaRef]bool{}}
	if c := t.Components; c != nil {
		for _, s := range byName(c.Schemas) {
			w.add(s)
		}
		for _, p := range byName(c.Parameters) {
			w.param(p)
		}
		for _, h := range byName(c.Headers) {
			w.header(h)
		}
		for _, b := range byName(c.RequestBodies) {
			if b != nil && b.Value != nil {
				w.content(b.Value.Content)
			}
		}
		for _, r := range byName(c.Responses) {
			w.response(r)
		}
		for _, cb := range byName(c.Callbacks) {
			w.callback(cb)
		}
	}
	if t.Paths != nil {
		for _, item := range byName(t.Paths.Map()) {
			w.pathItem(item)
		}
	}
	for _, item := range byName(t.Webhooks) {
		w.pathItem(item)
	}
	return w.sites
}

// byName yields a map's values in the order of their keys: kin-openapi's
// schema validation stops at the first invalid schema, so the order sites
// are visited in decides which problem is reported, and it must be the same
// on every run.
func byName[M ~map[string]V, V any](m M) []V {
	out := make([]V, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

type siteWalker struct {
	seen  map[*openapi3.SchemaRef]bool
	sites []*openapi3.SchemaRef
}

func (w *siteWalker) add(s *openapi3.SchemaRef) {
	if s != nil && !w.seen[s] {
		w.seen[s] = true
		w.sites = append(w.sites, s)
	}
}

func (w *siteWalker) param(p *openapi3.ParameterRef) {
	if p != nil && p.Value != nil {
		w.add(p.Value.Schema)
		w.content(p.Value.Content)
	}
}

func (w *siteWalker) header(h *openapi3.HeaderRef) {
	if h != nil && h.Value != nil {
		w.add(h.Value.Schema)
		w.content(h.Value.Content)
	}
}

func (w *siteWalker) content(c openapi3.Content) {
	for _, mt := range byName(c) {
		if mt == nil {
			continue
		}
		w.add(mt.Schema)
		for _, enc := range byName(mt.Encoding) {
			if enc != nil {
				for _, h := range byName(enc.Headers) {
					w.header(h)
				}
			}
		}
	}
}

func (w *siteWalker) response(r *openapi3.ResponseRef) {
	if r == nil || r.Value == nil {
		return
	}
	for _, h := range byName(r.Value.Headers) {
		w.header(h)
	}
	w.content(r.Value.Content)
}

func (w *siteWalker) callback(cb *openapi3.CallbackRef) {
	if cb == nil || cb.Value == nil {
		return
	}
	for _, item := range byName(cb.Value.Map()) {
		w.pathItem(item)
	}
}

func (w *siteWalker) pathItem(item *openapi3.PathItem) {
	if item == nil {
		return
	}
	for _, p := range item.Parameters {
		w.param(p)
	}
	for _, op := range byName(item.Operations()) {
		for _, p := range op.Parameters {
			w.param(p)
		}
		if op.RequestBody != nil && op.RequestBody.Value != nil {
			w.content(op.RequestBody.Value.Content)
		}
		if op.Responses != nil {
			for _, r := range byName(op.Responses.Map()) {
				w.response(r)
			}
		}
		for _, cb := range byName(op.Callbacks) {
			w.callback(cb)
		}
	}
}
