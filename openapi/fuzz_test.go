package openapi_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// FuzzLoadDiff feeds two mutated documents through loading, the diff and
// every rule. Whatever the bytes, the run ends with findings or with an input
// error naming its file; it never panics. Seeds are every OpenAPI pair in
// testdata (rule cases, the story, the examples).
func FuzzLoadDiff(f *testing.F) {
	olds, _ := filepath.Glob("../testdata/rules/*/*/old.*")
	for _, old := range olds {
		if news, _ := filepath.Glob(filepath.Join(filepath.Dir(old), "new.*")); len(news) == 1 {
			addPair(f, old, news[0])
		}
	}
	addPair(f, "../testdata/story/v1.yaml", "../testdata/story/v2-bad.yaml")
	addPair(f, "../testdata/story/v3.yaml", "../testdata/story/v4.yaml")
	addPair(f, "../testdata/examples/tickets-v1.yaml", "../testdata/examples/tickets-v2.yaml")
	reg := rules.Default()
	f.Fuzz(func(t *testing.T, old, new []byte) {
		src := source.FS{FS: fstest.MapFS{"old.yaml": {Data: old}, "new.yaml": {Data: new}}, Name: "fuzz"}
		o := pipeline.Options{Registry: reg, Settings: &rules.Settings{},
			// Small limits keep each run fast; the limits have their own tests.
			Limits: limits.Limits{FileSize: 1 << 20, Depth: 64, Files: 10}}
		_, err := pipeline.Diff(pipeline.Side{Src: src, Files: []string{"old.yaml"}},
			pipeline.Side{Src: src, Files: []string{"new.yaml"}}, o)
		if err != nil && !source.Named(err) {
			t.Fatalf("error is not an input error naming its file: %T %v", err, err)
		}
	})
}

func addPair(f *testing.F, old, new string) {
	a, err := os.ReadFile(old)
	if err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(new)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(a, b)
}
