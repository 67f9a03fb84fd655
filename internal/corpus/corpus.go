// Package corpus finds and unpacks the benchmark corpus (real contracts kept
// beside the repository) for tests and benchmarks. The corpus is not part of
// the repository and no installer brings it, so a test without it skips; but
// when CONTRACTLINT_CORPUS names it explicitly (as .ci/run does whenever the
// corpus is beside the checkout), a missing file fails the run.
package corpus

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
)

// TB is what the helpers need of a test or benchmark (testing.TB): an
// interface of its own, so that `go install ./...` (pre-commit's install of
// the hook) does not compile the testing package for this one.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Dir is $CONTRACTLINT_CORPUS, or ../shared/corpus beside the module root.
func Dir() string {
	if d := os.Getenv("CONTRACTLINT_CORPUS"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "corpus")
		}
	}
	return filepath.Join("..", "shared", "corpus")
}

// Full reports whether the corpus tests run in full: under CI=true (as
// .ci/run runs the suite) or CONTRACTLINT_FULL=1. Otherwise the
// heaviest of them check a fixed sample of the corpus, so that the README's
// test command stays light on a busy laptop; every property they prove is
// still proved on the whole corpus in CI.
func Full() bool {
	return os.Getenv("CI") == "true" || os.Getenv("CONTRACTLINT_FULL") == "1"
}

// FullOnly skips a case of a heavy test that the sample leaves to the full
// run, saying so.
func FullOnly(tb TB) {
	tb.Helper()
	if !Full() {
		tb.Skipf("not in the sample: the full run checks it (CI=true or CONTRACTLINT_FULL=1)")
	}
}

// Need returns the path of a corpus file, or skips without it; it fails
// instead when CONTRACTLINT_CORPUS was set, since then the corpus was promised.
func Need(tb TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(), name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CONTRACTLINT_CORPUS") != "" {
			tb.Fatalf("corpus file %s missing from CONTRACTLINT_CORPUS: %v", name, err)
		}
		tb.Skipf("corpus file %s not found (set CONTRACTLINT_CORPUS)", name)
	}
	return p
}

// Text is the text of the corpus file NAME.gz, unpacked in memory.
func Text(tb TB, name string) []byte {
	tb.Helper()
	in, err := os.Open(Need(tb, name+".gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Gunzip unpacks NAME.gz from the corpus into dir as NAME.
func Gunzip(tb TB, name, dir string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), Text(tb, name), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Untar unpacks the .proto files of a corpus .tar.gz into dir and lists them
// (slash-separated, relative to dir).
func Untar(tb TB, name, dir string) []string {
	tb.Helper()
	var files []string
	eachProto(tb, name, func(rel string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			tb.Fatal(err)
		}
		files = append(files, rel)
	})
	return files
}

// Protos unpacks the .proto files of a corpus .tar.gz in memory, by
// slash-separated name: what Untar writes, for a test that reads the tree
// through a Source or an import resolver and so need not write thousands
// of files to disk (the writes, not the reads, were most of such a test's
// cost).
func Protos(tb TB, name string) map[string][]byte {
	tb.Helper()
	files := map[string][]byte{}
	eachProto(tb, name, func(rel string, b []byte) { files[rel] = b })
	return files
}

// eachProto calls f with the cleaned name and text of every .proto file in
// the corpus archive name, in the archive's order.
func eachProto(tb TB, name string, f func(rel string, b []byte)) {
	tb.Helper()
	in, err := os.Open(Need(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		tb.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			tb.Fatal(err)
		}
		rel, err := source.Clean(h.Name)
		if err != nil || h.Typeflag != tar.TypeReg || !strings.HasSuffix(rel, ".proto") {
			continue
		}
		b := make([]byte, h.Size) // sized once: ReadAll's growing was a third of the unpacking
		if _, err := io.ReadFull(tr, b); err != nil {
			tb.Fatal(err)
		}
		f(rel, b)
	}
}

// Tree unpacks a corpus .tar.gz into root/dir and returns root as a source
// with the files' names in it (dir/...), as `diff DIR` lists a tree.
func Tree(tb TB, name, root, dir string) (*source.Dir, []string) {
	tb.Helper()
	files := Untar(tb, name, filepath.Join(root, dir))
	for i, f := range files {
		files[i] = dir + "/" + f
	}
	src, err := source.OpenDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	return src, files
}
