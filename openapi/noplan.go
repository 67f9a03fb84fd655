package openapi

import (
	"bytes"
	"fmt"
)

// NoPlan says why two documents get no subset plan, and so load whole: the
// rule of the cutter's that did not hold, and where. A user whose contract
// is slow to compare reads it in --stats and can tell a layout the cutter
// does not read from a part of the contract it must not cut.
type NoPlan struct {
	Reason string
	// New: the new document's (else the old one's, or both's when Line
	// is 0). Line is 1-based; 0 when the reason has no one place.
	New  bool
	Line int
}

func (n *NoPlan) Error() string {
	if n.Line == 0 {
		return "no plan: " + n.Reason
	}
	return fmt.Sprintf("no plan: %s at line %d", n.Reason, n.Line)
}

// noPlan is the reason why at the line holding byte off of src (off < 0:
// no one place).
func noPlan(src []byte, off int, why string) *NoPlan {
	if off < 0 {
		return &NoPlan{Reason: why}
	}
	return &NoPlan{Reason: why, Line: bytes.Count(src[:min(off, len(src))], []byte("\n")) + 1}
}

// onSide is n marked as the new document's when isNew.
func (n *NoPlan) onSide(isNew bool) *NoPlan {
	if n != nil {
		n.New = isNew
	}
	return n
}
