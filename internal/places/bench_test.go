package places_test

import (
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/places"
)

// benchDocs are the real documents the benchmarks read, each with a
// schema to ask about.
var benchDocs = []struct{ name, schema string }{
	{"stripe-spec3-2023-09-12.yaml", "webhook_endpoint"},
	{"openai-openapi-855e5d4.yaml", "VectorStoreObject"},
}

// BenchmarkRead: a real document read and asked what the editor asks of it
// (a pointer into a schema's properties, every path's operations), to set
// against the line readers' benchmarks on the same documents
// (internal/limits BenchmarkScanCorpus, openapi BenchmarkCut, internal/lsp
// BenchmarkPlaces).
func BenchmarkRead(b *testing.B) {
	for _, c := range benchDocs {
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

// BenchmarkLazy: what an edit's findings ask of a document, through the
// lazy reader: a pointer into a schema's properties, the places of twenty
// operations (the most one diagnostic lists) and a removed schema's
// parent; lazy/whole is its
// time over the same questions asked of a whole parse, timed in the same
// loop so that the machine's load weighs on both alike.
func BenchmarkLazy(b *testing.B) {
	for _, c := range benchDocs {
		text := corpus.Text(b, c.name)
		d, err := places.Read(text)
		if err != nil {
			b.Fatal(err)
		}
		var ops [][]string
		for _, p := range d.Entries([]string{"paths"}) {
			for _, m := range d.Entries([]string{"paths", p.Key}) {
				ops = append(ops, []string{"paths", p.Key, m.Key})
			}
		}
		ops = ops[len(ops)/2:][:20]
		removed := []string{"components", "schemas", "no_such_schema"}
		b.Run(strings.SplitN(c.name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var lazy, whole time.Duration
			for b.Loop() {
				start := time.Now()
				l := places.NewLazy(text)
				if _, m := l.Find([]string{"components", "schemas", c.schema, "properties"}); m != 4 {
					b.Fatalf("matched %d of 4", m)
				}
				for _, op := range ops {
					if _, m := l.Find(op); m != 3 {
						b.Fatalf("%v: matched %d of 3", op, m)
					}
				}
				if _, m := l.Find(removed); m != 2 {
					b.Fatalf("removed schema: matched %d of 3", m)
				}
				lazy += time.Since(start)
				start = time.Now()
				d, err := places.Read(text)
				if err != nil {
					b.Fatal(err)
				}
				d.Find([]string{"components", "schemas", c.schema, "properties"})
				for _, op := range ops {
					d.Find(op)
				}
				d.Find(removed)
				whole += time.Since(start)
			}
			b.ReportMetric(float64(lazy)/float64(whole), "lazy/whole")
		})
	}
}
