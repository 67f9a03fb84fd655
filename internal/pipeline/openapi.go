package pipeline

import (
	"sync"

	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

func loadOpenAPI(s Side) (*openapi.Doc, error) {
	return openapi.Load(s.Src, firstName(s), s.Display)
}

// diffOpenAPI loads both documents at once: loading dominates the run.
func diffOpenAPI(old, new Side) (*rules.Input, error) {
	var od, nd *openapi.Doc
	var oerr, nerr error
	var wg sync.WaitGroup
	wg.Go(func() { od, oerr = loadOpenAPI(old) })
	nd, nerr = loadOpenAPI(new)
	wg.Wait()
	if oerr != nil {
		return nil, oerr
	}
	if nerr != nil {
		return nil, nerr
	}
	nc := nd.Contract()
	if err := openapi.IgnoreProblems(nc); err != nil {
		return nil, err
	}
	return &rules.Input{Changes: openapi.Diff(od, nd), Old: od.Contract(), New: nc}, nil
}

func lintOpenAPI(s Side) (*rules.Contract, error) {
	d, err := loadOpenAPI(s)
	if err != nil {
		return nil, err
	}
	c := d.Contract()
	return c, openapi.IgnoreProblems(c)
}
