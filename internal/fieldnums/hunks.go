package fieldnums

import "slices"

// maxEdits bounds the line diff: a change of more lines is read as one cut.
const maxEdits = 256

// hunks splits c, old's lines that differ from text's between the common
// head and tail, into the cuts a line diff finds, each widened to safe
// lines of f and merged with the next when they meet; [c] when the diff
// finds nothing to split.
func (f *File) hunks(c cut, old, text []byte) []cut {
	a, _ := lines(old, c.lo, c.from, c.to)
	b, bAt := lines(text, c.lo, c.from, c.to+c.delta)
	ids := map[string]int{}
	id := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			n, ok := ids[l]
			if !ok {
				n = len(ids)
				ids[l] = n
			}
			out[i] = n
		}
		return out
	}
	edits, ok := diff(id(a), id(b))
	if !ok || len(edits) < 2 {
		return []cut{c}
	}
	var out []cut
	var cur cut
	var aEnd, bEnd, bStart, aStart int
	flush := func() {
		cur.to = aEnd
		for !f.safe[cur.to] {
			cur.to++
		}
		bFrom, bTo := bStart-(aStart-cur.from), bEnd+(cur.to-aEnd)
		cur.delta = (bTo - bFrom) - (cur.to - cur.from)
		cur.lo, cur.hi = bAt(bFrom), bAt(bTo)
		out = append(out, cur)
	}
	for i, h := range edits {
		// Lines of old [e[0], e[1]) became text's [e[2], e[3]).
		e := [4]int{c.from + h[0], c.from + h[1], c.from + h[2], c.from + h[3]}
		from := e[0]
		for !f.safe[from] {
			from--
		}
		if i > 0 && from < toOf(f, aEnd) {
			aEnd, bEnd = e[1], e[3]
			continue
		}
		if i > 0 {
			flush()
		}
		cur = cut{from: from}
		aStart, bStart, aEnd, bEnd = e[0], e[2], e[1], e[3]
	}
	flush()
	return out
}

// toOf is the first safe line of f at or after line l.
func toOf(f *File, l int) int {
	for !f.safe[l] {
		l++
	}
	return l
}

// lines splits text's lines [from, to), the first starting at byte lo,
// and returns them with a function giving the byte offset of line l
// (from <= l <= to).
func lines(text []byte, lo, from, to int) ([]string, func(int) int) {
	starts := make([]int, 0, to-from+1)
	at := lo
	for l := from; l < to; l++ {
		starts = append(starts, at)
		i := slices.Index(text[at:], '\n')
		if i < 0 {
			at = len(text)
		} else {
			at += i + 1
		}
	}
	starts = append(starts, at)
	out := make([]string, to-from)
	for i := range out {
		out[i] = string(text[starts[i]:starts[i+1]])
	}
	return out, func(l int) int { return starts[l-from] }
}

// diff is a shortest edit script from a to b (Myers): the runs of lines
// of a [0:1] replaced by the lines of b [2:3], in order; false beyond
// maxEdits edits.
func diff(a, b []int) ([][4]int, bool) {
	n, m := len(a), len(b)
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int // v[off-d : off+d+1] after each d
	for d := 0; d <= maxEdits; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				trace = append(trace, slices.Clone(v[off-d:off+d+1]))
				return script(trace, n, m), true
			}
		}
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
	}
	return nil, false
}

// script walks the trace back from (n, m) to the edits, grouped in runs.
func script(trace [][]int, n, m int) [][4]int {
	x, y := n, m
	var out [][4]int
	add := func(ax, bx int, del bool) {
		// one line of a deleted at ax, or one of b inserted at bx (before ax)
		if l := len(out); l > 0 {
			h := &out[l-1] // the run after this edit, if it starts where the edit ends
			switch {
			case del && h[0] == ax+1 && h[2] == bx:
				h[0] = ax
				return
			case !del && h[0] == ax && h[2] == bx+1:
				h[2] = bx
				return
			}
		}
		if del {
			out = append(out, [4]int{ax, ax + 1, bx, bx})
		} else {
			out = append(out, [4]int{ax, ax, bx, bx + 1})
		}
	}
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // indexed by k + (d-1)
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		// the snake ran from the edit's end to (x, y)
		if pk == k+1 {
			add(px, py, false) // b[py] inserted at px
		} else {
			add(px, py, true) // a[px] deleted
		}
		x, y = px, py
	}
	slices.Reverse(out)
	return out
}
