package limits_test

import (
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
)

// TestCorpusWithinDefaults: the default limits, the per-side total and the
// per-kind ones included, admit real contracts whole: every file of a
// googleapis tree read as one side, and each Stripe document.
func TestCorpusWithinDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks the corpus; skipped with -short")
	}
	sides := map[string][]string{}
	for _, archive := range []string{"googleapis-2026-02-20.tar.gz", "googleapis-2026-08-22.tar.gz"} {
		dir := t.TempDir()
		sides[dir] = corpus.Untar(t, archive, dir)
	}
	for _, name := range []string{"stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-12.yaml"} {
		dir := t.TempDir()
		corpus.Gunzip(t, name, dir)
		sides[dir] = []string{name}
	}
	for dir, files := range sides {
		src, err := source.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		g := limits.Default().Guard(src, nil)
		for _, f := range files {
			if _, err := g.ReadFile(f); err != nil {
				t.Fatalf("%d files: the default limits refuse a real contract: %v", len(files), err)
			}
		}
	}
}
