package lsp

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
)

// BenchmarkPlaces: what the server reads of a buffer to place findings that
// do not place themselves, on real documents: a fresh reader (one edit's),
// a pointer into the last schema's properties and every operation's line.
func BenchmarkPlaces(b *testing.B) {
	cases := []struct{ name, ptr string }{
		{"stripe-spec3-2023-09-12.yaml", "#/components/schemas/webhook_endpoint/properties/url"},
		{"openai-openapi-855e5d4.yaml", "#/components/schemas/VectorStoreObject/properties/status"},
	}
	for _, c := range cases {
		text := string(corpus.Text(b, c.name))
		b.Run(strings.SplitN(c.name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				p := newPlaces(text)
				if _, matched := p.pointer(c.ptr); matched != 5 {
					b.Fatalf("%s: matched %d segments of 5", c.ptr, matched)
				}
				if len(p.operations()) == 0 {
					b.Fatal("no operation placed")
				}
			}
		})
	}
}
