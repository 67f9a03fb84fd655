//go:build !unix

package pipeline

import "time"

// rusage has no getrusage to ask here (Windows): --stats leaves out the
// peak memory and the phases' CPU time.
func rusage() (maxrss int64, cpu time.Duration, ok bool) { return 0, 0, false }
