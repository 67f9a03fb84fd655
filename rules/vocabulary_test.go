package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

func termKey(f rules.Format, k rules.Kind, s rules.Subject, a rules.Aspect) string {
	return fmt.Sprintf("%s %s %s %q", f, k, s, a)
}

// TestVocabulary diffs both sides of every rule fixture, whole, and fails
// on a change rules.Vocabulary does not declare: a loader that learns a new
// kind of change must say in the table what it holds. A term no fixture
// emits is logged, not failed: review's own changes have no fixture pair.
func TestVocabulary(t *testing.T) {
	declared := map[string]bool{}
	for _, term := range rules.Vocabulary() {
		for _, f := range []rules.Format{rules.OpenAPI, rules.Proto} {
			if term.Formats&f == 0 {
				continue
			}
			k := termKey(f, term.Kind, term.Subject, term.Aspect)
			if declared[k] {
				t.Errorf("vocabulary declares %s twice", k)
			}
			declared[k] = true
		}
	}
	seen := map[string]bool{}
	for _, d := range wholeDiffs(t) {
		checkDeclared(t, d.dir, d.in, seen)
	}
	for k := range declared {
		if !seen[k] {
			t.Logf("no fixture emits %s", k)
		}
	}
}

// caseDiff is the whole diff of one rule fixture's two sides.
type caseDiff struct {
	dir string
	in  *rules.Input
}

// fixtureDiffs are the rule fixtures' whole diffs, made once for the
// package: TestVocabulary and TestRuleReads read the same diffs, and
// neither writes to them.
var fixtureDiffs struct {
	sync.Once
	diffs []caseDiff
	done  bool
}

// wholeDiffs diffs both sides of every rule fixture whole, leaving out lint
// cases (no diff) and cases about a contract that does not load.
func wholeDiffs(t *testing.T) []caseDiff {
	t.Helper()
	fixtureDiffs.Do(func() {
		reg := rules.Default()
		for _, c := range ruleCases(t) {
			oldSide, newSide, ok := casePair(t, c.Dir)
			if !ok {
				continue
			}
			in, err := pipeline.Compare(oldSide, newSide, pipeline.Options{Registry: reg, Settings: &rules.Settings{}, Whole: true})
			if err != nil {
				continue
			}
			fixtureDiffs.diffs = append(fixtureDiffs.diffs, caseDiff{c.Dir, in})
		}
		fixtureDiffs.done = true
	})
	if !fixtureDiffs.done || len(fixtureDiffs.diffs) == 0 {
		t.Fatal("the rule fixtures' diffs were not made (see the first test that asked for them)")
	}
	return fixtureDiffs.diffs
}

// checkDeclared fails on each kind of change in the diff that
// rules.Vocabulary does not declare, once, and marks every kind seen.
func checkDeclared(t *testing.T, where string, in *rules.Input, seen map[string]bool) {
	t.Helper()
	for i := range in.Changes {
		ch := &in.Changes[i]
		k := termKey(ch.Format, ch.Kind, ch.Subject, ch.Aspect)
		if !rules.Declared(ch) && !seen[k] {
			t.Errorf("%s: the diff emits %s (old=%q new=%q), which rules.Vocabulary does not declare", where, k, ch.Old.Text, ch.New.Text)
		}
		seen[k] = true
	}
}

// TestVocabularyCorpus is TestVocabulary on seven months of Stripe's
// contract, whose diff holds changes no fixture was written for.
// (googleapis' six months emit only declared changes too, but take minutes.)
func TestVocabularyCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the corpus")
	}
	skipRaceSample(t)
	const a, b = "stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-12.yaml"
	src := corpusDocs(t, a, b)
	reg := rules.Default()
	in, err := pipeline.Compare(pipeline.Side{Src: src, Files: []string{a}}, pipeline.Side{Src: src, Files: []string{b}},
		pipeline.Options{Registry: reg, Settings: &rules.Settings{}, Whole: true})
	if err != nil {
		t.Fatal(err)
	}
	checkDeclared(t, a+" -> "+b, in, map[string]bool{})
}

// TestRulesReadTypedValues fails when a rule judges by a word or number
// inside Change.Old.Text or Change.New.Text where the change carries the
// value typed (Required, In, Webhook, Old/New's Limit, Types, Bool): text is
// for messages.
func TestRulesReadTypedValues(t *testing.T) {
	word := regexp.MustCompile(`c\.(Old|New)\.Text [!=]= "(true|false|required|optional|webhook)"|strconv\.Parse\w*\(c\.(Old|New)\.Text|strings\.\w+\(c\.(Old|New)\.Text\b`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := word.FindString(line); m != "" {
				t.Errorf("%s:%d: %s reads a typed value out of text; read the typed field", f, i+1, m)
			}
		}
	}
}

// TestRuleReads holds every rule's Reads: each entry it lists is in
// rules.Vocabulary, and each change that leads to one of its findings over
// the rule fixtures (the finding carries the change's fingerprint) is of an
// entry it lists. Every rule's Check runs on every fixture's whole diff, so
// a rule is held on the fixtures of other rules too.
func TestRuleReads(t *testing.T) {
	inTable := map[rules.Entry]bool{}
	for _, term := range rules.Vocabulary() {
		inTable[term.Entry()] = true
	}
	reg := rules.Default()
	for _, r := range reg.All() {
		for _, e := range r.Reads {
			if !inTable[e] {
				t.Errorf("%s reads %s %s %q, which rules.Vocabulary does not declare", r.ID, e.Kind, e.Subject, e.Aspect)
			}
		}
	}
	missing := map[string]bool{}
	for _, d := range wholeDiffs(t) {
		in := d.in
		for _, r := range reg.All() {
			if r.Check == nil {
				continue
			}
			found := map[string]bool{}
			for _, f := range r.Check(in) {
				found[f.Fingerprint] = true
			}
			if len(found) == 0 {
				continue
			}
			for i := range in.Changes {
				c := &in.Changes[i]
				e := rules.Entry{Kind: c.Kind, Subject: c.Subject, Aspect: c.Aspect}
				if !found[c.Finding(r, "").Fingerprint] || slices.Contains(r.Reads, e) {
					continue
				}
				k := fmt.Sprintf("%s\t%s\t%s\t%s", r.ID, c.Kind, c.Subject, c.Aspect)
				if !missing[k] {
					missing[k] = true
					t.Errorf("%s: %s finds on a change %s %s %q, which its Reads does not list", d.dir, r.ID, c.Kind, c.Subject, c.Aspect)
				}
			}
		}
	}
}
