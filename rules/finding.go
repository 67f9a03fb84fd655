package rules

import (
	"cmp"
	"fmt"
	"slices"
)

// Location is a place in a contract file; File is relative to the repository
// (or to the working directory) so reports never leak machine paths.
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

func (l Location) String() string {
	if l.Line == 0 {
		return l.File
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
}

// IsZero reports whether the location names no file.
func (l Location) IsZero() bool { return l.File == "" }

// Finding is one reported problem. Where is on the new side, except for
// removals, where it is on the old side and Removed is set.
type Finding struct {
	Rule     string
	Severity Severity
	// Bump is the version bump the finding's change needs (its rule's
	// RequiredBump); a severity override leaves it as it is.
	Bump    Bump
	Message string
	Where   Location
	// Old is the old-side location when it differs from Where.
	Old *Location
	// Removed marks Where as a line in the OLD file.
	Removed bool
	// Anchor is, for a removal, the line of the NEW file that held the
	// removed element, where a pull request can annotate it; nil if none.
	Anchor *Location
	// Operations lists every operation (or rpc) the change reaches.
	Operations []string
	// Path identifies the element (JSON pointer or proto full name); ignores match on it.
	Path string
	// Format is the contract format the finding is about.
	Format Format
	// Compat is the direction a diff finding breaks, set when the run judged
	// more than backward (--compat forward or full); zero otherwise.
	Compat Compat
	// Also names the rules whose findings about the same edit this one
	// stands for: superseded, or merged into its message (one edit, one
	// finding). Their peers' rule IDs (buf, oasdiff) are covered here too.
	Also []string
	// Related is what the findings merged into this one said, as data:
	// Message joins them for people, tools read them here.
	Related []Related
	// Fingerprint identifies the change a diff finding is about, without
	// its lines (see ChangeFingerprint); waivers match on it.
	Fingerprint string
	// Usage is what consumer evidence (--readers) says about the element
	// the finding removes: its calls, consumers and last sighting, or the
	// traffic that shows none; nil without evidence.
	Usage *Usage
}

// Related is one finding about the same edit that another stands for.
type Related struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// SortFindings orders findings by file, line, column, then rule, so reports
// are stable whatever order rules ran in.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, compareFindings)
}

// compareFindings orders findings by place, then rule, then message.
func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Where.File, b.Where.File),
		cmp.Compare(a.Where.Line, b.Where.Line),
		cmp.Compare(a.Where.Column, b.Where.Column),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Message, b.Message),
	)
}
