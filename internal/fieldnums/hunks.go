package fieldnums

import (
	"bytes"
	"slices"
)

// maxEdits bounds the line diff: a change of more lines is read as one cut.
const maxEdits = 256

// hunks splits c, old's lines that differ from text's between the common
// head and tail, widened to safe top-level lines, into the cuts a line
// diff finds: each run of changed lines widened to safe lines of f, in the
// innermost body that holds it when nested is set (see descend), and
// merged with the next when they overlap; [c] when the diff finds nothing
// to split and nested is not set.
func (f *File) hunks(c cut, old, text []byte, nested bool) []cut {
	// Only the lines between the common head and tail are diffed: those
	// the widening adds are the same on both sides.
	bs := lineStarts(text, c.lo, c.from, c.to+c.delta)
	bAt := func(l int) int { return bs[l-c.from] }
	as := lineStarts(old, bAt(c.rawFrom), c.rawFrom, c.rawTo)
	k := c.rawFrom - c.from // text's raw lines start at bs[k]
	eq := func(x, y int) bool {
		return bytes.Equal(old[as[x]:as[x+1]], text[bs[k+y]:bs[k+y+1]])
	}
	n, m := len(as)-1, c.rawTo+c.delta-c.rawFrom
	edits, ok := diff(n, m, eq)
	if !ok || (len(edits) < 2 && !nested) {
		return []cut{c}
	}
	if len(edits) == 0 {
		return nil // the same lines
	}
	// Each edit, lines of old [e[0], e[1]) that became text's [e[2], e[3]),
	// widened; one that overlaps the cut before is read with it.
	type run struct {
		cut
		first, last [4]int // the first and last edit of the run
	}
	var out []run
	for _, h := range edits {
		e := [4]int{c.rawFrom + h[0], c.rawFrom + h[1], c.rawFrom + h[2], c.rawFrom + h[3]}
		r := run{cut: f.widen(e, e, nested), first: e, last: e}
		for len(out) > 0 && r.from < out[len(out)-1].to {
			p := out[len(out)-1]
			out = out[:len(out)-1]
			r = run{cut: f.widen(p.first, r.last, nested), first: p.first, last: r.last}
		}
		out = append(out, r)
	}
	cuts := make([]cut, len(out))
	for i, r := range out {
		bFrom, bTo := r.first[2]-(r.first[0]-r.from), r.last[3]+(r.to-r.last[1])
		cuts[i] = r.cut
		cuts[i].delta = (bTo - bFrom) - (r.to - r.from)
		cuts[i].lo, cuts[i].hi = bAt(bFrom), bAt(bTo)
	}
	return cuts
}

// widen is the cut of old's lines from first's start to last's end: out to
// safe top-level lines, or, when nested is set, to the safe lines of the
// innermost body that holds them (see descend).
func (f *File) widen(first, last [4]int, nested bool) cut {
	c := cut{from: first[0], to: last[1]}
	for f.safe[c.from] != 0 {
		c.from--
	}
	for f.safe[c.to] != 0 {
		c.to++
	}
	if nested {
		c.from, c.to, c.depth = f.descend(first[0], last[1], c.from, c.to)
	}
	return c
}

// descend narrows [from, to), safe top-level lines around old's changed
// lines [a0, a1), into the body of the one declaration it holds, when the
// change is inside that body, then into the body of the one element it
// holds there, and so on: the lines returned are safe at the depth
// returned, in the innermost body that holds the change between two of its
// elements.
func (f *File) descend(a0, a1, from, to int) (int, int, int) {
	var s *scope
	base, n := 0, 0
	for _, d := range f.decls {
		if d.start >= from && d.end < to {
			s, base, n = d.scope, d.start, n+1
		}
	}
	if n != 1 {
		return from, to, 0
	}
	depth := 0
	for s != nil {
		open, close := base+s.open, base+s.close
		if a0 <= open || a1 > close {
			break // the change reaches the braces or beyond
		}
		at := int8(depth + 1)
		lo := a0
		for lo > open && f.safe[lo] != at {
			lo--
		}
		hi := a1
		for hi <= close && f.safe[hi] != at {
			hi++
		}
		if lo == open || hi > close {
			break
		}
		from, to, depth = lo, hi, depth+1
		var next *scope
		nb, n := 0, 0
		for _, e := range s.elems {
			if base+e.start >= from && base+e.end < to {
				next, nb, n = e.sub, base+e.start, n+1
			}
		}
		if n != 1 {
			break
		}
		s, base = next, nb
	}
	return from, to, depth
}

// lineStarts is the byte offsets of text's lines [from, to], the first
// starting at byte lo (the end of text for lines past it).
func lineStarts(text []byte, lo, from, to int) []int {
	starts := make([]int, 0, to-from+1)
	at := lo
	for l := from; l < to; l++ {
		starts = append(starts, at)
		if i := bytes.IndexByte(text[at:], '\n'); i < 0 {
			at = len(text)
		} else {
			at += i + 1
		}
	}
	return append(starts, at)
}

// diff is a shortest edit script from a to b (Myers), n and m lines
// long, line x of a equal to line y of b when eq(x, y): the runs of lines
// of a [0:1] replaced by the lines of b [2:3], in order; false beyond
// maxEdits edits.
func diff(n, m int, eq func(x, y int) bool) ([][4]int, bool) {
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
			for x < n && y < m && eq(x, y) {
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
