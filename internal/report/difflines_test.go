package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func lines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i) + "\n")
	}
	return b.String()
}

func shownLines(m map[int]bool) []int {
	var out []int
	for l := range m {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// TestDiffLines: a change shows itself and 3 lines around it; a deletion
// the 3 lines either side of where it was; lines far from every change are
// not in the diff; a new file is all in it.
func TestDiffLines(t *testing.T) {
	base := lines(30, func(i int) string { return fmt.Sprintf("line %d", i+1) })
	for _, c := range []struct {
		name string
		head string
		want []int
	}{
		{"changed 10", strings.Replace(base, "line 10\n", "line ten\n", 1), []int{7, 8, 9, 10, 11, 12, 13}},
		{"added after 20", strings.Replace(base, "line 20\n", "line 20\nnew\n", 1), []int{18, 19, 20, 21, 22, 23, 24}},
		{"deleted 5", strings.Replace(base, "line 5\n", "", 1), []int{2, 3, 4, 5, 6, 7}},
		{"two changes", strings.Replace(strings.Replace(base, "line 2\n", "two\n", 1), "line 29\n", "twenty-nine\n", 1),
			[]int{1, 2, 3, 4, 5, 26, 27, 28, 29, 30}},
		{"same", base, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := shownLines(diffLines(base, c.head)); !slices.Equal(got, c.want) {
				t.Errorf("lines in the diff = %v, want %v", got, c.want)
			}
		})
	}
	if got := shownLines(diffLines("", "a\nb\n")); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("a new file shows %v, want every line", got)
	}
}

// TestDiffLinesBudget: files too different to compare in budget show no
// line, so nothing is placed where GitHub would refuse it.
func TestDiffLinesBudget(t *testing.T) {
	a := lines(5000, func(i int) string { return fmt.Sprintf("a%d", i) })
	b := lines(5000, func(i int) string { return fmt.Sprintf("b%d", i) })
	if got := diffLines(a, b); got != nil {
		t.Errorf("%d lines shown for files past the budget, want none", len(got))
	}
}
