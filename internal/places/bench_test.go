package places_test

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/places"
)

// BenchmarkRead: a real document read and asked what the editor asks of it
// (a pointer into a schema's properties, every path's operations), to set
// against the line readers' benchmarks on the same documents
// (internal/limits BenchmarkScanCorpus, openapi BenchmarkCut, internal/lsp
// BenchmarkPlaces).
func BenchmarkRead(b *testing.B) {
	cases := []struct{ name, schema string }{
		{"stripe-spec3-2023-09-12.yaml", "webhook_endpoint"},
		{"openai-openapi-855e5d4.yaml", "VectorStoreObject"},
	}
	for _, c := range cases {
		text := corpus.Text(b, c.name)
		b.Run(strings.SplitN(c.name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				d, err := places.Read(text)
				if err != nil {
					b.Fatal(err)
				}
				if _, m := d.Find([]string{"components", "schemas", c.schema, "properties"}); m != 4 {
					b.Fatalf("matched %d of 4", m)
				}
				ops := 0
				for _, p := range d.Entries([]string{"paths"}) {
					ops += len(d.Entries([]string{"paths", p.Key}))
				}
				if ops == 0 {
					b.Fatal("no operation")
				}
			}
		})
	}
}
