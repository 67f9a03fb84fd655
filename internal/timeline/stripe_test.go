package timeline_test

import (
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
	// reviews every release of Stripe's spec.
	page := filepath.Join(t.TempDir(), "history.html")
	r := history(t, top, "--html", page)
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	findings, changes := len(r.Breaks), 0
	for _, st := range r.Steps {
		findings += len(st.Findings)
		changes += len(st.Changes)
	}
	t.Logf("Stripe history: %d releases, %d findings and %d changes across the steps, page %d bytes", len(r.Releases), findings, changes, fi.Size())
	if changes == 0 {
		t.Fatal("the Stripe releases changed nothing")
	}
	if fi.Size() >= 2<<20 {
		t.Errorf("the page is %d bytes, want under 2 MB", fi.Size())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, st := range r.Steps {
		for _, f := range st.Findings {
			if !strings.Contains(html, escapeText(f.Message)) {
				t.Errorf("the page lacks the finding %q", f.Message)
			}
		}
		for _, c := range st.Changes {
			if !strings.Contains(html, escapeText(c.What)) {
				t.Errorf("the page lacks the change %q", c.What)
			}
		}
	}
}
