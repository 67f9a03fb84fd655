package pipeline

import (
	"cmp"
	"sync"

	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

func loadOpenAPI(s Side, o Options) (*openapi.Doc, error) {
	d, err := openapi.Load(s.Src, firstName(s), s.Display)
	if err == nil && o.Settings != nil && o.Settings.Strict {
		err = d.StrictError()
	}
	return d, err
}

// diffOpenAPI loads both documents at once: loading dominates the run. Two
// documents identical with every file they $ref are not loaded at all.
func diffOpenAPI(old, new Side, o Options) (*rules.Input, error) {
	var same bool
	o.Stats.measure("scan", func() error {
		same = o.Readers == nil && !o.Whole && sameOpenAPI(old, new)
		return nil
	})
	if same {
		o.Stats.files(0, 1)
		return &rules.Input{}, nil
	}
	o.Stats.files(1, 0)
	st := o.Stats
	var od, nd *openapi.Doc
	err := st.measure("load", func() error {
		var oerr, nerr error
		var wg sync.WaitGroup
		wg.Go(func() { od, oerr = loadOpenAPI(old, o) })
		nd, nerr = loadOpenAPI(new, o)
		wg.Wait()
		return cmp.Or(oerr, nerr)
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
		return openapi.IgnoreProblems(in.New)
	})
	return in, err
}

func lintOpenAPI(s Side, o Options) (*rules.Contract, error) {
	d, err := loadOpenAPI(s, o)
	if err != nil {
		return nil, err
	}
	c := d.Contract()
	return c, openapi.IgnoreProblems(c)
}
