package openapi

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// A diff of a plan parses the old side's kept chunks and then, with Patch,
// only the new side's changed ones: the old side's parse is the run, on one
// core. LoadOld parses it in parts, two per core at most, each with the
// $refs it makes into another part read as stubs, and assembles one model
// of them, as a language server's edit is assembled from the held load.

// Cut is the old document s was planned from, cut, for Patch.
func (s *Subset) Cut() *Cut { return &Cut{p: s.o, ok: true} }

// LoadOld is the model a load of s.OldText() gives, named name, parsed in
// parts at once; false when it cannot stand for that load (a $ref one part
// makes cannot be stubbed, a part does not parse, the model has validation
// problems): s.OldText() must then be loaded.
//
// The chunks kept only so that $refs resolve further (see bare) are parsed
// without places: on adjacent days of Stripe they are most of the 26,600
// lines kept, and recording where every value sits is a third of
// kin-openapi's parse. Nothing the diff reports can sit in them but through
// what was left out (a changed $ref turned from one of them to another), and
// a finding there is placeless, which the caller takes as the sign to load
// the whole documents (Unplaced).
func (s *Subset) LoadOld(name string, display func(string) string) (*Doc, bool) {
	if s.files || s.o.bytewise || s.o.asText {
		return nil, false
	}
	placed, bare := s.placement()
	d, ok := s.o.loadParts(name, display, placed, bare)
	if ok {
		s.unplaced = len(bare)
	}
	return d, ok
}

// Unplaced is how many chunks a load of s parsed without places: when
// any, a finding without a place must be taken to the whole documents.
func (s *Subset) Unplaced() int {
	if s == nil {
		return 0
	}
	return s.unplaced
}

// placement splits the old side's kept chunks in two. bare holds those no
// finding of the plan can point into: neither complete (changed, or
// reaching a change), nor holding an ignore, nor $ref'd by a complete chunk
// or the header (a finding on a property that is a $ref names the place of
// its target). placed holds the rest.
func (s *Subset) placement() (placed, bare map[string]bool) {
	near := map[string]bool{}
	for _, r := range s.o.headerRefs {
		near[r] = true
	}
	for p := range s.whole {
		for _, d := range []*pieces{s.o, s.n} {
			if c := d.chunks[p]; c != nil {
				for _, r := range c.refs {
					near[r] = true
				}
			}
		}
	}
	placed, bare = map[string]bool{}, map[string]bool{}
	for p := range s.keep {
		switch c := s.o.chunks[p]; {
		case c == nil:
		case s.whole[p] || near[p] || c.ignore:
			placed[p] = true
		default:
			bare[p] = true
		}
	}
	return placed, bare
}

// Load is the model a load of the whole document c holds gives, named
// name, parsed as two halves at once (see LoadOld); false when it cannot
// stand for that load.
func (c *Cut) Load(name string, display func(string) string) (*Doc, bool) {
	if !c.ok || c.p.bytewise || c.p.asText {
		return nil, false
	}
	all := make(map[string]bool, len(c.p.chunks))
	for p := range c.p.chunks {
		all[p] = true
	}
	return c.p.loadParts(name, display, all, nil)
}

// splitLines is the size from which a group of chunks parses as two halves,
// one per core; a smaller one is parsed whole, without a second copy of the
// header.
const splitLines = 2000

// loadParts is the model of d's header and the chunks placed and bare hold,
// parsed at once: placed with the places of their values (the header with
// them), bare without.
func (d *pieces) loadParts(name string, display func(string) string, placed, bare map[string]bool) (*Doc, bool) {
	type job struct {
		h       half
		origins bool
		t       *openapi3.T
	}
	var jobs []*job
	for _, g := range []struct {
		keep    map[string]bool
		origins bool
	}{{placed, true}, {bare, false}} {
		if !g.origins && len(g.keep) == 0 {
			continue // the placed group parses even empty: it holds the header
		}
		hs, ok := d.parts(g.keep)
		if !ok {
			return nil, false
		}
		for _, h := range hs {
			jobs = append(jobs, &job{h: h, origins: g.origins})
		}
	}
	var wg sync.WaitGroup
	lines := lineMaps{}
	for i, j := range jobs {
		// Each text's places are its own lines: each is parsed under a
		// name of its own.
		at := partName(name, "contractlint-part-"+strconv.Itoa(i))
		if j.origins {
			lines[at.String()] = j.h.lines
		}
		wg.Go(func() { j.t = loadPart(at, j.h.text, j.origins) })
	}
	wg.Wait()
	a := assembly{header: jobs[0].t, from: map[string]part{}}
	for _, j := range jobs {
		if j.t == nil {
			return nil, false
		}
		for p := range j.h.keep {
			a.from[p] = part{t: j.t, fresh: true}
		}
	}
	t, ok := a.build()
	if !ok {
		return nil, false
	}
	doc := &Doc{T: t, name: name, display: asGiven(display), raw: d.src, lines: lines}
	doc.shiftAs(name, d.src)
	if doc.Problems = doc.validate(context.Background()); len(doc.Problems) > 0 {
		return nil, false
	}
	return doc, true
}

// parts is keep's chunks as one fragment, or as two halves when they are
// splitLines or more.
func (d *pieces) parts(keep map[string]bool) ([]half, bool) {
	lines := 0
	for p := range keep {
		if c := d.chunks[p]; c != nil {
			lines += c.end - c.first
		}
	}
	if lines >= splitLines {
		hs, ok := d.halves(keep)
		return hs[:], ok
	}
	text, at, ok := d.fragment(keep)
	return []half{{keep: keep, text: text, lines: at}}, ok
}

// half is one half of a split load: the chunks it parses, and its text
// with the map of its lines to the document's.
type half struct {
	keep  map[string]bool
	text  []byte
	lines *lineMap
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
		text, lines, ok := d.fragment(out[i].keep)
		if !ok {
			return out, false
		}
		out[i].text, out[i].lines = text, lines
	}
	return out, true
}

// loadPart parses a fragment's text under at, the document's name with a
// query of its own (see partName), nil when it does not load as an OpenAPI
// 3 document; origins says whether values are given their places.
func loadPart(at *url.URL, text []byte, origins bool) *openapi3.T {
	t, err := loadFragment(at, text, origins)
	if err != nil || !strings.HasPrefix(t.OpenAPI, "3.") {
		return nil
	}
	return t
}
