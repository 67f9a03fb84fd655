package protobuf

import (
	"runtime/debug"
	"testing"
)

// TestCompileGC: a large compile sets the GC target and restores it; a
// target the user set stays; a small compile leaves it alone.
func TestCompileGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, tc := range []struct {
		name            string
		user, files     int
		during, restore int
	}{
		{"large", 100, bigCompile, compileGCPercent, 100},
		{"small", 100, bigCompile - 1, 100, 100},
		{"user's lower target", 20, bigCompile, 20, 20},
		{"user's higher target", 400, bigCompile, 400, 400},
	} {
		debug.SetGCPercent(tc.user)
		restore := CompileGC(tc.files)
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
