package review

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/cache"
)

// historyRepo builds, with one git fast-import stream, a repository of
// commits commits over files .proto files (each importing a shared
// common.proto), each commit adding a field to one file in turn, and then
// changes three files in the work tree: a review whose history walk reads
// about commits/files versions of each.
func historyRepo(t testing.TB, commits, files int) *testRepo {
	t.Helper()
	r := newRepo(t, "main")
	fields := make([]int, files)
	var in bytes.Buffer
	blob := func(path, text string) {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", path, len(text), text)
	}
	for i := range commits {
		fmt.Fprintf(&in, "commit refs/heads/main\ncommitter t <t@example.com> %d +0000\ndata 3\nc%d\n", 1700000000+i, i%10)
		if i == 0 {
			blob("common/common.proto", "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; string currency = 2; }\n")
			for f := range files {
				blob(historyFile(f), historyProto(f, 1))
				fields[f] = 1
			}
			continue
		}
		f := i % files
		fields[f]++
		blob(historyFile(f), historyProto(f, fields[f]))
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.top
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	r.git("checkout", "-q", "-f", "main")
	for f := range 3 {
		text := historyProto(f, fields[f]+1)
		if f == 0 {
			text = reuseOne(text)
		}
		r.write(historyFile(f), text)
	}
	return r
}

func historyFile(f int) string { return fmt.Sprintf("proto/p%d/v1/p%d.proto", f, f) }

// historyProto is file f's n-th version: the newest five of fields 1..n,
// so older numbers appear only in history. Every field carries a message
// type from the import, so a version only loads with it.
func historyProto(f, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = \"proto3\";\npackage p%d.v1;\nimport \"common/common.proto\";\nmessage M {\n", f)
	for k := max(1, n-4); k <= n; k++ {
		fmt.Fprintf(&b, "  common.Money f%d = %d;\n", k, k)
	}
	b.WriteString("}\n")
	return b.String()
}

// reuseOne is what the work tree of historyRepo does to file 0 besides
// adding a field: it gives number 1, deleted long ago, to a new field, which
// only the history walk can see.
func reuseOne(text string) string {
	return strings.Replace(text, "message M {\n", "message M {\n  string again = 1;\n", 1)
}

// BenchmarkHistoryWalk reviews three changed files of a 5,000-commit,
// 300-file repository with the full history walk and with --history-depth 1,
// alternating, and reports the ratio (the walk's cost on top of the review):
// without the cache, and with a cache both runs warmed first.
func BenchmarkHistoryWalk(b *testing.B) {
	r := historyRepo(b, 5000, 300)
	b.Run("plain", func(b *testing.B) { benchWalk(b, options(r.top), options(r.top)) })
	b.Run("cache", func(b *testing.B) {
		store, err := cache.Open(b.TempDir(), "bench")
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		full, one := options(r.top), options(r.top)
		full.Pipeline.Cache, one.Pipeline.Cache = store, store
		if _, err := Run(full); err != nil { // warm
			b.Fatal(err)
		}
		benchWalk(b, full, one)
	})
}

func benchWalk(b *testing.B, full, one Options) {
	one.HistoryDepth = 1
	var tFull, tOne time.Duration
	for b.Loop() {
		t0 := time.Now()
		resFull, err := Run(full)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		resOne, err := Run(one)
		if err != nil {
			b.Fatal(err)
		}
		tFull += t1.Sub(t0)
		tOne += time.Since(t1)
		if resFull.Compared != 3 || resOne.Compared != 3 || !hasRule(resFull.Findings, "field-number-reused") {
			b.Fatalf("compared %d and %d contracts, want 3, and the full walk found %v", resFull.Compared, resOne.Compared, resFull.Findings)
		}
	}
	b.ReportMetric(float64(tFull)/float64(tOne), "full/depth1")
	b.ReportMetric(float64(tFull.Milliseconds())/float64(b.N), "ms/full")
}
