package pipeline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// protoFile is one .proto file of about n elements: messages of ten fields
// each, every message reserving a few numbers.
func protoFile(n int) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage big.v1;\n")
	for i := 0; i*14 < n; i++ {
		fmt.Fprintf(&b, "message M%d {\n", i)
		for f := 1; f <= 10; f++ {
			fmt.Fprintf(&b, "  %s f%d = %d;\n", []string{"string", "int64", "bool"}[f%3], f, f)
		}
		b.WriteString("  reserved 11, 12, 13;\n}\n")
	}
	return b.String()
}

// loadAlloc loads one side and returns the bytes allocated and the elements
// the guard counted in it.
func loadAlloc(t *testing.T, name, text string) (alloc uint64, elements int) {
	t.Helper()
	src, _ := hostileRepo(t, map[string]string{name: text})
	if strings.HasSuffix(name, ".proto") {
		_, elements = limits.ProtoScan([]byte(text), limits.DefaultDepth)
	} else {
		elements = limits.Scan([]byte(text), limits.DefaultDepth, 1<<30).Elements
		elements = max(elements, first(limits.Expanded([]byte(text), 1<<40)))
	}
	var err error
	alloc = allocated(func() {
		_, err = pipeline.Load(pipeline.Side{Src: src, Files: []string{name}}, pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return alloc, elements
}

// aliasBomb is a document whose schemas each alias the one before twice:
// levels anchors expand to about 3·2^levels elements.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString(good + "components:\n  schemas:\n    A0: &A0 {type: string}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "    A%d: &A%d {type: object, properties: {l: *A%d, r: *A%d}}\n", i, i, i-1, i-1)
	}
	return b.String()
}

// TestMemoryBudget: at the default limits, loading any one accepted file
// allocates under limits.MemoryBudget, counted in bytes allocated
// (runtime.MemStats.TotalAlloc), never in time. Loading costs about the same
// per element at any size: each kind of file is loaded at two sizes, the
// cost per element must not grow by more than 15 % when the size doubles,
// and the cost per element times the default limit must fit the budget.
// Just past the limit, a file is refused for the price of scanning it.
func TestMemoryBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("loads contracts of 25,000 to 50,000 elements; skipped with -short")
	}
	for _, c := range []struct {
		name  string
		make  func(elements int) string
		small int
		limit int
	}{
		{"api.yaml", func(n int) string { return bigContract(n*18, "integer") }, 25000, limits.DefaultElements},
		{"api.proto", protoFile, 12000, limits.DefaultProtoElements},
		// An accepted alias bomb: the expansion, not the text, is what costs.
		{"bomb.yaml", func(n int) string { return aliasBomb(bits(n / 3)) }, 12000, limits.DefaultElements},
	} {
		t.Run(c.name, func(t *testing.T) {
			a1, e1 := loadAlloc(t, c.name, c.make(c.small))
			a2, e2 := loadAlloc(t, c.name, c.make(2*c.small))
			per1, per2 := float64(a1)/float64(e1), float64(a2)/float64(e2)
			atLimit := per2 * float64(c.limit)
			t.Logf("%d elements: %.0f B each; %d: %.0f B each (x%.2f); at the limit of %d: %.0f MB of the %d MB budget",
				e1, per1, e2, per2, per2/per1, c.limit, atLimit/1e6, limits.MemoryBudget>>20)
			if per2 > 1.15*per1 {
				t.Errorf("the cost per element grew x%.2f when the file doubled: loading is not linear", per2/per1)
			}
			if atLimit > limits.MemoryBudget {
				t.Errorf("at the default limit of %d elements loading would allocate %.0f MB, over the %d MB budget",
					c.limit, atLimit/1e6, limits.MemoryBudget>>20)
			}
		})
	}
	// Just past the limits: refused after a scan, for a few times the text.
	for name, text := range map[string]string{
		"over.yaml":  bigContract((limits.DefaultElements+1000)*18, "integer"),
		"over.proto": protoFile(limits.DefaultProtoElements + 1000),
	} {
		src, _ := hostileRepo(t, map[string]string{name: text})
		o := pipeline.Options{Limits: limits.Limits{Keys: 1 << 30}} // the element limit, not the keys one
		m := diff(src, "good.yaml", name, o)
		bound := 4*uint64(len(text)) + 8<<20
		if strings.HasSuffix(name, ".proto") {
			// Both sides are the file: the unchanged-file check reads and
			// scans each side before the loads read and refuse them again,
			// so four reads where a single side has one: still a bound in
			// the text's size, not in what a model of it would cost.
			m = diff(src, name, name, o)
			bound = 16*uint64(len(text)) + 8<<20
		}
		m.refused(t, name, "is more than the limit of", bound)
	}
}

func first(a, _ int) int { return a }

// bits is the number of binary digits of n: the levels of an alias bomb
// that expands to about n.
func bits(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
