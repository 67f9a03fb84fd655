package rules_test

import (
	"path/filepath"
	"testing"

	"github.com/contractlint/contractlint/internal/ruletest"
	"github.com/contractlint/contractlint/rules"
)

// ruleCases finds every case under testdata/rules/<rule-id>/<case>/.
func ruleCases(t *testing.T) []ruletest.Case {
	cases, err := ruletest.Cases(filepath.Join("..", "testdata", "rules"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases found: %v", err)
	}
	return cases
}

// TestRules runs every case with only the rule under test and the rules its
// also-run header names, and fails on any finding that is not expected
// inline (rule, line and message), and on any expectation unmet. A case
// holds old/new contracts (a diff) or only new (a lint run); an optional
// level.txt sets the proto level and compat.txt the directions judged.
// `contractlint test` runs a team's own cases through the same harness.
//
// It fails too when a rule reports, in any case, a severity other than the
// one it declares (and `contractlint rules` prints): a rule with two
// severities is two rules.
func TestRules(t *testing.T) {
	reg := rules.Default()
	for _, c := range ruleCases(t) {
		t.Run(c.Rule+"/"+filepath.Base(c.Dir), func(t *testing.T) {
			t.Parallel()
			fs, fails, err := ruletest.CheckFindings(reg, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fails {
				t.Error(f)
			}
			for _, f := range fs {
				r, ok := reg.Get(f.Rule)
				if ok && f.Severity != r.Severity {
					t.Errorf("%s: %s reported %s at %s, but declares %s", c.Dir, f.Rule, f.Severity, f.Where, r.Severity)
				}
			}
		})
	}
}
