package openapi

import (
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/places"
)

// BenchmarkCut: the cutter on one real document, the part of a plan that
// grows with the document: Stripe and OpenAI. The bytes are the document's;
// "cut" is 1 when a cut was made. cut/parse is the cutter's time over a
// read of the same text by internal/places, the parser-backed reader with
// places the plan would otherwise be made from, timed in the same loop so
// that the machine's load weighs on both alike: it is why the cutter reads
// lines (see docs/performance.md).
func BenchmarkCut(b *testing.B) {
	for _, name := range []string{"stripe-spec3-2023-09-12.yaml", "openai-openapi-855e5d4.yaml"} {
		text := corpus.Text(b, name)
		b.Run(strings.SplitN(name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			made := 0.0
			var cutting, parsing time.Duration
			for b.Loop() {
				start := time.Now()
				if _, why := cut(text); why == nil {
					made = 1
				}
				cutting += time.Since(start)
				start = time.Now()
				if _, err := places.Read(text); err != nil {
					b.Fatal(err)
				}
				parsing += time.Since(start)
			}
			b.ReportMetric(made, "cut")
			b.ReportMetric(float64(cutting)/float64(parsing), "cut/parse")
		})
	}
}
