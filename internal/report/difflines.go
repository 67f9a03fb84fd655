package report

import "strings"

// diffContext is how many unchanged lines a pull request's diff shows
// around each change; review comments may sit on those lines too.
const diffContext = 3

// diffBudget bounds the work of comparing one file (edit distance times the
// lines between the first and the last change): past it, no line counts as
// in the diff, and every finding of the file goes in the review's body.
const diffBudget = 4 << 20

// diffLines reports which lines of head (1-based) a pull request's diff
// against base shows: each line added or changed, and diffContext lines
// around every change. A nil result shows no line (too large to compare).
func diffLines(base, head string) map[int]bool {
	a, b := splitLines(base), splitLines(head)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	added, deletedAt, ok := editScript(a[pre:len(a)-suf], b[pre:len(b)-suf])
	if !ok {
		return nil
	}
	shown := map[int]bool{}
	mark := func(from, to int) { // 0-based head lines [from, to) of the middle
		for i := max(pre+from, 0); i < min(pre+to, len(b)); i++ {
			shown[i+1] = true
		}
	}
	for _, i := range added {
		mark(i-diffContext, i+diffContext+1)
	}
	for _, y := range deletedAt {
		mark(y-diffContext, y+diffContext)
	}
	return shown
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// editScript is Myers' shortest edit script from a to b: the lines of b
// that were added, and the positions in b where lines of a were deleted.
// ok is false when it would cost more than diffBudget.
func editScript(a, b []string) (added, deletedAt []int, ok bool) {
	n, m := len(a), len(b)
	most := n + m
	off := most
	v := make([]int32, 2*most+2)
	var trace [][]int32
	spent := 0
	for d := 0; d <= most; d++ {
		if spent += len(v); spent > diffBudget {
			return nil, nil, false
		}
		trace = append(trace, append([]int32(nil), v...))
		done := false
		for k := -d; k <= d; k += 2 {
			x := int(v[off+k+1])
			if k != -d && (k == d || v[off+k-1] >= v[off+k+1]) {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				done = true
				break
			}
		}
		if done {
			break
		}
	}
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		v := trace[d]
		k := x - y
		prev := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prev = k + 1
		}
		px := int(v[off+prev])
		py := px - prev
		for x > px && y > py {
			x, y = x-1, y-1
		}
		if x == px {
			added = append(added, y-1)
		} else {
			deletedAt = append(deletedAt, y)
		}
		x, y = px, py
	}
	return added, deletedAt, true
}
