package review

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// releasedRepo builds a history on real git: v1 tagged (if tagged), then a
// commit that gives number 2 to price, four days later one that deletes it
// without reserving it; the work tree then gives 2 to quantity.
func releasedRepo(t *testing.T, tagged bool) (r *testRepo, priced string) {
	t.Helper()
	r = newRepo(t, "main")
	proto := func(fields string) string {
		return "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n" + fields + "}\n"
	}
	at := func(date string) {
		t.Setenv("GIT_AUTHOR_DATE", date)
		t.Setenv("GIT_COMMITTER_DATE", date)
	}
	at("2024-03-01T10:00:00Z")
	r.write("shop.proto", proto(""))
	r.commit("v1")
	if tagged {
		r.tag("v1.0.0", "")
	}
	r.write("shop.proto", proto("  double price = 2;\n"))
	priced = r.commit("price")
	at("2024-03-05T10:00:00Z")
	r.write("shop.proto", proto(""))
	r.commit("price was a mistake")
	r.write("shop.proto", proto("  int64 quantity = 2;\n"))
	return r, priced
}

// TestHistoryReleased: with release tags, a number that only commits no tag
// contains used is a warning naming the commit and how long it lived; in a
// repository without tags, or with `history: all`, it is an error as before.
func TestHistoryReleased(t *testing.T) {
	t.Run("unreleased", func(t *testing.T) {
		r, priced := releasedRepo(t, true)
		res, err := Run(options(r.top))
		if err != nil {
			t.Fatal(err)
		}
		if hasRule(res.Findings, "field-number-reused") {
			t.Errorf("a number no release used failed the gate: %v", res.Findings)
		}
		fs := findingsOf(res.Findings, "field-number-reused-unreleased")
		if len(fs) != 1 || fs[0].Severity != rules.Warning {
			t.Fatalf("want one field-number-reused-unreleased warning, got %v", res.Findings)
		}
		for _, want := range []string{`"price"`, priced[:12], "4 days", "2024-03-01", "2024-03-05", "reserve 2"} {
			if !strings.Contains(fs[0].Message, want) {
				t.Errorf("message lacks %q: %s", want, fs[0].Message)
			}
		}
	})
	t.Run("released", func(t *testing.T) {
		r, priced := releasedRepo(t, true)
		// A tag on the priced commit releases the number.
		r.tag("v1.1.0", priced)
		res, err := Run(options(r.top))
		if err != nil {
			t.Fatal(err)
		}
		if !hasRule(res.Findings, "field-number-reused") || hasRule(res.Findings, "field-number-reused-unreleased") {
			t.Errorf("a number a release used is an error: %v", res.Findings)
		}
	})
	t.Run("no tags", func(t *testing.T) {
		r, _ := releasedRepo(t, false)
		res, err := Run(options(r.top))
		if err != nil {
			t.Fatal(err)
		}
		if !hasRule(res.Findings, "field-number-reused") || hasRule(res.Findings, "field-number-reused-unreleased") {
			t.Errorf("without release tags every commit counts: %v", res.Findings)
		}
	})
	t.Run("history all", func(t *testing.T) {
		r, _ := releasedRepo(t, true)
		o := options(r.top)
		o.HistoryAll = true
		res, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if !hasRule(res.Findings, "field-number-reused") || hasRule(res.Findings, "field-number-reused-unreleased") {
			t.Errorf("history: all counts every commit: %v", res.Findings)
		}
	})
}
