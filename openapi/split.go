package openapi

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// A diff of a plan parses the old side's kept chunks and then, with Patch,
// only the new side's changed ones: the old side's parse is the run, on one
// core. LoadOld parses it as two halves, one per core, each with the $refs
// it makes into the other half read as stubs, and assembles one model of
// them, as a language server's edit is assembled from the held load.

// Cut is the old document s was planned from, cut, for Patch.
func (s *Subset) Cut() *Cut { return &Cut{p: s.o, ok: true} }

// LoadOld is the model a load of s.OldText() gives, named name, parsed as two
// halves at once; false when it cannot stand for that load (a $ref one
// half makes cannot be stubbed, a half does not parse, the model has
// validation problems): s.OldText() must then be loaded.
func (s *Subset) LoadOld(name string, display func(string) string) (*Doc, bool) {
	if s.files {
		return nil, false
	}
	return s.o.loadHalves(s.keep, name, display)
}

// Load is the model a load of the whole document c holds gives, named
// name, parsed as two halves at once (see LoadOld); false when it cannot
// stand for that load.
func (c *Cut) Load(name string, display func(string) string) (*Doc, bool) {
	if !c.ok {
		return nil, false
	}
	all := make(map[string]bool, len(c.p.chunks))
	for p := range c.p.chunks {
		all[p] = true
	}
	return c.p.loadHalves(all, name, display)
}

// loadHalves is the model of d's header and the chunks keep holds, parsed
// as two halves at once.
func (d *pieces) loadHalves(keep map[string]bool, name string, display func(string) string) (*Doc, bool) {
	halves, ok := d.halves(keep)
	if !ok {
		return nil, false
	}
	var ts [2]*openapi3.T
	var wg sync.WaitGroup
	for i, h := range halves {
		wg.Go(func() { ts[i] = loadHalf(name, h) })
	}
	wg.Wait()
	a := assembly{from: map[string]part{}}
	for i, h := range halves {
		if ts[i] == nil {
			return nil, false
		}
		for p := range h.keep {
			a.from[p] = part{t: ts[i], fresh: true}
		}
	}
	a.header = ts[0]
	t, ok := a.build()
	if !ok {
		return nil, false
	}
	doc := &Doc{T: t, name: name, display: asGiven(display), raw: d.src}
	if doc.Problems = doc.validate(context.Background()); len(doc.Problems) > 0 {
		return nil, false
	}
	return doc, true
}

// half is one half of a split load: the chunks it parses, and its text.
type half struct {
	keep map[string]bool
	text []byte
}

// halves splits the chunks of d that keep holds in two, by lines, in the
// document's order; each half's text holds its chunks, the header, and a
// stub for each chunk the half $refs and does not hold.
func (d *pieces) halves(keep map[string]bool) ([2]half, bool) {
	var ptrs []string
	lines := 0
	for p := range keep {
		if c := d.chunks[p]; c != nil {
			ptrs = append(ptrs, p)
			lines += c.end - c.first
		}
	}
	slices.SortFunc(ptrs, func(a, b string) int { return d.chunks[a].first - d.chunks[b].first })
	var out [2]half
	out[0].keep, out[1].keep = map[string]bool{}, map[string]bool{}
	seen := 0
	for _, p := range ptrs {
		i := 0
		if 2*seen >= lines {
			i = 1
		}
		out[i].keep[p] = true
		seen += d.chunks[p].end - d.chunks[p].first
	}
	for i := range out {
		text, ok := d.fragment(out[i].keep)
		if !ok {
			return out, false
		}
		out[i].text = text
	}
	return out, true
}

// loadHalf parses one half under the document's own name (its lines are
// the document's), nil when it does not load as an OpenAPI 3 document.
func loadHalf(name string, h half) *openapi3.T {
	t, err := loadFragment(&url.URL{Path: name}, h.text)
	if err != nil || !strings.HasPrefix(t.OpenAPI, "3.") {
		return nil
	}
	return t
}
