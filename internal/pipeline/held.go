package pipeline

import (
	"sync"

	"github.com/contractlint/contractlint/openapi"
)

// Held is what a comparison held open across runs (the language server's
// session) keeps of its old side, which does not change between two edits:
// each old OpenAPI document is read, cut and loaded whole once, and the old
// side of every later run comes from that load (restricted to the run's
// subset plan, see openapi.Doc.Restrict). Only the new side is parsed per
// run. Every run given one Held must compare against the same old side.
type Held struct {
	mu   sync.Mutex
	docs map[string]*heldDoc
}

// NewHeld holds nothing yet.
func NewHeld() *Held { return &Held{docs: map[string]*heldDoc{}} }

// heldDoc is one old document, read on its first run.
type heldDoc struct {
	side Side // its text served from memory

	cutOnce sync.Once
	cut     *openapi.Cut // nil: no subset is planned against it

	loadOnce sync.Once
	doc      *openapi.Doc
	err      error
	loaded   chan struct{} // closed once doc and err are set

	warmOnce sync.Once
	warming  sync.WaitGroup

	parseOnce sync.Once
	parses    bool
}

// doc is the held state of the old side s, read now the first time; nil
// when h is.
func (h *Held) doc(s Side) *heldDoc {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	name := firstName(s)
	d := h.docs[name]
	if d == nil {
		d = &heldDoc{side: readOnce(s), loaded: make(chan struct{})}
		h.docs[name] = d
	}
	return d
}

// load is loadOpenAPI of the whole old side, once. The first edit after
// an open waits for it, so where the document is cut it is parsed as two
// halves on two cores (openapi.Cut.Load).
func (d *heldDoc) load(o Options) (*openapi.Doc, error) {
	d.loadOnce.Do(func() {
		defer close(d.loaded)
		if c := d.cutDoc(); c != nil {
			if doc, ok := c.Load(firstName(d.side), d.side.Display); ok {
				d.doc = doc
				return
			}
		}
		d.doc, d.err = loadOpenAPI(d.side, o)
	})
	return d.doc, d.err
}

// cutDoc is the old document cut into chunks, once; nil when it is not
// one file a subset can be planned against.
func (d *heldDoc) cutDoc() *openapi.Cut {
	d.cutOnce.Do(func() {
		if b, ok := oneFile(d.side); ok {
			d.cut = openapi.NewCut(b)
		}
	})
	return d.cut
}

// Wait blocks until every base load started in the background has
// finished: the runs after it find each base loaded.
func (h *Held) Wait() {
	h.mu.Lock()
	docs := make([]*heldDoc, 0, len(h.docs))
	for _, d := range h.docs {
		docs = append(docs, d)
	}
	h.mu.Unlock()
	for _, d := range docs {
		d.warming.Wait()
	}
}

// parsed is parses of the old side, once: a new side identical to it
// parses as it does.
func (d *heldDoc) parsed() bool {
	d.parseOnce.Do(func() { d.parses = parses(d.side) })
	return d.parses
}

// plan is planSubset with the old side cut once.
func (d *heldDoc) plan(new Side) *openapi.Subset {
	nb, ok := oneFile(new)
	if d.cutDoc() == nil || !ok {
		return nil
	}
	sub, ok := openapi.PlanSubsetCut(d.cut, nb)
	if !ok {
		return nil
	}
	return sub
}

// restricted is the held whole load restricted to sub, the model a load of
// sub.OldText() gives; nil when it cannot stand for that load, or is not loaded
// yet.
func (d *heldDoc) restricted(sub *openapi.Subset, o Options) *openapi.Doc {
	if d == nil {
		return nil
	}
	// An edit made while the base is still loading (the first one, right
	// after the document was opened) does not wait for the whole load when
	// its plan blanks most chunks: the plan's old text is then loaded beside
	// the buffer instead. A plan keeping most of the document waits, as
	// loading its text would cost nearly the whole load, on the same cores.
	if !d.isLoaded() {
		d.warm(o)
		if 2*sub.Skipped >= sub.Chunks {
			return nil
		}
	}
	doc, err := d.load(o)
	if err != nil {
		return nil
	}
	r, ok := doc.Restrict(d.cut, sub)
	if !ok {
		return nil
	}
	return r
}

// isLoaded reports whether the whole old side's load has finished.
func (d *heldDoc) isLoaded() bool {
	select {
	case <-d.loaded:
		return true
	default:
		return false
	}
}

// patched is the new side of sub built from the held load (see
// openapi.Doc.Patch): only the chunks that differ from the base are
// parsed. nil when the held load is not there yet or cannot stand in.
// Patch's validation swaps shared schemas out and back, so it runs only
// in the load phase, where the old side reads the held load's maps alone.
func (d *heldDoc) patched(sub *openapi.Subset, new Side) *openapi.Doc {
	if d == nil || d.cut == nil || !d.isLoaded() || d.err != nil {
		return nil
	}
	p, ok := d.doc.Patch(d.cut, sub, firstName(new), new.Display)
	if !ok {
		return nil
	}
	return p
}

// warm starts loading the whole old side, once, in the background, when a
// later run will want it (a document a subset can be planned against): an
// edit a while after an open then finds it loaded.
func (d *heldDoc) warm(o Options) {
	d.warmOnce.Do(func() {
		if _, ok := oneFile(d.side); ok {
			d.warming.Go(func() { d.load(o) })
		}
	})
}

// oneFile is a side's document when it $refs no other file: only such a
// document is cut into chunks.
func oneFile(s Side) ([]byte, bool) {
	b, err := s.Src.ReadFile(firstName(s))
	if err != nil {
		return nil, false
	}
	files, ok := externalRefs(b)
	return b, ok && len(files) == 0
}
