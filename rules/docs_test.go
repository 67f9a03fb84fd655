package rules_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/ruletest"
	"github.com/contractlint/contractlint/rules"
)

// minDoc is the shortest Doc that can say what a rule catches, whom it
// breaks and what to do instead.
const minDoc = 80

// TestRuleDocs fails when a registered rule lacks any part of the
// documentation `contractlint rules ID` prints.
func TestRuleDocs(t *testing.T) {
	for _, r := range rules.Default().All() {
		for part, text := range map[string]string{"Title": r.Doc.Title, "Doc": r.Doc.Text, "Bad": r.Doc.Bad, "Good": r.Doc.Good} {
			if strings.TrimSpace(text) == "" {
				t.Errorf("%s has no %s", r.ID, part)
			}
		}
		if n := len(r.Doc.Text); n > 0 && n < minDoc {
			t.Errorf("%s: Doc is %d characters, want at least %d", r.ID, n, minDoc)
		}
	}
}

// noCaseRules are produced only outside lint and diff, so testdata/rules
// cannot show them: review reports deleted and unreadable contract files (internal/review's
// tests show those on real git repositories) and weakened lock files, and
// `contractlint probe` and `contractlint replay` report their packs from live
// answers, review says where a shallow clone cut the history (history-cut); the version gate (version-bump-missing) judges a run's findings
// together, shown by testdata/script/version_bump_*.txtar.
var noCaseRules = []string{
	"contract-file-removed", "contract-unreadable", "lock-file-weakened", "config-weakened", "history-cut",
	rules.VersionBumpMissingID,
	rules.ProbeConcurrentDuplicates, rules.ProbeRetryReplay, rules.ProbeKeyReuseMismatch,
	rules.ProbeMissingKey, rules.ProbeReorderedBody, rules.ProbeInFlightConflict,
	rules.ProbeContractMismatch, rules.ProbeKeyAccountScope, rules.ProbeDelayedRetry, rules.ProbeStepSkipped,
	rules.ReplayStatusUndocumented, rules.ReplayResponseInvalid, rules.ReplayValueOutOfRange,
	rules.ReplayRequestRejected, rules.ReplayNoAnswer, rules.ReplayNotSent,
}

// TestRuleCases checks that every rule a lint or diff can report has, for
// each format it declares, a positive case (one expecting it) and a negative
// case (one of its own that does not) under testdata/rules/<id>/; TestRules
// then runs them.
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
		for _, format := range []rules.Format{rules.OpenAPI, rules.Proto} {
			if r.Formats&format == 0 {
				continue
			}
			var pos, neg bool
			for _, dir := range cases {
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || caseFormat(dir) != format {
					continue
				}
				if slices.Contains(wantedIDs(t, dir), r.ID) {
					pos = true
				} else {
					neg = true
				}
			}
			if !pos {
				t.Errorf("%s: no %s case under testdata/rules/%s/ expects it", r.ID, format, r.ID)
			}
			if !neg {
				t.Errorf("%s: no %s case under testdata/rules/%s/ where it stays silent", r.ID, format, r.ID)
			}
		}
	}
}

// caseFormat is the format of a case's contracts: a new/ directory or a
// new.proto is protobuf, anything else OpenAPI.
func caseFormat(dir string) rules.Format {
	if fi, err := os.Stat(filepath.Join(dir, "new")); err == nil && fi.IsDir() {
		return rules.Proto
	}
	if _, err := os.Stat(filepath.Join(dir, "new.proto")); err == nil {
		return rules.Proto
	}
	return rules.OpenAPI
}

// wantedIDs lists the rule IDs a case's inline expectations name.
func wantedIDs(t *testing.T, dir string) []string {
	var ids []string
	wants, _, err := ruletest.Expectations(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		ids = append(ids, w.Rule)
	}
	return ids
}
