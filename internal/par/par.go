// Package par runs independent pieces of work on every core.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(0) ... f(n-1) from up to GOMAXPROCS goroutines, each taking
// the next index as it finishes one, and returns once every call has
// returned. f must be safe to call concurrently.
func Each(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
