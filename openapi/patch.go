package openapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// A language server compares each edit of a buffer with one base held
// loaded (see held.go). An edit to a component every operation reaches
// (Stripe's account) keeps nearly every chunk in its subset plan, and
// parsing the plan's new text was nearly all of an edit's time, though all
// but one of those chunks are byte-identical to the base's. Patch parses
// only what differs and takes the rest from the held load: the model a load
// of the plan's new text gives, at the cost of the edit.

// fragQuery marks the name the changed chunks are parsed under, so a place
// in them (at the buffer's lines) is told from a place in the held load (at
// the base's).
const fragQuery = "contractlint-edit"

// componentFields are the fields of openapi3.Components that hold each kind
// of component cut into chunks.
var componentFields = map[string]string{
	"schemas": "Schemas", "parameters": "Parameters", "headers": "Headers", "requestBodies": "RequestBodies",
	"responses": "Responses", "examples": "Examples", "links": "Links", "callbacks": "Callbacks",
}

// Patch is the new side of s, the model a load of s.New gives, named name:
// d is the whole old document c holds, and s was planned against c
// (PlanSubsetCut). Only the header and the chunks whose bytes changed are
// parsed, each $ref they make to an unchanged chunk read as a stub; the
// unchanged chunks are d's, and those that reach a changed one are copied
// with their $refs pointed at the new values (see repointer). A place in a
// chunk taken from d is moved to the chunk's lines in the new text. ok is
// false when d or the result has validation problems, or when a chunk a
// changed one refers to cannot be written as a stub: the plan's text must
// then be loaded. The result shares d's elements: neither may be changed
// after.
func (d *Doc) Patch(c *Cut, s *Subset, name string, display func(string) string) (*Doc, bool) {
	if len(d.Problems) > 0 || s == nil || !c.ok || s.o != c.p || d.T.Components == nil && d.T.Paths == nil {
		return nil, false
	}
	text, ok := s.fragment()
	if !ok {
		return nil, false
	}
	ft, err := loadFragment(name, text)
	if err != nil || !strings.HasPrefix(ft.OpenAPI, "3.") {
		return nil, false
	}
	t, ok := s.assemble(d.T, ft)
	if !ok {
		return nil, false
	}
	if display == nil {
		display = func(s string) string { return s }
	}
	out := &Doc{T: t, name: name, display: display, raw: s.New, reused: s.moves()}
	if out.Problems = out.validate(context.Background()); len(out.Problems) > 0 {
		return nil, false
	}
	return out, true
}

// fragment is the new text with every chunk blanked but the changed ones,
// and each chunk they (or the header) $ref written as a stub.
func (s *Subset) fragment() ([]byte, bool) {
	keep, stub := map[string]bool{}, map[string]bool{}
	refs := append([]string(nil), s.n.headerRefs...)
	for p := range s.changed {
		if c := s.n.chunks[p]; c != nil {
			keep[p] = true
			refs = append(refs, c.refs...)
		}
	}
	for _, r := range refs {
		c := s.n.chunks[r]
		switch {
		case s.changed[r]:
		case c == nil || !c.bare && c.end-c.first > 1:
			return nil, false
		default:
			stub[r] = true
		}
	}
	b, _ := s.n.blankStub(keep, stub)
	return b, true
}

// loadFragment parses the fragment text as the document name, placing
// every element under the fragment's name.
func loadFragment(name string, text []byte) (t *openapi3.T, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("the OpenAPI parser failed: %v", r)
		}
	}()
	at := &url.URL{Path: name, RawQuery: fragQuery}
	l := openapi3.NewLoader()
	l.IncludeOrigin = true
	l.Context = context.Background()
	l.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if *u != *at {
			return nil, errors.New("no other file") // the plan holds only local $refs
		}
		return text, nil
	}
	return l.LoadFromURI(at)
}

