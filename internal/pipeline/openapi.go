package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

func loadOpenAPI(s Side, o Options) (*openapi.Doc, error) {
	load := openapi.Load
	if o.loadDoc != nil {
		load = o.loadDoc
	}
	d, err := load(s.Src, firstName(s), s.Display)
	if err == nil && o.Settings != nil && o.Settings.Strict {
		err = d.StrictError()
	}
	return d, s.labelled(err)
}

// diffOpenAPI loads both documents at once: loading dominates the run. Two
// documents identical with every file they $ref are not loaded at all. With
// subset set (a diff whose findings Diff checks), only the chunks a change
// can reach are loaded (see openapi.PlanSubset); the Subset returned is nil
// when the whole documents were.
//
// With o.Held, the old side is read, cut and loaded whole once across runs,
// and each run's old side is that load (restricted to the subset); only the
// new side is parsed.
func diffOpenAPI(old, new Side, o Options, subset bool) (*rules.Input, *openapi.Subset, error) {
	var same bool
	var sub *openapi.Subset
	held := o.Held.doc(old)
	o.Stats.measure("scan", func() error {
		// Evidence is bound to, and config ignores (accepted changes)
		// count their matches over, the whole contracts; --strict refuses
		// a problem anywhere in them.
		whole := o.Readers != nil || o.Whole || o.Compared != nil || o.Settings != nil && (len(o.Settings.Accepts) > 0 || o.Settings.Strict)
		cut := subset && !whole
		if held != nil {
			old = held.side
		}
		if cut {
			// Each document is read once, for the plan and the load; the
			// limits' scan of each is a core's work.
			var wg sync.WaitGroup
			if held == nil {
				wg.Go(func() { old = readOnce(old) })
			}
			new = readOnce(new)
			wg.Wait()
		}
		// Identical documents are not loaded, but one that does not even
		// parse is still the input error lint would make it.
		if cut && held == nil {
			var why string
			sub, why, same = planSubset(old, new)
			if sub == nil && !same {
				same = sameOpenAPI(old, new) // what no plan could tell
			}
			same = same && parses(new)
			if !same {
				o.Stats.noPlan(why)
			}
			return nil
		}
		same = !whole && sameOpenAPI(old, new) && (held == nil && parses(new) || held != nil && held.parsed())
		switch {
		case same && held != nil:
			held.warm(o)
		case !same && cut && held != nil:
			sub = held.plan(new)
		}
		return nil
	})
	if same {
		o.Stats.files(0, 1)
		return &rules.Input{}, nil, nil
	}
	if err := o.cancelled(); err != nil {
		return nil, nil, err
	}
	o.Stats.files(1, 0)
	if sub != nil {
		loadOld, loadNew := subsetLoads(old, new, sub, held, o)
		// A plan that leaves nothing out loads the whole documents: their
		// problems are theirs to report.
		in, err := compareOpenAPI(old, loadOld, new, loadNew, o, sub)
		o.Stats.chunks(sub)
		if err == nil || o.cancelled() != nil {
			return in, sub, err
		}
		o.Stats.rerun()
		// What the subset cannot judge alone (a validation problem, an
		// error) is the whole documents' to report.
	}
	oldWhole := func() (*openapi.Doc, error) { return loadOpenAPI(old, o) }
	if held != nil {
		oldWhole = func() (*openapi.Doc, error) { return held.load(o) }
	}
	in, err := compareOpenAPI(old, oldWhole, new, func() (*openapi.Doc, error) { return loadOpenAPI(new, o) }, o, nil)
	return in, nil, err
}

