package openapi

import (
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// An assembly is one model put together from chunks parsed apart (see
// Patch and loadSplit): each chunk's value comes from one of several
// loads, and every $ref to a chunk is pointed at the value the chunk has in
// the result (see repointer). A $ref a load could not resolve alone was
// read as a stub, which the assembly leaves behind.
type assembly struct {
	// header is the load whose text outside the chunks (openapi, info,
	// servers, security schemes, webhooks...) the model takes.
	header *openapi3.T
	// from is every chunk of the model, by pointer.
	from map[string]part
}

// part is where one chunk's value is.
type part struct {
	t *openapi3.T
	// fresh: parsed for this model alone, so its $refs are rewritten in
	// place. Otherwise the value is another model's, shared, and copied
	// where it must change: when redo says it may reach a changed chunk.
	fresh, redo bool
}

// componentFields are the fields of openapi3.Components that hold each kind
// of component cut into chunks.
var componentFields = map[string]string{
	"schemas": "Schemas", "parameters": "Parameters", "headers": "Headers", "requestBodies": "RequestBodies",
	"responses": "Responses", "examples": "Examples", "links": "Links", "callbacks": "Callbacks",
}

// build is the model; false when a chunk is not where from says.
func (a *assembly) build() (*openapi3.T, bool) {
	r := newRepointer()
	type comp struct {
		ptr, kind, name string
		w               reflect.Value // its entry: a *SchemaRef, ...
	}
	var comps []comp
	var paths []string
	// Every component's final value first: a $ref needs only its pointer.
	for p, f := range a.from {
		if _, ok := strings.CutPrefix(p, "#/paths/"); ok {
			paths = append(paths, p)
			continue
		}
		kind, name, ok := componentOf(p)
		if !ok {
			return nil, false
		}
		w, ok := componentEntry(f.t, kind, name)
		if !ok {
			return nil, false
		}
		v := w.Elem().FieldByName("Value")
		if f.redo && !f.fresh {
			cp := reflect.New(v.Type().Elem())
			r.done[v.UnsafePointer()] = cp
			v = cp
		}
		r.final[p] = v
		comps = append(comps, comp{p, kind, name, w})
	}
	hc := components(a.header)
	out := reflect.New(hc.Type()).Elem()
	out.Set(hc)
	maps := map[string]reflect.Value{}
	for kind, field := range componentFields {
		maps[kind] = reflect.MakeMap(hc.FieldByName(field).Type())
	}
	for _, c := range comps {
		f, v, w := a.from[c.ptr], r.final[c.ptr], c.w
		switch {
		case f.fresh:
			if nv, changed := r.node(v.Elem()); changed {
				v.Elem().Set(nv)
			}
		case f.redo:
			nv, _ := r.node(w.Elem().FieldByName("Value").Elem())
			v.Elem().Set(nv)
			cw := reflect.New(w.Type().Elem())
			cw.Elem().Set(w.Elem())
			cw.Elem().FieldByName("Value").Set(v)
			w = cw
		}
		maps[c.kind].SetMapIndex(reflect.ValueOf(c.name), w)
	}
	for kind, field := range componentFields {
		if m := maps[kind]; m.Len() > 0 || !out.FieldByName(field).IsNil() {
			out.FieldByName(field).Set(m)
		}
	}
	t := *a.header
	if c, ok := out.Addr().Interface().(*openapi3.Components); ok && (t.Components != nil || len(comps) > 0) {
		t.Components = c
	}
	ps, ok := a.paths(r, paths)
	if !ok {
		return nil, false
	}
	t.Paths = ps
	if w, changed := r.value(reflect.ValueOf(t.Webhooks)); changed {
		t.Webhooks = w.Interface().(map[string]*openapi3.PathItem)
	}
	return &t, true
}

// paths is the model's Paths: each entry from its part, rewritten where it
// may reach a changed chunk.
func (a *assembly) paths(r *repointer, ptrs []string) (*openapi3.Paths, bool) {
	h := a.header.Paths
	if h == nil && len(ptrs) == 0 {
		return nil, true
	}
	out := openapi3.NewPaths()
	if h != nil {
		out.Extensions, out.Origin = h.Extensions, h.Origin
	}
	for _, p := range ptrs {
		f := a.from[p]
		key := unescape(strings.TrimPrefix(p, "#/paths/"))
		var item *openapi3.PathItem
		if f.t.Paths != nil {
			item = f.t.Paths.Value(key)
		}
		if item == nil {
			return nil, false
		}
		if f.fresh || f.redo {
			if nv, changed := r.value(reflect.ValueOf(item)); changed {
				item = nv.Interface().(*openapi3.PathItem)
			}
		}
		out.Set(key, item)
	}
	return out, true
}

// componentOf splits a component's pointer into its kind and name.
func componentOf(p string) (kind, name string, ok bool) {
	rest, ok := strings.CutPrefix(p, "#/components/")
	if !ok {
		return "", "", false
	}
	kind, name, ok = strings.Cut(rest, "/")
	if _, known := componentFields[kind]; !ok || !known || strings.Contains(name, "/") {
		return "", "", false
	}
	return kind, unescape(name), true
}

// unescape is a JSON pointer segment's text.
func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// components is t's Components as a struct value (a zero one when t has
// none).
func components(t *openapi3.T) reflect.Value {
	if t.Components == nil {
		return reflect.ValueOf(openapi3.Components{})
	}
	return reflect.ValueOf(*t.Components)
}

// componentEntry is a component's entry in t (a *SchemaRef, ...), with a
// value.
func componentEntry(t *openapi3.T, kind, name string) (reflect.Value, bool) {
	m := components(t).FieldByName(componentFields[kind])
	if m.Len() == 0 {
		return reflect.Value{}, false
	}
	w := m.MapIndex(reflect.ValueOf(name))
	if !w.IsValid() || w.IsNil() || w.Elem().FieldByName("Value").IsNil() {
		return reflect.Value{}, false
	}
	return w, true
}
