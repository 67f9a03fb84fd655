package corpus

import (
	"os"
	"runtime/debug"
)

// loadingGCPercent is the GC target of test binaries that load whole corpus
// documents (Stripe's and OpenAI's 3–4 MB specs). Their models grow to a few
// hundred megabytes, and at the default target of 100 the collector was a
// tenth or more of such a package's CPU (internal/pipeline: 37.8 s of CPU at
// 100, 29.1 s at 300; peak RSS 420 to 570 MB).
const loadingGCPercent = 300

// LoadingGC raises the GC target for a test binary that loads whole corpus
// documents; call it from TestMain. Tests that bound memory count bytes
// allocated (MemStats.TotalAlloc), which the target does not change. A GOGC
// the user set stays in force.
func LoadingGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(loadingGCPercent)
	}
}