// subsetLoads are the loads of a plan's two sides. With a held old side,
// the old side is the held load restricted to the plan, and the new side
// is patched from the held load, parsing only the chunks that changed.
// Otherwise the old side's kept chunks are parsed on both cores
// (Subset.LoadOld) and the new side is patched from that load. Each falls
// back to loading the plan's text.
func subsetLoads(old, new Side, sub *openapi.Subset, held *heldDoc, o Options) (loadOld, loadNew func() (*openapi.Doc, error)) {
	// The plan's texts are blanked only when a load falls back to them.
	textOld := func() (*openapi.Doc, error) { return loadOpenAPI(withText(old, sub.OldText(), nil), o) }
	textNew := func() (*openapi.Doc, error) { return loadOpenAPI(withText(new, sub.NewText(), nil), o) }
	if held != nil {
		loadOld = textOld
		if r := held.restricted(sub, o); r != nil {
			loadOld = func() (*openapi.Doc, error) { return r, nil }
		}
		return loadOld, func() (*openapi.Doc, error) {
			if p := held.patched(sub, new); p != nil {
				return p, nil
			}
			return textNew()
		}
	}
	// The new side's changed chunks parse beside the old side's halves:
	// they need no base until they are assembled.
	var base *openapi.Doc
	loaded := make(chan struct{})
	split := func() (*openapi.Doc, error) {
		d, ok := sub.LoadOld(firstName(old), old.Display)
		if ok {
			base = d
		}
		close(loaded) // the new side's load starts now, if it cannot be patched
		if ok {
			return d, nil
		}
		return textOld()
	}
	patch := func() (*openapi.Doc, error) {
		e, parsed := sub.ParseEdit(firstName(new))
		<-loaded
		if base != nil && parsed {
			if p, ok := base.PatchEdit(sub.Cut(), e, new.Display); ok {
				return p, nil
			}
		}
		return textNew()
	}
	return split, patch
}

// parses reports whether a side's root document reads as YAML or JSON.
func parses(s Side) bool {
	b, err := s.Src.ReadFile(firstName(s))
	return err == nil && openapi.Parse(b) != nil
}

// errPartial stops a subset load the whole documents must decide: one whose
// sides kin-openapi finds invalid in different ways (a problem may involve
// what was left out, and a diff reports the problems the new side adds).
var errPartial = errors.New("a subset load needs the whole documents")

// sameProblems reports whether two subset loads have the same problems, by
// what they say (a diff compares them so, wherever they are). Parts left out
// are identical on both sides, so the whole documents add the same problems
// to each, and a diff of them reports what a diff of the subsets does:
// nothing. A blemish both sides carry (Dropbox Sign's tag descriptions
// written as $refs) thus keeps the plan.
func sameProblems(o, n []rules.Invalid) bool {
	msgs := func(ps []rules.Invalid) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Msg
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(msgs(o), msgs(n))
}

// compareOpenAPI loads the old side with loadOld (a held load, or the
// side's text) beside the new one with loadNew, and diffs them; old and new
// name the sides in errors.
func compareOpenAPI(old Side, loadOld func() (*openapi.Doc, error), new Side, loadNew func() (*openapi.Doc, error), o Options, sub *openapi.Subset) (*rules.Input, error) {
	partial := sub != nil && sub.Skipped > 0
	st := o.Stats
	var od, nd *openapi.Doc
	err := st.measure("load", func() error {
		var oerr, nerr error
		var wg sync.WaitGroup
		wg.Go(func() { od, oerr = loadOld() })
		nd, nerr = loadNew()
		wg.Wait()
		if err := joinSides(old, new, oerr, nerr); err != nil {
			return err
		}
		if partial && !sameProblems(od.Problems, nd.Problems) {
			return errPartial
		}
		return o.cancelled()
	})
	if err != nil {
		return nil, err
	}
	in := &rules.Input{}
	err = st.measure("diff", func() error {
		// Lowering reads the documents as the diff does; on two cores the
		// three run side by side.
		var wg sync.WaitGroup
		wg.Go(func() { in.Old = od.Contract() })
		wg.Go(func() { in.New = nd.Contract() })
		in.Changes = openapi.Diff(od, nd)
		wg.Wait()
		if partial && rules.KeyConventionUnseen(in.New, sub.MayDeclareKey) && !wholeConvention(in, od, nd, sub) {
			// Whether the API takes a key, and on what share of its
			// operations, decides the idempotency rules' verdict; the
			// operations a subset left out may change it.
			return errPartial
		}
		return openapi.IgnoreProblems(in.New)
	})
	return in, err
}

