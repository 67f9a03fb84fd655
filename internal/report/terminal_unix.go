//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package report

import (
	"syscall"
	"unsafe"
)

// isTerminal asks the terminal driver for fd's settings, as isatty(3) does:
// only a terminal has them. The standard library's syscall is enough here;
// a terminal package would bring golang.org/x/sys/unix into every cold build.
func isTerminal(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, getTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
