package source_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/source"
)

// BenchmarkDirTree reads a split spec's tree (600 files, three directories
// deep, as DigitalOcean's and Lob's are laid out) through a fresh Dir, as
// one run does, and reports its time as a ratio to os.ReadFile of the same
// files, which checks nothing: dir/os is what confinement to the root costs.
func BenchmarkDirTree(b *testing.B) {
	root := b.TempDir()
	var names []string
	for i := range 600 {
		name := fmt.Sprintf("resources/group%d/kind%d/file%d.yml", i%20, i%3, i)
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte("type: object\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		names = append(names, name)
	}
	var dir, plain time.Duration
	for b.Loop() {
		start := time.Now()
		d, err := source.OpenDir(root)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			if _, err := d.Stat(n); err != nil {
				b.Fatal(err)
			}
			if _, err := d.ReadFile(n); err != nil {
				b.Fatal(err)
			}
		}
		dir += time.Since(start)
		start = time.Now()
		for _, n := range names {
			p := filepath.Join(root, n)
			if _, err := os.Stat(p); err != nil {
				b.Fatal(err)
			}
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
		plain += time.Since(start)
	}
	b.ReportMetric(float64(dir)/float64(plain), "dir/os")
	b.ReportMetric(0, "ns/op")
}
