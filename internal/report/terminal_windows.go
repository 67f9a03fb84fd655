package report

import "syscall"

// isTerminal: only a console handle has a console mode.
func isTerminal(fd uintptr) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(fd), &mode) == nil
}
