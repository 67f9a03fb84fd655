package rules

import (
	"sync"
	"testing"
)

// TestDefaultConcurrent builds registries at once, as parallel runs in one
// process do; under -race it fails when two registries share a *Rule that
// builtin() writes to.
func TestDefaultConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	regs := make([]*Registry, 4)
	for i := range regs {
		wg.Go(func() { regs[i] = Default() })
	}
	wg.Wait()
	seen := map[*Rule]bool{}
	for _, r := range regs {
		for _, rule := range r.All() {
			if seen[rule] {
				t.Fatalf("rule %s is shared between registries", rule.ID)
			}
			seen[rule] = true
		}
	}
}
