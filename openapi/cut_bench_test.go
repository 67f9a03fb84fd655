package openapi

import (
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/places"
)

// BenchmarkCut: the cut of both sides of a real diff, the part of a plan
// that grows with the documents: Stripe's adjacent days and OpenAI's pair.
// "cut" is 1 when both sides were cut. cut/parse is the cut's time over a
// whole read of both texts by internal/places, timed in the same loop so
// that the machine's load weighs on both alike: the cut parses every part
// once however often it occurs, on every core, so it stays below a whole
// parse of both sides (see docs/performance.md).
func BenchmarkCut(b *testing.B) {
	for _, pair := range []struct{ name, old, new string }{
		{"stripe", "stripe-spec3-2023-09-11.yaml", "stripe-spec3-2023-09-12.yaml"},
		{"openai", "openai-openapi-1e5b3b1.yaml", "openai-openapi-855e5d4.yaml"},
	} {
		old, new := corpus.Text(b, pair.old), corpus.Text(b, pair.new)
		b.Run(pair.name, func(b *testing.B) {
			b.SetBytes(int64(len(old) + len(new)))
			b.ReportAllocs()
			made := 0.0
			var cutting, parsing time.Duration
			for b.Loop() {
				start := time.Now()
				if _, _, owhy, nwhy := cutPair(old, new); owhy == nil && nwhy == nil {
					made = 1
				}
				cutting += time.Since(start)
				start = time.Now()
				for _, t := range [][]byte{old, new} {
					if _, err := places.Read(t); err != nil {
						b.Fatal(err)
					}
				}
				parsing += time.Since(start)
			}
			b.ReportMetric(made, "cut")
			b.ReportMetric(float64(cutting)/float64(parsing), "cut/parse")
		})
	}
}
