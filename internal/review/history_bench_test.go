package review

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
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
		r.write(historyFile(f), historyProto(f, fields[f]+1))
	}
	return r
}

func historyFile(f int) string { return fmt.Sprintf("proto/p%d/v1/p%d.proto", f, f) }

// historyProto is file f's version with n fields; every field carries a
// message type from the import, so a version only loads with it.
func historyProto(f, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = \"proto3\";\npackage p%d.v1;\nimport \"common/common.proto\";\nmessage M {\n", f)
	for k := 1; k <= n; k++ {
		fmt.Fprintf(&b, "  common.Money f%d = %d;\n", k, k)
	}
	b.WriteString("}\n")
	return b.String()
}

// BenchmarkHistoryWalk reviews three changed files of a 5,000-commit,
// 300-file repository with the full history walk and with --history-depth 1,
// alternating, and reports the ratio (the walk's cost on top of the review).
func BenchmarkHistoryWalk(b *testing.B) {
	r := historyRepo(b, 5000, 300)
	full, one := options(r.top), options(r.top)
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
		if resFull.Compared != 3 || resOne.Compared != 3 {
			b.Fatalf("compared %d and %d contracts, want 3", resFull.Compared, resOne.Compared)
		}
	}
	b.ReportMetric(float64(tFull)/float64(tOne), "full/depth1")
	b.ReportMetric(float64(tFull.Milliseconds())/float64(b.N), "ms/full")
}
