package pipeline_test

import (
	"os"
	"runtime/debug"
	"testing"
)

// testGCPercent is the GC target of this package's tests. Most of their CPU
// is loading whole 3–4 MB documents (Stripe's, OpenAI's) as the oracle the
// other loads are held to, and a tenth of it was the collector running at
// the default target of 100 while those models grew. The budget tests
// count bytes allocated (MemStats.TotalAlloc), which the target does not
// change. A GOGC the user set stays in force.
const testGCPercent = 300

func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(testGCPercent)
	}
	os.Exit(m.Run())
}
