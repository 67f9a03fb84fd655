package openapi

import (
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// A language server compares every edit of a buffer with one base
// document, which does not change between edits. Cut and Restrict let the
// caller cut the base once and load it whole once, and then serve the base
// side of each edit's subset plan from that load instead of parsing the
// plan's blanked old text again.

// Cut is a document cut into chunks, once, to plan subsets against.
type Cut struct {
	p  *pieces
	ok bool
	// parsed holds the parses of its parts: an edit's cut parses only
	// the parts the edit wrote anew.
	parsed map[string]*parsed
}

// NewCut cuts b as PlanSubset cuts each side.
func NewCut(b []byte) *Cut {
	ps := newParses(nil)
	ds, whys := ps.cut(b)
	return &Cut{p: ds[0], ok: whys[0] == nil, parsed: ps.done}
}

// PlanSubsetCut is PlanSubset with the old document already cut. A plan
// that leaves out nothing is returned too: Patch still parses only the
// chunks that changed.
func PlanSubsetCut(old *Cut, new []byte) (*Subset, bool) {
	if !old.ok {
		return nil, false
	}
	ds, whys := newParses(old.parsed).cut(new)
	s, why := planCut(old.p, ds[0], whys[0])
	return s, why == nil
}

// Restrict is d, the whole old document c holds and s was planned from,
// without the chunks s blanks: the model a load of s.OldText() gives, without
// parsing it.
// Blanking keeps every line, so every origin is the one that load has; and
// the kept chunks are closed under $refs, so each resolves to what it does
// in d. ok is false when d has validation problems, which the plan's text
// must then be loaded to place. The result shares d's elements: neither
// may be changed after. The last result is kept: edits typed in one place
// plan alike, and the same model is lowered once (see Contract).
func (d *Doc) Restrict(c *Cut, s *Subset) (*Doc, bool) {
	if len(d.Problems) > 0 || s == nil || !c.ok {
		return nil, false
	}
	kept := make([]string, 0, len(s.keep))
	for p := range s.keep {
		kept = append(kept, p)
	}
	slices.Sort(kept)
	key := strings.Join(kept, "\n")
	d.restricted.mu.Lock()
	defer d.restricted.mu.Unlock()
	if d.restricted.doc != nil && d.restricted.keep == key {
		return d.restricted.doc, true
	}
	r, ok := d.restrict(c, s)
	if ok {
		d.restricted.keep, d.restricted.doc = key, r
	}
	return r, ok
}

// restriction is the last model Restrict gave, by the chunks it kept.
type restriction struct {
	mu   sync.Mutex
	keep string
	doc  *Doc
}

// restrict is Restrict, built.
func (d *Doc) restrict(c *Cut, s *Subset) (*Doc, bool) {
	// An entry that is no chunk (of a one-line flow mapping, or a key the
	// cut spells otherwise) is a text this does not know: the plan's text
	// is loaded instead.
	unsure := false
	keep := func(ptr string) bool {
		unsure = unsure || c.p.chunks[ptr] == nil
		return s.keep[ptr]
	}
	t := *d.T
	if p := d.T.Paths; p != nil {
		kept := openapi3.NewPaths()
		kept.Extensions, kept.Origin = p.Extensions, p.Origin
		for path, item := range p.Map() {
			if keep("#/paths/" + escape(path)) {
				kept.Set(path, item)
			}
		}
		t.Paths = kept
	}
	if cs := d.T.Components; cs != nil {
		k := *cs
		k.Schemas = keptOf(keep, "schemas", cs.Schemas)
		k.Parameters = keptOf(keep, "parameters", cs.Parameters)
		k.Headers = keptOf(keep, "headers", cs.Headers)
		k.RequestBodies = keptOf(keep, "requestBodies", cs.RequestBodies)
		k.Responses = keptOf(keep, "responses", cs.Responses)
		k.Examples = keptOf(keep, "examples", cs.Examples)
		k.Links = keptOf(keep, "links", cs.Links)
		k.Callbacks = keptOf(keep, "callbacks", cs.Callbacks)
		t.Components = &k
	}
	if unsure {
		return nil, false
	}
	r := &Doc{T: &t, name: d.name, display: d.display, raw: d.raw, last: d.last, lastRaw: d.lastRaw, lines: d.lines}
	d.refs.mu.Lock()
	r.refs.names, r.refs.text, r.refs.shifts = d.refs.names, d.refs.text, d.refs.shifts
	d.refs.mu.Unlock()
	return r, true
}

// keptOf is the components of one kind that keep keeps.
func keptOf[M ~map[string]V, V any](keep func(string) bool, kind string, m M) M {
	if m == nil {
		return nil
	}
	out := make(M, len(m))
	for name, v := range m {
		if keep("#/components/" + kind + "/" + escape(name)) {
			out[name] = v
		}
	}
	return out
}
