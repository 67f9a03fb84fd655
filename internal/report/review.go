package report

import "fmt"

// Review is what a review compared, for the reports that say so: a gate
// that passed must say against what, and whether it compared anything.
type Review struct {
	// Base names the commit compared against: "main @ 3f2a1c9, merge base
	// of HEAD". BaseRef and BaseCommit are its parts for machine formats.
	Base       string
	BaseRef    string
	BaseCommit string
	// RepositoryURI is the repository's remote without credentials, ""
	// when unknown (SARIF's versionControlProvenance needs it).
	RepositoryURI string
	// Compared counts the contracts compared; 0 means none changed.
	Compared int
	// NotReviewed names what changed but could not be reviewed
	// (submodules), each with why.
	NotReviewed []string
}

// Outcome is the one-line verdict: "no contracts changed" is not "compared
// 3 contracts, no findings".
func (v *Review) Outcome(s Summary) string {
	if v.Compared == 0 && s.Findings == 0 && s.AcceptedInPR == 0 {
		return "no contracts changed"
	}
	if s.Findings == 0 {
		return fmt.Sprintf("compared %s, no findings%s", plural(v.Compared, "contract"), acceptedNote(s))
	}
	return fmt.Sprintf("compared %s: %s", plural(v.Compared, "contract"), findingCounts(s))
}

func findingCounts(s Summary) string {
	return fmt.Sprintf("%s: %s, %s, %s%s", plural(s.Findings, "finding"), plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"), acceptedNote(s))
}
