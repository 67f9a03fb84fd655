package report

import (
	"io"
	"os"
)

// UseColor reports whether text output to w should be coloured: only when w
// is a terminal, and never when NO_COLOR is set to anything non-empty
// (no-color.org) or TERM is "dumb". A file, a pipe and /dev/null get none.
func UseColor(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && isTerminal(f.Fd())
}
