//go:build unix

package pipeline

import (
	"syscall"
	"time"
)

// rusage is the process's peak resident set (Maxrss, as getrusage gives
// it) and the user and system time it has used so far.
func rusage() (maxrss int64, cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, false
	}
	return int64(ru.Maxrss), time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
