package pipeline

import (
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// BenchmarkGoogleapisFloor diffs the two googleapis trees at WIRE_JSON as
// `contractlint diff old/ new/` does, alternating with its floor: the
// compiler parsing and linking only the files the diff compiles (those
// whose bytes or imports changed), each side on every core, one side after
// the other as the diff compiles two large trees, nothing lowered or kept.
// run/floor is how far the diff is from that floor.
func BenchmarkGoogleapisFloor(b *testing.B) {
	root := b.TempDir()
	side := func(dir, archive string) Side {
		src, files := corpus.Tree(b, archive, root, dir)
		return Side{Src: src, Dir: dir, Files: files}
	}
	old := side("old", "googleapis-2026-02-20.tar.gz")
	new := side("new", "googleapis-2026-08-22.tar.gz")
	o := Options{Registry: rules.Default(), Settings: &rules.Settings{ProtoLevel: rules.LevelWireJSON}}
	ro, oldRoots, err := resolveProto(old, o)
	if err != nil {
		b.Fatal(err)
	}
	rn, newRoots, err := resolveProto(new, o)
	if err != nil {
		b.Fatal(err)
	}
	plan, ok := planProto(ro, rn, oldRoots, newRoots, o)
	if !ok {
		b.Fatal("no plan for the googleapis trees")
	}
	floor := func() {
		defer protobuf.CompileGC(len(plan.old) + len(plan.new))()
		for _, s := range []struct {
			src   source.Source
			files []string
			roots []string
		}{{old.Src, plan.old, oldRoots}, {new.Src, plan.new, newRoots}} {
			if err := protobuf.Check(s.src, s.files, protobuf.Options{ImportPaths: s.roots}); err != nil {
				b.Fatal(err)
			}
		}
	}
	var run, low time.Duration
	for i := 0; b.Loop(); i++ {
		for _, r := range [2]int{i % 2, 1 - i%2} {
			t := time.Now()
			if r == 0 {
				if _, err := Diff(old, new, o); err != nil {
					b.Fatal(err)
				}
				run += time.Since(t)
			} else {
				floor()
				low += time.Since(t)
			}
		}
	}
	b.ReportMetric(float64(run)/float64(low), "run/floor")
	b.ReportMetric(low.Seconds()/float64(b.N), "floor-s")
	b.ReportMetric(float64(len(plan.new)), "files-compiled")
}
