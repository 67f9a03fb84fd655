package protobuf

import (
	"runtime/debug"
	"testing"
)

// TestLowGC: a large compile lowers the GC target and restores it; a lower
// target the user set stays; a small compile leaves it alone.
func TestLowGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, tc := range []struct {
		name            string
		user, files     int
		during, restore int
	}{
		{"large", 100, bigCompile, bigGCPercent, 100},
		{"small", 100, bigCompile - 1, 100, 100},
		{"user's lower target", 20, bigCompile, 20, 20},
	} {
		debug.SetGCPercent(tc.user)
		restore := LowGC(tc.files)
		if got := debug.SetGCPercent(-1); got != tc.during {
			t.Errorf("%s: GC target %d during the compile, want %d", tc.name, got, tc.during)
		}
		debug.SetGCPercent(tc.during)
		restore()
		if got := debug.SetGCPercent(100); got != tc.restore {
			t.Errorf("%s: GC target %d after, want %d", tc.name, got, tc.restore)
		}
	}
}
