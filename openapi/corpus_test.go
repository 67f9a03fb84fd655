package openapi_test

import (
	"github.com/contractlint/contractlint/internal/corpus"

	"sync"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// stripe unpacks two corpus documents into a temporary directory and opens
// it as a source.
func stripe(tb testing.TB, a, b string) (source.Source, string, string) {
	tb.Helper()
	dir := tb.TempDir()
	corpus.Gunzip(tb, a, dir)
	corpus.Gunzip(tb, b, dir)
	src, err := source.OpenDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return src, a, b
}

func loadPair(tb testing.TB, src source.Source, a, b string) (*openapi.Doc, *openapi.Doc) {
	var od, nd *openapi.Doc
	var oerr, nerr error
	var wg sync.WaitGroup
	wg.Go(func() { od, oerr = openapi.Load(src, a, nil) })
	nd, nerr = openapi.Load(src, b, nil)
	wg.Wait()
	if oerr != nil || nerr != nil {
		tb.Fatal(oerr, nerr)
	}
	return od, nd
}

const (
	stripeOld  = "stripe-spec3-2023-02-13.yaml"
	stripePrev = "stripe-spec3-2023-09-11.yaml"
	stripeNew  = "stripe-spec3-2023-09-12.yaml"
)

// BenchmarkStripe measures diff + rules on real Stripe specs, reported as a
// ratio to the time it takes only to load both documents.
func BenchmarkStripe(b *testing.B) {
	for _, pair := range [][2]string{{stripeOld, stripeNew}, {stripePrev, stripeNew}, {stripeNew, stripeNew}} {
		b.Run(pair[0][13:23]+"_vs_"+pair[1][13:23], func(b *testing.B) {
			src, x, y := stripe(b, pair[0], pair[1])
			reg := rules.Default()
			var load, work time.Duration
			for b.Loop() {
				t0 := time.Now()
				od, nd := loadPair(b, src, x, y)
				t1 := time.Now()
				in := &rules.Input{Changes: openapi.Diff(od, nd), Old: od.Contract(), New: nd.Contract()}
				rules.Run(reg, &rules.Settings{}, rules.DiffRule, in)
				work += time.Since(t1)
				load += t1.Sub(t0)
			}
			b.ReportMetric(float64(work)/float64(load), "diff/load")
			b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "load-ms/op")
		})
	}
}
