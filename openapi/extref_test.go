package openapi_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/openapi"
)

// dataRefDoc is a spec whose $refs sit everywhere DataRefLines tells apart:
// under x-codeSamples (data), in a property and a schema named x-… (followed),
// in examples' values (data, unless "examples" names a property), in a tag's
// description (data), through an anchor, in flow style, in a list and
// below an extension larger than one parse (x-big); long
// descriptions make each operation larger than what places.Lazy parses
// without cutting, so the entries are found by the cut.
func dataRefDoc() []byte {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n")
	long := strings.Repeat("words of a long description ", 40)
	for i := range 12 {
		fmt.Fprintf(&b, "  /p%d:\n    post:\n      description: %s\n", i, long)
		fmt.Fprintf(&b, "      x-codeSamples:\n        - lang: PHP\n          source:\n            $ref: examples/p%d.php\n", i)
		fmt.Fprintf(&b, "      x-flow: {$ref: flow/p%d.json}\n", i)
		fmt.Fprintf(&b, "      x-big:\n        about: %s\n        inner:\n          $ref: big/p%d.md\n", long, i)
		fmt.Fprintf(&b, "      requestBody:\n        content:\n          application/json:\n            schema:\n              $ref: schemas/p%d.yaml\n", i)
		fmt.Fprintf(&b, "            examples:\n              e%d:\n                value:\n                  $ref: examples/e%d.json\n", i, i)
		fmt.Fprintf(&b, "      responses:\n        '200':\n          description: ok\n          x-anchored: &a%d\n            $ref: anchored/p%d.md\n", i, i)
	}
	fmt.Fprintf(&b, "components:\n  schemas:\n    x-named:\n      description: %s\n      $ref: schemas/named.yaml\n", long)
	fmt.Fprintf(&b, "    S:\n      description: %s\n      properties:\n        x-prop:\n          $ref: schemas/prop.yaml\n", long)
	b.WriteString("        examples:\n          type: object\n          properties:\n            value:\n              $ref: schemas/value.yaml\n")
	b.WriteString("tags:\n  - name: T\n    description:\n      $ref: ./markdown/t.md\n")
	return []byte(b.String())
}

// TestDataRefLinesOfLines holds DataRefLines asked about some lines to
// its whole parse's answer, line by line, on the document above and on
// every YAML document of the repository's testdata.
func TestDataRefLinesOfLines(t *testing.T) {
	texts := map[string][]byte{"dataRefDoc": dataRefDoc()}
	filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte("$ref")) {
				texts[path] = b
			}
		}
		return nil
	})
	asked, data := 0, 0
	for name, b := range texts {
		whole := openapi.DataRefLines(b)
		for i, line := range bytes.Split(b, []byte("\n")) {
			if !bytes.Contains(line, []byte("$ref")) {
				continue
			}
			asked++
			if whole[i+1] {
				data++
			}
			if got := openapi.DataRefLines(b, i+1)[i+1]; got != whole[i+1] {
				t.Errorf("%s:%d: asked for the line, data %v; the whole parse says %v", name, i+1, got, whole[i+1])
			}
		}
	}
	if data == 0 || data == asked {
		t.Fatalf("%d of %d lines asked are data: the test tells nothing apart", data, asked)
	}
	doc := dataRefDoc()
	// Line 10 is p0's x-codeSamples $ref: its entry is read, no other.
	if got := openapi.DataRefLines(doc, 10); !got[10] || len(got) != 1 {
		t.Errorf("asked for line 10, got %v: want it alone, the one $ref of its entry", got)
	}
}

// BenchmarkDataRefLines reports the cost of asking about a few lines (the
// $refs to files a tree leaves out) as a ratio to the whole parse, on the
// document above (30 KB, twelve operations), asking for its twelve
// x-codeSamples lines.
func BenchmarkDataRefLines(b *testing.B) {
	doc := dataRefDoc()
	var lines []int
	for i, l := range bytes.Split(doc, []byte("\n")) {
		if bytes.Contains(l, []byte("examples/p")) {
			lines = append(lines, i+1)
		}
	}
	var some, whole time.Duration
	for b.Loop() {
		start := time.Now()
		openapi.DataRefLines(doc, lines...)
		some += time.Since(start)
		start = time.Now()
		openapi.DataRefLines(doc)
		whole += time.Since(start)
	}
	b.ReportMetric(float64(some)/float64(whole), "lines/whole")
	b.ReportMetric(0, "ns/op")
}
