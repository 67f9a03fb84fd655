package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// minDoc is the shortest Doc that can say what a rule catches, whom it
// breaks and what to do instead.
const minDoc = 80

// TestRuleDocs fails when a registered rule lacks any part of the
// documentation `contractlint rules ID` prints.
func TestRuleDocs(t *testing.T) {
	for _, r := range rules.Default().All() {
		for part, text := range map[string]string{"Title": r.Title, "Doc": r.Doc, "Bad": r.Bad, "Good": r.Good} {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s has no %s", r.ID, part)
			}
		}
		if n := len(r.Doc); n > 0 && n < minDoc {
			t.Errorf("%s: Doc is %d characters, want at least %d", r.ID, n, minDoc)
		}
	}
}

// noCaseRules are produced only outside lint and diff, so testdata/rules
// cannot show them: review reports deleted and unreadable contract files (internal/review's
// tests show those on real git repositories) and weakened lock files, and
// `contractlint probe` and `contractlint replay` report their packs from live
// answers.
var noCaseRules = []string{
	"contract-file-removed", "contract-unreadable", "lock-file-weakened",
	rules.ProbeConcurrentDuplicates, rules.ProbeRetryReplay, rules.ProbeKeyReuseMismatch,
	rules.ProbeMissingKey, rules.ProbeReorderedBody, rules.ProbeInFlightConflict,
	rules.ProbeContractMismatch, rules.ProbeKeyAccountScope, rules.ProbeDelayedRetry,
	rules.ReplayStatusUndocumented, rules.ReplayResponseInvalid, rules.ReplayValueOutOfRange,
	rules.ReplayRequestRejected, rules.ReplayNoAnswer, rules.ReplayNotSent,
}

// TestRuleCases checks that every rule a lint or diff can report has a
// positive case (one expecting it) and a negative case (one of its own that
// does not) under testdata/rules/<id>/; TestRules then runs them.
func TestRuleCases(t *testing.T) {
	for _, r := range rules.Default().All() {
		if slices.Contains(noCaseRules, r.ID) {
			continue
		}
		if r.Check == nil {
			t.Errorf("%s has no Check and is not listed in noCaseRules", r.ID)
			continue
		}
		cases, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", r.ID, "*"))
		var pos, neg bool
		for _, dir := range cases {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				continue
			}
			if slices.Contains(wantedIDs(t, dir), r.ID) {
				pos = true
			} else {
				neg = true
			}
		}
		if !pos {
			t.Errorf("%s: no case under testdata/rules/%s/ expects it (want %s)", r.ID, r.ID, r.ID)
		}
		if !neg {
			t.Errorf("%s: every case under testdata/rules/%s/ expects it; add one where it stays silent", r.ID, r.ID)
		}
	}
}

// wantedIDs lists the rule IDs a case's inline expectations name.
func wantedIDs(t *testing.T, dir string) []string {
	var ids []string
	for _, w := range expectations(t, dir) {
		ids = append(ids, w[strings.LastIndexByte(w, ' ')+1:])
	}
	return ids
}
