package compat

import "github.com/contractlint/contractlint/rules"

// BreakKey names the break f is across releases, as Run tells one break
// found against several releases from two: reports that show each
// release's findings use it to say which releases one break reaches.
func BreakKey(f rules.Finding) string { return breakKey(f) }

// IsBreak reports whether f breaks the clients of the release it was found
// against: a diff rule's warning or error, not a lint or an info finding.
func IsBreak(f rules.Finding, reg *rules.Registry) bool { return isBreak(f, reg) }