// wholeConvention gives each side's contract the operations the subset
// left out, read from the plan's index of the whole documents, so that the
// key convention counts every operation; false, and the contracts as they
// were, when there is no index or the convention's verdict on an operation
// left out differs between the sides (a finding the subset cannot make).
// The contracts are copies: a held load's is shared across runs.
func wholeConvention(in *rules.Input, od, nd *openapi.Doc, sub *openapi.Subset) bool {
	oi, ni, ok := sub.Operations()
	if !ok {
		return false
	}
	o, n := *in.Old, *in.New
	o.Convention, n.Convention = od.Convention(in.Old, oi), nd.Convention(in.New, ni)
	if !rules.KeyConventionKept(&o, &n) {
		return false
	}
	in.Old, in.New = &o, &n
	return true
}

// planSubset reads both documents for openapi.Plan, or for
// openapi.PlanFiles when a side $refs other files; nil, and why (for
// --stats: a user whose contract loads whole can see what in it stops
// the plan), when the plan does not apply. same is true when the sides
// are found the same bytes, every file they reach included: a split
// spec's files are read once, for the plan and for that answer alike.
// Where no plan is made and same is false, the caller asks sameOpenAPI.
func planSubset(old, new Side) (*openapi.Subset, string, bool) {
	ob, err := old.Src.ReadFile(firstName(old))
	if err != nil {
		return nil, "no plan: the old document is not read", false
	}
	nb, err := new.Src.ReadFile(firstName(new))
	if err != nil {
		return nil, "no plan: the new document is not read", false
	}
	for i, b := range [][]byte{ob, nb} {
		if files, ok := externalRefs(b); !ok {
			return nil, "no plan: a $ref to a URL or an absolute path, or one not read, in " + []Side{old, new}[i].display(firstName([]Side{old, new}[i])), false
		} else if len(files) > 0 {
			sub, why, same := planFiles(old, new, ob, nb)
			return sub, whyText(old, new, why), same
		}
	}
	if bytes.Equal(ob, nb) {
		return nil, "", true
	}
	sub, why := openapi.Plan(ob, nb)
	if sub != nil {
		// One file each: the index reads the root alone.
		only := func(name string, b []byte) func(string) ([]byte, bool) {
			return func(f string) ([]byte, bool) { return b, f == name }
		}
		on, nn := firstName(old), firstName(new)
		sub.IndexWith(func() ([]openapi.IndexedOp, []openapi.IndexedOp, bool) {
			return indexSides(on, only(on, ob), nn, only(nn, nb))
		})
	}
	return sub, whyText(old, new, why), false
}

// whyText is why as --stats says it, "" for none.
func whyText(old, new Side, why *openapi.NoPlan) string {
	if why == nil {
		return ""
	}
	at := old
	if why.New {
		at = new
	}
	if why.Line == 0 {
		return "no plan: " + why.Reason
	}
	return fmt.Sprintf("no plan: %s at %s:%d", why.Reason, at.display(firstName(at)), why.Line)
}

// readOnce is s with its document read now, and served from memory after.
func readOnce(s Side) Side {
	b, err := s.Src.ReadFile(firstName(s))
	return withText(s, b, err)
}

// withText is s with its document's bytes (or the error reading them)
// replaced by text (or err).
func withText(s Side, text []byte, err error) Side {
	if t, ok := s.Src.(textSource); ok {
		s.Src = t.Source
	}
	s.Src = textSource{Source: s.Src, name: firstName(s), text: text, err: err}
	return s
}

// textSource serves one file from memory, everything else from Source.
type textSource struct {
	source.Source
	name string
	text []byte
	err  error
}

// ReadFile serves the document under any spelling of its name: the loader
// asks for it cleaned ("a.yaml" for "./a.yaml").
func (t textSource) ReadFile(name string) ([]byte, error) {
	if name == t.name || cleanName(name) == cleanName(t.name) {
		return t.text, t.err
	}
	return t.Source.ReadFile(name)
}

func cleanName(name string) string {
	if c, err := source.Clean(name); err == nil {
		return c
	}
	return name
}

func lintOpenAPI(s Side, o Options) (*rules.Contract, error) {
	d, err := loadOpenAPI(s, o)
	if err != nil {
		return nil, err
	}
	c := d.Contract()
	return c, openapi.IgnoreProblems(c)
}
