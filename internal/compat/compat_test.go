package compat

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/gittest"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/rules"
)

var rels = []Release{{Name: "v1"}, {Name: "v2"}, {Name: "v3"}, {Name: "v4"}}

// A break found against several releases is one finding, the oldest
// release's, naming how far it reaches; a removal matches across releases
// although each points into its own copy of the old file.
func TestOnce(t *testing.T) {
	at := func(line int) rules.Location { return rules.Location{File: "api.yaml", Line: line} }
	typ := rules.Finding{Rule: "field-redefined", Path: "#/x/status", Where: at(9), Message: "status"}
	gone := func(line int) rules.Finding {
		return rules.Finding{Rule: "response-property-removed", Path: "#/x/note", Where: at(line), Removed: true, Message: "note"}
	}
	other := rules.Finding{Rule: "field-redefined", Path: "#/x/amount", Where: at(12), Message: "amount"}
	per := [][]rules.Finding{{other, gone(30)}, {gone(31)}, {typ, gone(32)}, {typ}}
	var got []string
	for _, f := range once(per, rels, rules.Default()) {
		got = append(got, f.Message)
	}
	want := []string{
		"status; breaks clients built against v3 and later up to v4",
		"amount; breaks clients built against v1",
		"note; breaks clients built against v1 and later up to v3",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A lint finding is about the head alone and an info finding is not a break
// (operation-removed-unread is the safe step of expand/contract): neither
// may claim to break the clients of the release it was found against.
func TestOnceNotABreak(t *testing.T) {
	at := rules.Location{File: "o.proto", Line: 3}
	gap := rules.Finding{Rule: "field-number-gap-reserved", Severity: rules.Info, Where: at, Message: "gap", Path: "o.v1.Order"}
	unread := rules.Finding{Rule: "operation-removed-unread", Severity: rules.Info, Where: at, Removed: true, Message: "unread", Path: "/v1/x"}
	lint := rules.Finding{Rule: "money-as-float", Severity: rules.Warning, Where: at, Message: "float", Path: "o.v1.Order.price"}
	var got []string
	for _, f := range once([][]rules.Finding{{gap, unread}, {gap, lint}}, rels, rules.Default()) {
		got = append(got, f.Message)
	}
	want := []string{"gap; found against v1 and later up to v2", "float; found against v2", "unread; found against v1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A forward break is about new clients meeting a server still on the old
// release, not about that release's clients.
func TestOnceForward(t *testing.T) {
	fwd := rules.Finding{Rule: "forward-type-changed", Severity: rules.Error, Compat: rules.Forward,
		Where: rules.Location{File: "api.yaml", Line: 9}, Path: "#/x/amount", Message: "amount"}
	got := once([][]rules.Finding{{fwd}, {fwd}}, rels, rules.Default())
	if want := "amount; breaks new clients of servers still on v1 and later up to v2"; len(got) != 1 || got[0].Message != want {
		t.Errorf("got %v, want one finding %q", got, want)
	}
}

func TestBreaksGap(t *testing.T) {
	if got, want := breaks("breaks clients built against", []int{0, 2}, rels), "breaks clients built against v1, v3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Releases nobody called within the window are skipped; evidence that
// names no release (no consumer@release) skips nothing.
func TestStillCalled(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	ev := &readers.Set{Now: now, Window: readers.DefaultWindow, Entries: []readers.Entry{
		{Consumer: "ios@v1", LastSeen: now.AddDate(-1, 0, 0)},
		{Consumer: "ios@v2", LastSeen: now.AddDate(0, 0, -3)},
		{Consumer: "web@v4"}, // a Pact: what the consumer does now
	}}
	checked, skipped := stillCalled(rels, ev)
	if got := names(checked) + " / " + names(skipped); got != "v2, v4 / v1, v3" {
		t.Errorf("checked / skipped: %s, want v2, v4 / v1, v3", got)
	}
	ev.Entries = []readers.Entry{{Consumer: "ios", LastSeen: now}}
	if checked, skipped := stillCalled(rels, ev); len(checked) != len(rels) || skipped != nil {
		t.Errorf("evidence without releases skipped %s", names(skipped))
	}
}

// A release only the lock knows has no date: it takes its place among the
// tagged ones by version, "v2.10.0" after "v2.9.0".
func TestPlaceGone(t *testing.T) {
	tagged := []Release{{Name: "v2.9.0"}, {Name: "v3.0.0"}}
	gone := []Release{{Name: "v1.0.0"}, {Name: "v2.10.0"}, {Name: "v4.0.0"}}
	got := names(placeGone(tagged, gone))
	if want := "v1.0.0, v2.9.0, v2.10.0, v3.0.0, v4.0.0"; got != want {
		t.Errorf("placeGone = %s, want %s", got, want)
	}
}

// Resolve reads every tag the glob matches, lightweight or annotated, with
// its commit from one listing; a tag that names no commit is refused by
// name, and a release named twice is compared once.
func TestResolveTags(t *testing.T) {
	r := gittest.New(t)
	r.Git(t, "commit", "-q", "--allow-empty", "-m", "one")
	r.Git(t, "tag", "v1.0.0")
	r.Git(t, "commit", "-q", "--allow-empty", "-m", "two")
	r.Git(t, "tag", "-a", "-m", "annotated", "v2.0.0")
	one, two := r.Git(t, "rev-parse", "HEAD~1"), r.Git(t, "rev-parse", "HEAD")
	// Named newest first, and again by the glob: oldest first, once each.
	rels, err := Resolve(r.Dir, []string{"v2.0.0"}, "v*", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Release{{Name: "v1.0.0", Commit: one}, {Name: "v2.0.0", Commit: two}}
	if len(rels) != len(want) {
		t.Fatalf("got %+v, want %+v", rels, want)
	}
	for i, w := range want {
		if rels[i].Name != w.Name || rels[i].Commit != w.Commit || rels[i].when == 0 {
			t.Errorf("release %d: got %+v, want %s at %s with its time", i, rels[i], w.Name, w.Commit)
		}
	}
	r.Git(t, "tag", "v3.0.0", "HEAD^{tree}")
	var me *review.MissingError
	if _, err := Resolve(r.Dir, nil, "v*", false); !errors.As(err, &me) || !strings.Contains(me.Msg, "release v3.0.0: no such commit") {
		t.Errorf("a tag of a tree: got %v, want it named as no commit", err)
	}
}
