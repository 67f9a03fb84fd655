package report

import (
	"fmt"
	"io"

	"github.com/contractlint/contractlint/rules"
)

// MSVS writes one line per finding in the Visual Studio error format buf's
// --error-format=msvs writes: FILE(LINE,COL) : error RULE : MESSAGE. What
// the change accepted itself follows as info lines, which MSBuild shows as
// messages that fail nothing.
type MSVS struct{}

func (MSVS) Write(w io.Writer, r *Report) error {
	for _, f := range r.Findings {
		level := "error"
		if f.Severity < rules.Error {
			level = "warning"
		}
		if err := msvsLine(w, level, f); err != nil {
			return err
		}
	}
	for _, x := range r.acceptedInPR() {
		if err := msvsLine(w, "info", acceptedAsInfo(x)); err != nil {
			return err
		}
	}
	return nil
}

func msvsLine(w io.Writer, level string, f rules.Finding) error {
	_, err := fmt.Fprintf(w, "%s(%d,%d) : %s %s : %s (needs %s)\n", Clean(f.Where.File), f.Where.Line, f.Where.Column, level, Clean(f.Rule), Clean(f.Message), bumpOf(f))
	return err
}
