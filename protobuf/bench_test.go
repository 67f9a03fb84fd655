package protobuf

import (
	"github.com/contractlint/contractlint/internal/corpus"

	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/source"
)

// genTree writes n files of a layered package graph: each file imports the
// previous one and a shared common file, and holds messages, enums and a
// service. The new side changes every tenth file.
func genTree(t testing.TB, dir string, n int, changed bool) []string {
	t.Helper()
	var files []string
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	write("common/v1/common.proto", `syntax = "proto3";
package common.v1;
import "google/protobuf/timestamp.proto";
message Meta { string id = 1; google.protobuf.Timestamp created = 2; map<string, string> labels = 3; }
enum State { STATE_UNSPECIFIED = 0; STATE_ACTIVE = 1; STATE_DELETED = 2; }
`)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "syntax = \"proto3\";\npackage gen.p%d.v1;\n", i/10)
		fmt.Fprintf(&b, "option go_package = \"example.com/gen/p%d\";\n", i/10)
		b.WriteString("import \"common/v1/common.proto\";\n")
		chained := i%100 > 0 // import chains stay 100 deep, whatever n
		if chained {
			fmt.Fprintf(&b, "import \"gen/f%d.proto\";\n", i-1)
		}
		for m := range 12 {
			fmt.Fprintf(&b, "// Msg%d_%d is generated.\nmessage Msg%d_%d {\n", i, m, i, m)
			fmt.Fprintf(&b, "  common.v1.Meta meta = 1;\n  common.v1.State state = 2;\n")
			for f := 3; f < 20; f++ {
				typ := []string{"string", "int32", "int64", "bool", "bytes", "double"}[f%6]
				if changed && i%10 == 0 && m == 0 && f == 5 {
					typ = "sint64"
				}
				fmt.Fprintf(&b, "  %s field_%d = %d;\n", typ, f, f)
			}
			if chained {
				fmt.Fprintf(&b, "  repeated .gen.p%d.v1.Msg%d_%d prev = 20;\n", (i-1)/10, i-1, m)
			}
			b.WriteString("  reserved 30 to 40;\n}\n")
		}
		fmt.Fprintf(&b, "enum Kind%d { KIND%d_UNSPECIFIED = 0; KIND%d_A = 1; KIND%d_B = 2; }\n", i, i, i, i)
		fmt.Fprintf(&b, "service Svc%d {\n", i)
		for r := range 6 {
			if changed && i%10 == 0 && r == 5 {
				continue
			}
			fmt.Fprintf(&b, "  rpc Do%d(Msg%d_%d) returns (Msg%d_%d);\n", r, i, r, i, r+1)
		}
		b.WriteString("}\n")
		write(fmt.Sprintf("gen/f%d.proto", i), b.String())
	}
	return files
}

// BenchmarkDiffGenerated compiles two generated trees and diffs them, at
// 1k, 10k and 100k messages (12 a file): time and memory per message should
// stay flat, and diff/compile is the diff's cost relative to compiling.
func BenchmarkDiffGenerated(b *testing.B) {
	for _, msgs := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("messages=%d", msgs), func(b *testing.B) {
			if msgs > 10_000 && testing.Short() {
				b.Skip("large case skipped in -short mode")
			}
			benchGenerated(b, (msgs+11)/12)
		})
	}
}

func benchGenerated(b *testing.B, files int) {
	root := b.TempDir()
	oldFiles := genTree(b, filepath.Join(root, "old"), files, false)
	newFiles := genTree(b, filepath.Join(root, "new"), files, true)
	src, err := source.OpenDir(root)
	if err != nil {
		b.Fatal(err)
	}
	prefix := func(dir string, fs []string) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = dir + "/" + f
		}
		return out
	}
	var compile, diff time.Duration
	for b.Loop() {
		c, d, changes := compileAndDiff(b, src, "old", prefix("old", oldFiles), "new", prefix("new", newFiles))
		compile, diff = compile+c, diff+d
		if changes == 0 {
			b.Fatal("generated trees differ but the diff is empty")
		}
	}
	b.ReportMetric(float64(diff)/float64(compile), "diff/compile")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(files*12), "µs/message")
}

// BenchmarkGoogleapis diffs two googleapis trees six months apart.
func BenchmarkGoogleapis(b *testing.B) {
	root := b.TempDir()
	src, oldFiles := corpus.Tree(b, "googleapis-2026-02-20.tar.gz", root, "A")
	_, newFiles := corpus.Tree(b, "googleapis-2026-08-22.tar.gz", root, "B")
	var compile, diff time.Duration
	for b.Loop() {
		c, d, changes := compileAndDiff(b, src, "A", oldFiles, "B", newFiles)
		compile, diff = compile+c, diff+d
		b.ReportMetric(float64(changes), "changes")
	}
	b.ReportMetric(float64(diff)/float64(compile), "diff/compile")
	b.ReportMetric(compile.Seconds()/float64(b.N), "compile-s/op")
}

// compileAndDiff compiles both trees (each with its own import root), then
// diffs and lowers them, and says how long each half took.
func compileAndDiff(b *testing.B, src source.Source, oldRoot string, oldFiles []string, newRoot string, newFiles []string) (compile, diff time.Duration, changes int) {
	start := time.Now()
	ot, err := Load(src, oldFiles, Options{ImportPaths: []string{oldRoot}})
	if err != nil {
		b.Fatal(err)
	}
	nt, err := Load(src, newFiles, Options{ImportPaths: []string{newRoot}})
	if err != nil {
		b.Fatal(err)
	}
	mid := time.Now()
	n := len(Diff(ot, nt))
	ot.Contract()
	nt.Contract()
	return mid.Sub(start), time.Since(mid), n
}

// BenchmarkCheckGoogleapis checks a whole googleapis tree as a diff of two
// identical trees does (every file skipped as unchanged, protobuf.Check
// over all of them), and reports the check's time as a ratio to one Load
// of the same tree: check/load.
func BenchmarkCheckGoogleapis(b *testing.B) {
	src, files := corpus.Tree(b, "googleapis-2026-02-20.tar.gz", b.TempDir(), "A")
	o := Options{ImportPaths: []string{"A"}}
	var check, load time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := Check(src, files, o); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Load(src, files, o); err != nil {
			b.Fatal(err)
		}
		check, load = check+t1.Sub(t0), load+time.Since(t1)
	}
	b.ReportMetric(float64(check)/float64(load), "check/load")
	b.ReportMetric(check.Seconds()/float64(b.N), "check-s/op")
}
