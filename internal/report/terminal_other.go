//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || windows)

package report

// isTerminal: where there is no terminal driver to ask, output is never
// coloured.
func isTerminal(uintptr) bool { return false }
