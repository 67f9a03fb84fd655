package openapi

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
)

// BenchmarkCut: the cutter on one real document, the part of a plan that
// grows with the document: Stripe (cut) and OpenAI (the cutter gives up,
// so no plan is made). The bytes are the document's; "cut" is 1 when a cut
// was made.
func BenchmarkCut(b *testing.B) {
	for _, name := range []string{"stripe-spec3-2023-09-12.yaml", "openai-openapi-855e5d4.yaml"} {
		text := corpus.Text(b, name)
		b.Run(strings.SplitN(name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			made := 0.0
			for b.Loop() {
				if _, why := cut(text); why == nil {
					made = 1
				}
			}
			b.ReportMetric(made, "cut")
		})
	}
}