// assemble is the new model: ft's header, its changed chunks, and base's
// unchanged ones, with every $ref to a chunk pointed at the new value.
func (s *Subset) assemble(base, ft *openapi3.T) (*openapi3.T, bool) {
	r := newRepointer()
	kept := func(p string) bool { return s.keep[p] && s.n.chunks[p] != nil }
	bc, fc := components(base), components(ft)
	// Every component's final value first: a $ref needs only its pointer.
	for kind, field := range componentFields {
		bm, fm := bc.FieldByName(field), fc.FieldByName(field)
		for _, name := range mapKeys(bm, fm) {
			p := "#/components/" + kind + "/" + escape(name)
			if !kept(p) {
				continue
			}
			w, ok := componentWrapper(bm, fm, name, s.changed[p])
			if !ok {
				return nil, false
			}
			v := w.Elem().FieldByName("Value")
			if s.whole[p] && !s.changed[p] {
				cp := reflect.New(v.Type().Elem())
				r.done[v.UnsafePointer()] = cp
				v = cp
			}
			r.final[p] = v
		}
	}
	comps := reflect.New(fc.Type()).Elem()
	comps.Set(fc)
	for kind, field := range componentFields {
		bm, fm := bc.FieldByName(field), fc.FieldByName(field)
		names := mapKeys(bm, fm)
		m := reflect.MakeMapWithSize(bm.Type(), len(names))
		for _, name := range names {
			p := "#/components/" + kind + "/" + escape(name)
			if !kept(p) {
				continue
			}
			w, _ := componentWrapper(bm, fm, name, s.changed[p])
			switch v := r.final[p]; {
			case s.changed[p]:
				// The fragment's own value: rewritten in place.
				if nv, changed := r.node(v.Elem()); changed {
					v.Elem().Set(nv)
				}
			case s.whole[p]:
				// A copy of base's, which reaches a change.
				nv, _ := r.node(w.Elem().FieldByName("Value").Elem())
				v.Elem().Set(nv)
				cw := reflect.New(w.Type().Elem())
				cw.Elem().Set(w.Elem())
				cw.Elem().FieldByName("Value").Set(v)
				w = cw
			}
			m.SetMapIndex(reflect.ValueOf(name), w)
		}
		comps.FieldByName(field).Set(m)
	}
	t := *ft
	if c, ok := comps.Addr().Interface().(*openapi3.Components); ok && (ft.Components != nil || base.Components != nil) {
		t.Components = c
	}
	t.Paths = s.paths(r, base.Paths, ft.Paths)
	if w, changed := r.value(reflect.ValueOf(t.Webhooks)); changed {
		t.Webhooks = w.Interface().(map[string]*openapi3.PathItem)
	}
	return &t, true
}

// paths is the new Paths: the changed entries from the fragment, the rest
// from base, rewritten where they reach a change.
func (s *Subset) paths(r *repointer, base, frag *openapi3.Paths) *openapi3.Paths {
	out := openapi3.NewPaths()
	if frag != nil {
		out.Extensions, out.Origin = frag.Extensions, frag.Origin
	}
	from := func(ps *openapi3.Paths, changed bool) {
		if ps == nil {
			return
		}
		for path, item := range ps.Map() {
			p := "#/paths/" + escape(path)
			if !s.keep[p] || s.n.chunks[p] == nil || s.changed[p] != changed {
				continue
			}
			if s.whole[p] || changed {
				if nv, ok := r.value(reflect.ValueOf(item)); ok {
					item = nv.Interface().(*openapi3.PathItem)
				}
			}
			out.Set(path, item)
		}
	}
	from(base, false)
	from(frag, true)
	return out
}

// components is t's Components as a struct value (a zero one when t has
// none).
func components(t *openapi3.T) reflect.Value {
	if t.Components == nil {
		return reflect.ValueOf(openapi3.Components{})
	}
	return reflect.ValueOf(*t.Components)
}

// componentWrapper is a component's entry (a *SchemaRef, ...): the
// fragment's when the chunk changed, base's otherwise.
func componentWrapper(base, frag reflect.Value, name string, changed bool) (reflect.Value, bool) {
	m := base
	if changed {
		m = frag
	}
	if m.Len() == 0 {
		return reflect.Value{}, false
	}
	w := m.MapIndex(reflect.ValueOf(name))
	if !w.IsValid() || w.IsNil() || w.Elem().FieldByName("Value").IsNil() {
		return reflect.Value{}, false
	}
	return w, true
}

// mapKeys are the string keys of two maps, each once, sorted.
func mapKeys(ms ...reflect.Value) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for _, k := range m.MapKeys() {
			if !seen[k.String()] {
				seen[k.String()] = true
				out = append(out, k.String())
			}
		}
	}
	sort.Strings(out)
	return out
}

// moves is where the chunks taken from the old text sit in the new one,
// nil when none moved.
func (s *Subset) moves() *reuse {
	var segs []move
	moved := false
	for p := range s.keep {
		oc, nc := s.o.chunks[p], s.n.chunks[p]
		if oc == nil || nc == nil || s.changed[p] {
			continue
		}
		segs = append(segs, move{first: oc.first + 1, end: oc.end, by: nc.first - oc.first})
		moved = moved || nc.first != oc.first
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].first < segs[j].first })
	if !moved {
		segs = nil
	}
	return &reuse{moves: segs}
}

// reuse says a model is partly another load's (see Patch): a place not
// under fragQuery is in a chunk of the old text, and moves by its chunk's
// move.
type reuse struct{ moves []move }

// move: the old text's 1-based lines [first, end] are by lines further
// down in the new.
type move struct{ first, end, by int }

func (u *reuse) line(l int) int {
	i := sort.Search(len(u.moves), func(i int) bool { return u.moves[i].end >= l })
	if i < len(u.moves) && u.moves[i].first <= l {
		return l + u.moves[i].by
	}
	return l
}
