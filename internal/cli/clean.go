package cli

import (
	"strings"

	"github.com/contractlint/contractlint/internal/report"
)

// cleanLines escapes the control characters of every line of an error, which
// may quote contract text (a key, a value, an argument), before it reaches a
// terminal; the lines themselves stay apart.
func cleanLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = report.Clean(l)
	}
	return strings.Join(lines, "\n")
}
