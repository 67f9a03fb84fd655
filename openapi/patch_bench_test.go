package openapi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// BenchmarkPatchStripe is the language server's new side of one edit on
// Stripe's spec, the account schema's first integer made a number (a
// component nearly every operation reaches, so the plan keeps nearly every
// chunk): Patch, against loading the plan's text, alternately. Reported:
// patch/load, and the ns/op and allocations of Patch alone.
func BenchmarkPatchStripe(b *testing.B) {
	src, name, _ := stripe(b, stripeNew, stripeNew)
	text, err := src.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	at := regexp.MustCompile(`(?m)^ +type: integer$`).FindIndex(text)
	edited := string(text[:at[0]]) + strings.Replace(string(text[at[0]:at[1]]), "integer", "number", 1) + string(text[at[1]:])
	base, err := openapi.Load(src, name, nil)
	if err != nil {
		b.Fatal(err)
	}
	c := openapi.NewCut(text)
	dir := b.TempDir()
	plan, err := source.OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var patch, load time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s, ok := openapi.PlanSubsetCut(c, []byte(edited))
		if !ok {
			b.Fatal("no plan")
		}
		t0 := time.Now()
		if _, ok := base.Patch(c, s, name, nil); !ok {
			b.Fatal("Patch refused the edit")
		}
		patch += time.Since(t0)
		b.StopTimer()
		if err := os.WriteFile(filepath.Join(dir, name), s.NewText(), 0o644); err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		if _, err := openapi.Load(plan, name, nil); err != nil {
			b.Fatal(err)
		}
		load += time.Since(t0)
		b.StartTimer()
	}
	b.ReportMetric(float64(patch)/float64(load), "patch/load")
}
