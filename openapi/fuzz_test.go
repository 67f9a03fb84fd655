package openapi_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

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

// FuzzSubsetSameFindings: on mutated pairs, a diff loading only the chunks a
// change can reach reports exactly what the whole load reports. Where the
// whole load refuses a document, the subset may accept it: a part left out
// is identical on both sides and not read (see openapi.PlanSubset).
func FuzzSubsetSameFindings(f *testing.F) {
	news, _ := filepath.Glob("../testdata/rules/*/*/new.yaml")
	for _, new := range news {
		if _, err := os.Stat(filepath.Join(filepath.Dir(new), "old.yaml")); err == nil {
			addPair(f, filepath.Join(filepath.Dir(new), "old.yaml"), new)
		}
	}
	reg := rules.Default()
	f.Fuzz(func(t *testing.T, old, new []byte) {
		src := source.FS{FS: fstest.MapFS{"old.yaml": {Data: old}, "new.yaml": {Data: new}}, Name: "fuzz"}
		run := func(whole bool) ([]rules.Finding, error) {
			o := pipeline.Options{Registry: reg, Settings: &rules.Settings{}, Whole: whole,
				Limits: limits.Limits{FileSize: 1 << 20, Depth: 64, Files: 10}}
			return pipeline.Diff(pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}}, o)
		}
		want, err := run(true)
		if err != nil {
			return
		}
		got, err := run(false)
		if err != nil {
			t.Fatalf("the whole load succeeds, the subset fails: %v", err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("findings differ (-whole +subset):\n%s", d)
		}
	})
}
