package openapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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

// Patch is the new side of s, the model a load of s.NewText() gives, named name:
// d is a load of s's old side holding every chunk s keeps (the whole
// document c holds, or LoadOld's), and s was planned against c. Only the
// header and the chunks whose bytes changed are parsed, each $ref they make
// to an unchanged chunk read as a stub; the unchanged chunks are d's, and
// those that reach a changed one are copied with their $refs pointed at the
// new values (see repointer). A place in a chunk taken from d is moved to
// the chunk's lines in the new text. ok is false when d or the result has
// validation problems, or when a chunk a changed one refers to cannot be
// written as a stub: the plan's text must then be loaded. The result shares
// d's elements: neither may be changed after.
func (d *Doc) Patch(c *Cut, s *Subset, name string, display func(string) string) (*Doc, bool) {
	e, ok := s.ParseEdit(name)
	if !ok {
		return nil, false
	}
	return d.PatchEdit(c, e, display)
}

// Edit is the half of Patch that needs no base: the header and changed
// chunks of a plan's new side, parsed. A caller that must load the base
// first (LoadOld) parses the edit beside it.
type Edit struct {
	s     *Subset
	name  string
	t     *openapi3.T
	lines lineMaps
}

// ParseEdit parses s's new header and changed chunks, named name; false
// when they cannot be parsed alone (see Patch).
func (s *Subset) ParseEdit(name string) (*Edit, bool) {
	if s == nil || s.n.bytewise || s.n.asText {
		return nil, false
	}
	text, lines, ok := s.fragment()
	if !ok {
		return nil, false
	}
	at := partName(name, fragQuery)
	ft, err := loadFragment(at, text, true)
	if err != nil || !strings.HasPrefix(ft.OpenAPI, "3.") {
		return nil, false
	}
	return &Edit{s: s, name: name, t: ft, lines: mapOf(at, lines)}, true
}

// PatchEdit is Patch with the edit parsed; an edit is assembled once.
func (d *Doc) PatchEdit(c *Cut, e *Edit, display func(string) string) (*Doc, bool) {
	s := e.s
	if len(d.Problems) > 0 || !c.ok || s.o != c.p || s.o.bytewise || s.o.asText || d.T.Components == nil && d.T.Paths == nil {
		return nil, false
	}
	t, ok := s.assemble(d.T, e.t)
	if !ok {
		return nil, false
	}
	out := &Doc{T: t, name: e.name, display: asGiven(display), raw: s.n.src, reused: s.moves(), lines: d.lines.union(e.lines)}
	out.shiftAs(e.name, s.n.src)
	if out.Problems = out.validate(context.Background()); len(out.Problems) > 0 {
		return nil, false
	}
	return out, true
}

// fragment is the new text with every chunk blanked but the changed ones,
// and each chunk they (or the header) $ref written as a stub.
func (s *Subset) fragment() ([]byte, *lineMap, bool) {
	keep := map[string]bool{}
	for p := range s.changed {
		if s.n.chunks[p] != nil {
			keep[p] = true
		}
	}
	return s.n.fragment(keep)
}

// fragment is the text with every chunk blanked but those in keep, and
// each chunk they (or the header) $ref and keep lacks written as a stub;
// false when one cannot be (see blankStub).
func (d *pieces) fragment(keep map[string]bool) ([]byte, *lineMap, bool) {
	stub := map[string]bool{}
	refs := append([]string(nil), d.headerRefs...)
	for p := range keep {
		refs = append(refs, d.chunks[p].refs...)
	}
	for _, r := range refs {
		c := d.chunks[r]
		switch {
		case keep[r]:
		case c == nil || !c.bare && c.end-c.first > 1:
			return nil, nil, false
		default:
			stub[r] = true
		}
	}
	text, lines := d.blankStub(keep, stub, true)
	return text, lines, true
}

// loadFragment parses a fragment's text as the document at (a name, with
// fragQuery when its places must be told from another load's).
func loadFragment(at *url.URL, text []byte, origins bool) (t *openapi3.T, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("the OpenAPI parser failed: %v", r)
		}
	}()
	l := openapi3.NewLoader()
	l.IncludeOrigin = origins
	l.Context = context.Background()
	// Read as the whole document is (surrogate-pair escapes rewritten):
	// otherwise the parser falls back to JSON's, without places.
	text, _ = Readable(text)
	text, _ = startDocument(text)
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
	a := assembly{header: ft, from: map[string]part{}}
	for p := range s.keep {
		switch {
		case s.n.chunks[p] == nil:
		case s.changed[p]:
			a.from[p] = part{t: ft, fresh: true}
		default:
			a.from[p] = part{t: base, redo: s.whole[p]}
		}
	}
	return a.build()
}

// moves is where the chunks taken from the old text sit in the new one;
// its moves are nil when none moved.
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
