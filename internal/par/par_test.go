package par

import (
	"sync/atomic"
	"testing"
)

// TestEach: every index is called exactly once, none outside [0, n).
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 2, 1000} {
		calls := make([]atomic.Int32, n+1)
		Each(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			want := int32(1)
			if i == n {
				want = 0
			}
			if got := calls[i].Load(); got != want {
				t.Errorf("n=%d: index %d called %d times, want %d", n, i, got, want)
			}
		}
	}
}
