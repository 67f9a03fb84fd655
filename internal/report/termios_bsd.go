//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package report

import "syscall"

// getTermios is the ioctl that reads a terminal's settings (Linux's TCGETS).
const getTermios = syscall.TIOCGETA
