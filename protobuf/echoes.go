package protobuf

import (
	"strings"

	"github.com/contractlint/contractlint/internal/source"
)

// dropEchoes removes the compiler's errors that only echo another one at
// the same place: an enum value out of the int32 range (2^31) is also
// stored as 0, so the compiler reports it as well as "the same numeric
// value 0" as another value, which is not what is wrong.
func dropEchoes(ps source.Problems) source.Problems {
	outOfRange := map[source.Problem]bool{}
	for _, p := range ps {
		if strings.Contains(p.Msg, "is out of range") {
			outOfRange[source.Problem{File: p.File, Line: p.Line, Column: p.Column}] = true
		}
	}
	if len(outOfRange) == 0 {
		return ps
	}
	out := ps[:0]
	for _, p := range ps {
		at := source.Problem{File: p.File, Line: p.Line, Column: p.Column}
		if outOfRange[at] && strings.Contains(p.Msg, "the same numeric value") {
			continue
		}
		out = append(out, p)
	}
	return out
}
