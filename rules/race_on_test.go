//go:build race

package rules_test

// raceEnabled: the race detector makes a corpus run about ten times slower
// and finds nothing the rule cases do not (the corpus adds size, not
// goroutines), so the corpus tests leave -race to the full run.
const raceEnabled = true
