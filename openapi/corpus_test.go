package openapi_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// TestMain runs the tests with the collector's target raised: most of
// their CPU is loading whole corpus documents (Stripe, OpenAI) (see corpus.LoadingGC).
func TestMain(m *testing.M) {
	corpus.LoadingGC()
	os.Exit(m.Run())
}

// stripe unpacks two corpus documents into a temporary directory and opens
// it as a source.
func stripe(tb testing.TB, a, b string) (source.Source, string, string) {
	tb.Helper()
	dir := tb.TempDir()
	for _, name := range []string{a, b} {
		if name == stripeOneLine {
			oneLine(tb, dir)
			continue
		}
		corpus.Gunzip(tb, name, dir)
	}
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
	// stripeOneLine is stripeNew with one line changed (see oneLine).
	stripeOneLine = "one-line"
)

// oneLine writes stripeOneLine into dir: stripeNew with the limit parameter
// of GET /v1/treasury/received_debits turned from integer to string, the
// one-line change .ci/side-by-side's stripe-one-line case makes.
func oneLine(tb testing.TB, dir string) {
	tb.Helper()
	corpus.Gunzip(tb, stripeNew, dir)
	text, err := os.ReadFile(filepath.Join(dir, stripeNew))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(text)
	at := strings.Index(s, "\n  /v1/treasury/received_debits:\n")
	i := strings.Index(s[max(at, 0):], "type: integer")
	if at < 0 || i < 0 {
		tb.Fatal("stripe-one-line: the received_debits limit parameter is not in the corpus document")
	}
	i += at
	s = s[:i] + "type: string" + s[i+len("type: integer"):]
	if err := os.WriteFile(filepath.Join(dir, stripeOneLine), []byte(s), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStripe measures a diff as the CLI runs it (scan, subset or whole
// load with validation, diff, lowering, rules) on real Stripe specs, against
// the floor: kin-openapi loading both whole documents with origins and
// nothing else. total/floor is the run against that floor (a subset load
// goes under it: the work grows with the change), whole/floor the same run
// loading the whole documents, total/whole the subset's gain; the three are
// timed alternately in each iteration. total/kept is the run against the
// parse of the chunks the plan keeps (keptLoad). The phases of the subset
// run are reported too, and the chunks it left out.
func BenchmarkStripe(b *testing.B) {
	for _, pair := range [][2]string{{stripeOld, stripeNew}, {stripePrev, stripeNew}, {stripeNew, stripeNew}, {stripeNew, stripeOneLine}} {
		b.Run(day(pair[0])+"_vs_"+day(pair[1]), func(b *testing.B) {
			src, x, y := stripe(b, pair[0], pair[1])
			o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
			run := func(o pipeline.Options) {
				if _, err := pipeline.Diff(pipeline.Side{Src: src, Files: []string{x}}, pipeline.Side{Src: src, Files: []string{y}}, o); err != nil {
					b.Fatal(err)
				}
			}
			var floor, total, whole, kept time.Duration
			phases := map[string]time.Duration{}
			ob, oerr := src.ReadFile(x)
			nb, nerr := src.ReadFile(y)
			if oerr != nil || nerr != nil {
				b.Fatal(oerr, nerr)
			}
			b.ReportAllocs()
			w := o
			w.Whole = true
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				bareLoad(b, src, x, y)
				floor += time.Since(t0)
				kept += keptLoad(b, ob, nb)
				o.Stats = &pipeline.Stats{}
				// Whichever runs first pays for the floor's garbage: the
				// order alternates.
				for _, r := range [2]int{i % 2, 1 - i%2} {
					t := time.Now()
					if r == 0 {
						run(o)
						total += time.Since(t)
					} else {
						run(w)
						whole += time.Since(t)
					}
				}
				for _, p := range o.Stats.Phases {
					phases[p.Name] += p.Time
				}
			}
			b.ReportMetric(float64(total)/float64(floor), "total/floor")
			if kept > 0 {
				b.ReportMetric(float64(total)/float64(kept), "total/kept")
			}
			b.ReportMetric(float64(whole)/float64(floor), "whole/floor")
			b.ReportMetric(float64(total)/float64(whole), "total/whole")
			if phases["load"] > 0 { // a document against itself is not loaded at all
				b.ReportMetric(float64(phases["diff"]+phases["rules"])/float64(phases["load"]), "diff+rules/load")
			}
			b.ReportMetric(float64(phases["scan"])/float64(floor), "scan/floor")
			b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "floor-ms")
			b.ReportMetric(float64(o.Stats.ChunksSkipped), "chunks-skipped")
		})
	}
}

// day names a corpus document by its date.
func day(name string) string {
	return strings.TrimSuffix(strings.TrimPrefix(name, "stripe-spec3-"), ".yaml")
}

// bareLoad is the floor: kin-openapi reading both documents at once with
// origin tracking, no validation, no diff.
func bareLoad(tb testing.TB, src source.Source, a, b string) {
	var wg sync.WaitGroup
	for _, name := range []string{a, b} {
		wg.Go(func() {
			data, err := src.ReadFile(name)
			if err != nil {
				tb.Error(err)
				return
			}
			l := openapi3.NewLoader()
			l.IncludeOrigin = true
			if _, err := l.LoadFromData(data); err != nil {
				tb.Error(err)
			}
		})
	}
	wg.Wait()
}

// keptLoad times the parse a plan of old and new cannot do without, on
// both cores: the old side's kept chunks (what the changes reach and what
// they $ref, which the diff and the lint rules read), the chunks of the new
// side that changed being parsed beside them. 0 for a document against
// itself, which is not loaded at all.
func keptLoad(tb testing.TB, old, new []byte) time.Duration {
	if bytes.Equal(old, new) {
		return 0
	}
	s, ok := openapi.PlanSubset(old, new)
	if !ok {
		tb.Fatal("no subset planned")
	}
	t0 := time.Now()
	if _, ok := s.LoadOld("old.yaml", nil); !ok {
		tb.Fatal("LoadOld refused the plan")
	}
	return time.Since(t0)
}

// BenchmarkPlanStripe cuts two adjacent days of Stripe's spec into chunks
// and plans their subset: the scan phase's work once both are read, one
// core per side. The bytes are both documents'.
func BenchmarkPlanStripe(b *testing.B) {
	src, x, y := stripe(b, stripePrev, stripeNew)
	ob, err := src.ReadFile(x)
	if err != nil {
		b.Fatal(err)
	}
	nb, err := src.ReadFile(y)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(ob) + len(nb)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := openapi.PlanSubset(ob, nb); !ok {
			b.Fatal("no subset planned")
		}
	}
}
