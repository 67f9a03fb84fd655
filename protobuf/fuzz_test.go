package protobuf_test

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

// FuzzCompileDiff feeds two mutated .proto files through compilation, the
// diff and every rule. Whatever the bytes, the run ends with findings or with
// an input error naming its file; it never panics. Seeds are the first .proto
// of each side of every proto case in testdata/rules.
func FuzzCompileDiff(f *testing.F) {
	olds, _ := filepath.Glob("../testdata/rules/*/*/old/*.proto")
	for _, old := range olds {
		a, err := os.ReadFile(old)
		if err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(old), "..", "new", filepath.Base(old)))
		if err != nil {
			continue // a file only the old side has
		}
		f.Add(a, b)
	}
	reg := rules.Default()
	f.Fuzz(func(t *testing.T, old, new []byte) {
		src := source.FS{FS: fstest.MapFS{"old/a.proto": {Data: old}, "new/a.proto": {Data: new}}, Name: "fuzz"}
		o := pipeline.Options{Registry: reg, Settings: &rules.Settings{ProtoLevel: rules.LevelFile},
			Limits: limits.Limits{FileSize: 1 << 20, Depth: 64, Files: 10}}
		_, err := pipeline.Diff(pipeline.Side{Src: src, Dir: "old", Files: []string{"old/a.proto"}},
			pipeline.Side{Src: src, Dir: "new", Files: []string{"new/a.proto"}}, o)
		if err != nil && !source.Named(err) {
			t.Fatalf("error is not an input error naming its file: %T %v", err, err)
		}
	})
}
