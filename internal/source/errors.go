package source

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one reason a contract cannot be read, at file:line:col.
type Problem struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (p Problem) String() string {
	switch {
	case p.File == "":
		return p.Msg
	case p.Line == 0:
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	case p.Column == 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Msg)
}

// Problems is an input error: every problem found, sorted, one per line.
type Problems []Problem

func (ps Problems) Error() string {
	// Sort a copy: Error may run on the same value from several goroutines.
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), cmp.Compare(a.Msg, b.Msg))
	})
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Errorf makes a one-problem input error.
func Errorf(file string, line, col int, format string, args ...any) Problems {
	return Problems{{File: file, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}}
}
