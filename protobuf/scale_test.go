package protobuf

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/contractlint/contractlint/internal/source"
)

// Shapes of hostile size that once cost time growing with the square of
// their size: n reserved numbers, n reserved names, an enum of n values.
// The new side drops every other entry, so the diff has work to do. oneLine
// puts every reserved entry in one statement on one line, as an attacker
// would; otherwise each is its own statement on its own line.
func scaleProto(kind string, n int, dropHalf, oneLine bool) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage scale.v1;\n")
	keep := func(i int) bool { return !dropHalf || i%2 == 0 }
	switch kind {
	case "enum":
		b.WriteString("enum E {\n  E_UNSPECIFIED = 0;\n")
		for i := 1; i <= n; i++ {
			if keep(i) {
				fmt.Fprintf(&b, "  E_%d = %d;\n", i, i)
			}
		}
	default:
		b.WriteString("message M {\n  string id = 1;\n")
		var entries []string
		for i := 0; i < n; i++ {
			if !keep(i) {
				continue
			}
			if kind == "names" {
				entries = append(entries, fmt.Sprintf("%q", fmt.Sprintf("old_%d", i)))
			} else {
				entries = append(entries, fmt.Sprint(2+i))
			}
		}
		if oneLine {
			fmt.Fprintf(&b, "  reserved %s;\n", strings.Join(entries, ", "))
		} else {
			for _, e := range entries {
				fmt.Fprintf(&b, "  reserved %s;\n", e)
			}
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// loadDiff compiles both sides and diffs them, timing the two apart.
func loadDiff(tb testing.TB, old, new string) (load, diff time.Duration) {
	src := source.FS{FS: fstest.MapFS{"old/a.proto": {Data: []byte(old)}, "new/a.proto": {Data: []byte(new)}}, Name: "scale"}
	start := time.Now()
	ot, err := Load(src, []string{"old/a.proto"}, Options{ImportPaths: []string{"old"}})
	if err != nil {
		tb.Fatal(err)
	}
	nt, err := Load(src, []string{"new/a.proto"}, Options{ImportPaths: []string{"new"}})
	if err != nil {
		tb.Fatal(err)
	}
	load = time.Since(start)
	runtime.GC() // the compile's garbage is not the diff's cost
	start = time.Now()
	if len(Diff(ot, nt)) == 0 {
		tb.Fatal("the sides differ but the diff is empty")
	}
	ot.Contract()
	nt.Contract()
	return load, time.Since(start)
}

// BenchmarkScale diffs each shape at n and 2n entries and reports how much
// longer the doubled case takes: about 2 for work linear in n, 4 for
// quadratic. diff-x2 is contractlint's own work (diff and lowering);
// load-x2 is the compiler's. With every reserved entry on one line
// (oneline=true) the compiler's source-info pass is quadratic in the line's
// length (protocompile's FileInfo.SourcePos counts the column from the
// line's start for every position), which the README reports as upstream.
func BenchmarkScale(b *testing.B) {
	for _, c := range []struct {
		kind    string
		n       int
		oneLine bool
	}{
		{"numbers", 20000, false}, {"names", 20000, false}, {"enum", 40000, false},
		{"numbers", 5000, true}, {"names", 5000, true},
	} {
		b.Run(fmt.Sprintf("%s=%d/oneline=%v", c.kind, c.n, c.oneLine), func(b *testing.B) {
			var load, diff [2]time.Duration
			for b.Loop() {
				for i, n := range []int{c.n, 2 * c.n} {
					l, d := loadDiff(b, scaleProto(c.kind, n, false, c.oneLine), scaleProto(c.kind, n, true, c.oneLine))
					load[i] += l
					diff[i] += d
				}
			}
			b.ReportMetric(float64(diff[1])/float64(diff[0]), "diff-x2")
			b.ReportMetric(float64(load[1])/float64(load[0]), "load-x2")
			b.ReportMetric(float64(diff[1])/float64(load[1]), "diff/load")
		})
	}
}

// TestReservedDiffLinear: the diff of n reserved numbers allocates in
// proportion to n (it once cloned and sorted the new side's ranges for
// every old range: 1.6 GB for 20,000), measured in bytes allocated, not
// in time.
func TestReservedDiffLinear(t *testing.T) {
	allocs := func(n int) float64 {
		src := source.FS{FS: fstest.MapFS{
			"old/a.proto": {Data: []byte(scaleProto("numbers", n, false, false))},
			"new/a.proto": {Data: []byte(scaleProto("numbers", n, true, false))}}, Name: "scale"}
		ot, err := Load(src, []string{"old/a.proto"}, Options{ImportPaths: []string{"old"}})
		if err != nil {
			t.Fatal(err)
		}
		nt, err := Load(src, []string{"new/a.proto"}, Options{ImportPaths: []string{"new"}})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Diff(ot, nt)
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc - before.TotalAlloc)
	}
	// Four times the input: linear allocates about x4 (map growth moves it
	// in steps), quadratic x16.
	small, large := allocs(2000), allocs(8000)
	if large > 6*small {
		t.Errorf("diffing 8,000 reserved numbers allocates %.0f bytes, 2,000 %.0f: x%.1f, not linear", large, small, large/small)
	}
}
