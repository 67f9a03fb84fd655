package limits_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/places"
	"gopkg.in/yaml.v3"
)

// BenchmarkScan: the pre-parse scans (depth, elements, keys, kinds) run on
// every file a side reads, before the parser; reported as a ratio of the
// scan's time to a yaml.v3 parse of the same text, which the loader pays
// anyway. The .proto scan is reported against the YAML scan of text of the
// same size.
func BenchmarkScan(b *testing.B) {
	var doc, proto strings.Builder
	doc.WriteString("openapi: 3.0.3\npaths:\n")
	proto.WriteString("syntax = \"proto3\";\n")
	for i := range 3000 {
		fmt.Fprintf(&doc, "  /items%d:\n    get:\n      responses: {\"200\": {description: ok}}\n", i)
		fmt.Fprintf(&proto, "message M%d {\n  string a = 1;\n  int64 b = 2 [deprecated = true];\n  reserved 3, 4;\n}\n", i)
	}
	doc.WriteString("components:\n  schemas:\n")
	for i := range 3000 {
		fmt.Fprintf(&doc, "    S%d:\n      type: object\n      properties:\n        a: {type: string}\n        b: {type: integer}\n", i)
	}
	text, ptext := []byte(doc.String()), []byte(proto.String())
	var scan, parse, pscan time.Duration
	for range b.N {
		start := time.Now()
		limits.Scan(text, limits.DefaultDepth, limits.DefaultKeys)
		scan += time.Since(start)
		start = time.Now()
		limits.ProtoShape(ptext, limits.DefaultDepth)
		pscan += time.Since(start)
		start = time.Now()
		var n yaml.Node
		if err := yaml.Unmarshal(text, &n); err != nil {
			b.Fatal(err)
		}
		parse += time.Since(start)
	}
	b.ReportMetric(float64(scan)/float64(parse), "scan/parse")
	b.ReportMetric(float64(pscan)/float64(scan)*float64(len(text))/float64(len(ptext)), "proto/yaml-per-byte")
}

// BenchmarkScanCorpus: the pre-parse scan of real contracts, the one the
// guard runs on every file a side reads: Stripe (block YAML, 4 MB) and
// OpenAI (block YAML, 2.9 MB). The bytes are the document's; scan/parse is
// the scan's time over a parse of the same text by internal/places, the
// one reader the limits would otherwise read through, timed in the same
// loop so that the machine's load weighs on both alike.
func BenchmarkScanCorpus(b *testing.B) {
	for _, name := range []string{"stripe-spec3-2023-09-12.yaml", "openai-openapi-855e5d4.yaml"} {
		text := corpus.Text(b, name)
		b.Run(strings.SplitN(name, "-", 2)[0], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var scan, parse time.Duration
			for b.Loop() {
				start := time.Now()
				limits.Scan(text, limits.DefaultDepth, limits.DefaultKeys)
				scan += time.Since(start)
				start = time.Now()
				if _, err := places.Read(text); err != nil {
					b.Fatal(err)
				}
				parse += time.Since(start)
			}
			b.ReportMetric(float64(scan)/float64(parse), "scan/parse")
		})
	}
}

// BenchmarkScanHostile: why the scan runs before any parser rather than
// counting a parse's nodes. On text whose every few bytes are a node (one
// list of one-character items, flow and block), the parser builds every
// node before anything could count them: reported are the scan's time
// over places.Read's (yaml v4) on the same text, and the bytes that parse
// allocates per byte of text, which at the default file size (64 MiB)
// would be far past the memory budget; the scan allocates nothing.
func BenchmarkScanHostile(b *testing.B) {
	for _, tc := range []struct{ name, text string }{
		{"flow", "[" + strings.Repeat("a,", 64<<10) + "a]\n"},
		{"block", strings.Repeat("- a\n", 256<<10)},
	} {
		text := []byte(tc.text)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var scan, parse time.Duration
			var allocated uint64
			var before, after runtime.MemStats
			for b.Loop() {
				start := time.Now()
				limits.Scan(text, limits.DefaultDepth, limits.DefaultKeys)
				scan += time.Since(start)
				runtime.ReadMemStats(&before)
				start = time.Now()
				if _, err := places.Read(text); err != nil {
					b.Fatal(err)
				}
				parse += time.Since(start)
				runtime.ReadMemStats(&after)
				allocated += after.TotalAlloc - before.TotalAlloc
			}
			b.ReportMetric(float64(scan)/float64(parse), "scan/parse")
			b.ReportMetric(float64(allocated)/float64(b.N)/float64(len(text)), "parse-alloc/byte")
		})
	}
}
