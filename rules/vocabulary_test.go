package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/ruletest"
	"github.com/contractlint/contractlint/internal/source"
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
	reg := rules.Default()
	for _, c := range ruleCases(t) {
		src, err := source.OpenDir(c.Dir)
		if err != nil {
			t.Fatal(err)
		}
		newSide, hasNew := ruletest.Side(src, c.Dir, "new")
		oldSide, hasOld := ruletest.Side(src, c.Dir, "old")
		if !hasNew || !hasOld {
			continue // a lint case: no diff
		}
		in, err := pipeline.Compare(oldSide, newSide, pipeline.Options{Registry: reg, Settings: &rules.Settings{}, Whole: true})
		if err != nil {
			continue // a case about a contract that does not load
		}
		for i := range in.Changes {
			ch := &in.Changes[i]
			k := termKey(ch.Format, ch.Kind, ch.Subject, ch.Aspect)
			if !rules.Declared(ch) && !seen[k] {
				t.Errorf("%s: the diff emits %s (old=%q new=%q), which rules.Vocabulary does not declare", c.Dir, k, ch.Old, ch.New)
			}
			seen[k] = true
		}
	}
	for k := range declared {
		if !seen[k] {
			t.Logf("no fixture emits %s", k)
		}
	}
}

// TestRulesReadTypedValues fails when a rule judges by a word or number
// inside Change.Old or Change.New where the change carries the value typed
// (Required, In, Webhook, OldValue/NewValue): text is for messages.
func TestRulesReadTypedValues(t *testing.T) {
	word := regexp.MustCompile(`c\.(Old|New) [!=]= "(true|false|required|optional|webhook)"|strconv\.Parse\w*\(c\.(Old|New)|strings\.\w+\(c\.(Old|New)\b`)
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
