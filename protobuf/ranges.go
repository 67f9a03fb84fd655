package protobuf

import (
	"slices"
	"sort"
)

// numbers is a set of field or enum numbers held as sorted, disjoint,
// non-adjacent inclusive ranges, so that asking about one number or range
// costs a binary search. A message may reserve tens of thousands of numbers
// one by one; asking the raw list for every field and every old range made
// the diff quadratic in them.
type numbers [][2]int64

// numberSet builds the set once from a message's or enum's ranges.
func numberSet(ranges [][2]int32) numbers {
	sorted := make(numbers, 0, len(ranges))
	for _, r := range ranges {
		sorted = append(sorted, [2]int64{int64(r[0]), int64(r[1])})
	}
	slices.SortFunc(sorted, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	out := sorted[:0]
	for _, r := range sorted {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// covers reports whether every number from lo to hi is in the set: merged,
// the ranges leave no gap inside one of them, so one must hold it all.
func (s numbers) covers(lo, hi int32) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i][1] >= int64(lo) })
	return i < len(s) && s[i][0] <= int64(lo) && s[i][1] >= int64(hi)
}

// has reports whether n is in the set.
func (s numbers) has(n int32) bool { return s.covers(n, n) }

// reservations are what a message or enum reserves, ready to be asked.
type reservations struct {
	nums  numbers
	names map[string]bool
}

func reserve(ranges [][2]int32, names []string) reservations {
	r := reservations{nums: numberSet(ranges), names: make(map[string]bool, len(names))}
	for _, n := range names {
		r.names[n] = true
	}
	return r
}
