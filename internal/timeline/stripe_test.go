package timeline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
)

// stripeVersions are the corpus's Stripe specs, oldest first: each is a
// release of the throwaway repository.
var stripeVersions = []string{"stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-11.yaml", "stripe-spec3-2023-09-12.yaml"}

// stripeRepo commits each Stripe version as api/spec3.yaml and tags it
// v1.0.0, v2.0.0, ...; the head is the last release. Unless corpus.Full it
// leaves out 2023-09-11, a day before the last (one Stripe load and one
// small step fewer; seven months of changes still between the two).
func stripeRepo(t *testing.T) string {
	t.Helper()
	top := newTop(t)
	versions := stripeVersions
	if !corpus.Full() {
		versions = []string{stripeVersions[0], stripeVersions[2]}
	}
	var commits []commit
	for i, v := range versions {
		commits = append(commits, commit{msg: v, tag: "v" + string(rune('1'+i)) + ".0.0",
			files: map[string][]byte{"api/spec3.yaml": corpus.Text(t, v)}})
	}
	importRepo(t, top, commits)
	return top
}

// TestHistoryStripeSize: the page of a Stripe-sized history (three
// releases of Stripe's 6 MB spec and the head; two in the default run's
// sample) stays under 2 MB and still holds every finding and change.
func TestHistoryStripeSize(t *testing.T) {
	if testing.Short() {
		t.Skip("reviews three releases of Stripe's spec")
	}
	top := stripeRepo(t)
	// One run writes both the page and the JSON it is held to: each run
	// reviews every release of Stripe's spec. The JSON (27 MB: each finding
	// lists every operation it reaches) goes to a file, not through a
	// buffer of standard output, and only what the page is held to is
	// decoded.
	dir := t.TempDir()
	page, out := filepath.Join(dir, "history.html"), filepath.Join(dir, "history.json")
	run(t, top, "history", "--format", "json", "--output", out, "--html", page)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r stripeHistory
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("history --format json: %v", err)
	}
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	findings, changes := int(r.Breaks), 0
	for _, st := range r.Steps {
		findings += len(st.Findings)
		changes += len(st.Changes)
	}
	t.Logf("Stripe history: %d releases, %d findings and %d changes across the steps, page %d bytes", r.Releases, findings, changes, fi.Size())
	if changes == 0 {
		t.Fatal("the Stripe releases changed nothing")
	}
	if fi.Size() >= 2<<20 {
		t.Errorf("the page is %d bytes, want under 2 MB", fi.Size())
	}
	if b, err = os.ReadFile(page); err != nil {
		t.Fatal(err)
	}
	html := string(b)
	// Each text is looked for once, however many steps or elements it
	// belongs to: each look reads the whole page.
	shown := map[string]bool{}
	lacks := func(what, s string) {
		ok, seen := shown[s]
		if !seen {
			ok = strings.Contains(html, escapeText(s))
			shown[s] = ok
		}
		if !ok {
			t.Errorf("the page lacks the %s %q", what, s)
		}
	}
	for _, st := range r.Steps {
		for _, f := range st.Findings {
			lacks("finding", f.Message)
		}
		for _, c := range st.Changes {
			lacks("change", c.What)
		}
	}
}

// stripeHistory is what TestHistoryStripeSize reads of the history's JSON:
// the count of releases and breaks, and each step's findings and changes by
// the text the page shows.
type stripeHistory struct {
	Releases length
	Breaks   length
	Steps    []struct {
		Findings []struct{ Message string }
		Changes  []struct{ What string }
	}
}

// length is a JSON array's length, its elements' fields skipped.
type length int

func (n *length) UnmarshalJSON(b []byte) error {
	var elems []struct{}
	if err := json.Unmarshal(b, &elems); err != nil {
		return err
	}
	*n = length(len(elems))
	return nil
}
