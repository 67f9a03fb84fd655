package limits_test

import (
	"testing"
	"testing/fstest"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
)

// TestCorpusWithinDefaults: the default limits, the per-side total and the
// per-kind ones included, admit real contracts whole: every file of a
// googleapis tree read as one side, and each Stripe document. The trees are
// held in memory: the limits judge the bytes a Source gives, not where it
// keeps them, and writing 13,000 files to disk was most of the test's cost.
func TestCorpusWithinDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks the corpus; skipped with -short")
	}
	var sides []fstest.MapFS
	for _, archive := range []string{"googleapis-2026-02-20.tar.gz", "googleapis-2026-08-22.tar.gz"} {
		side := fstest.MapFS{}
		for name, b := range corpus.Protos(t, archive) {
			side[name] = &fstest.MapFile{Data: b, Mode: 0o644}
		}
		sides = append(sides, side)
	}
	for _, name := range []string{"stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-12.yaml"} {
		sides = append(sides, fstest.MapFS{name: {Data: corpus.Text(t, name), Mode: 0o644}})
	}
	for _, side := range sides {
		if len(side) == 0 {
			t.Fatal("an empty side: the archive holds no .proto files")
		}
		g := limits.Default().Guard(source.FS{FS: side, Name: "corpus"}, nil)
		for f := range side {
			if _, err := g.ReadFile(f); err != nil {
				t.Fatalf("%d files: the default limits refuse a real contract: %v", len(side), err)
			}
		}
	}
}
