//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package report

import (
	"syscall"
	"unsafe"
)

// isTerminal asks the terminal driver for fd's settings, as isatty(3) does
// (TIOCGETA is the BSD name of Linux's TCGETS).
func isTerminal(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGETA, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
