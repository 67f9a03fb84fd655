package limits

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/corpus"
	"gopkg.in/yaml.v3"
)

// TestJSONShapeAgreesWithScan holds the tokenizer's shape of JSON to the
// line scan's on every YAML document of the repository's testdata written
// as JSON, pretty and minified: the same counts under limits each document
// passes, the same refusals under limits it does not.
func TestJSONShapeAgreesWithScan(t *testing.T) {
	var texts [][]byte
	filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var v any
		if yaml.Unmarshal(b, &v) != nil {
			return nil
		}
		pretty, err1 := json.MarshalIndent(jsonable(v), "", "  ")
		flat, err2 := json.Marshal(jsonable(v))
		if err1 == nil && err2 == nil && pretty[0] == '{' {
			texts = append(texts, pretty, flat)
		}
		return nil
	})
	if len(texts) < 100 {
		t.Fatalf("%d documents: the testdata was not found", len(texts))
	}
	for _, b := range texts {
		got, ok := jsonShape(b, 64, 1<<20)
		if !ok {
			t.Fatalf("jsonShape refused %s", b[:min(len(b), 200)])
		}
		// The line scan counts an empty [] or {} as an element, an
		// upper bound; the tokens count what a parser builds.
		want := Scan(b, 64, 1<<20)
		if got.Elements > want.Elements {
			t.Errorf("%d elements, more than the line scan's %d", got.Elements, want.Elements)
		}
		want.Elements = got.Elements
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s:\n(-scan +tokens)\n%s", b[:min(len(b), 200)], diff)
		}
		// Where a limit stops the read, both refuse, and at the same
		// line for depth. The partial counts there are not used. The
		// widest object is placed at the key past the limit, where the
		// line scan may name the line before it.
		for _, lim := range [][2]int{{3, 1 << 20}, {64, 3}, {5, 5}} {
			got, _ := jsonShape(b, lim[0], lim[1])
			want := Scan(b, lim[0], lim[1])
			if got.DeepLine != want.DeepLine || (got.WideLine > 0) != (want.WideLine > 0) {
				t.Errorf("limits %v: deep %d, wide %d; the line scan's %d, %d", lim, got.DeepLine, got.WideLine, want.DeepLine, want.WideLine)
			}
		}
	}
}

// TestJSONShapeLeavesToScan: what is not one JSON value read whole is
// left to the line scan.
func TestJSONShapeLeavesToScan(t *testing.T) {
	for _, text := range []string{`{"a": 1, "a": 2}`, `{"a": [1, 2,]}`, `{a: 1}`, `{"a": 1} {"b": 2}`, `{"a": 1`, "{\"a\": 1}\n---\n{}"} {
		if _, ok := jsonShape([]byte(text), 64, 1<<20); ok {
			t.Errorf("jsonShape read %q", text)
		}
	}
}

// jsonable turns YAML's decoded maps into JSON's.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
	}
	return v
}

// BenchmarkJSONShape: the guard's read of a JSON document by tokens
// (jsonDocShape) against what it replaces, the line scan and the duplicate
// key check, on Stripe's spec written as JSON (5 MB pretty): tokens/lines.
func BenchmarkJSONShape(b *testing.B) {
	var v any
	if err := yaml.Unmarshal(corpus.Text(b, "stripe-spec3-2023-09-12.yaml"), &v); err != nil {
		b.Fatal(err)
	}
	text, err := json.MarshalIndent(jsonable(v), "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	var tokens, lines time.Duration
	for b.Loop() {
		start := time.Now()
		if _, ok := jsonDocShape(text, DefaultDepth, DefaultKeys); !ok {
			b.Fatal("not read")
		}
		tokens += time.Since(start)
		start = time.Now()
		Scan(text, DefaultDepth, DefaultKeys)
		DuplicateKey(text)
		lines += time.Since(start)
	}
	b.ReportMetric(float64(tokens)/float64(lines), "tokens/lines")
}
