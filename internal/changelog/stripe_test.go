package changelog_test

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

const stripeOld, stripeNew = "stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-12.yaml"

func stripeDir(tb testing.TB) string {
	dir := tb.TempDir()
	corpus.Gunzip(tb, stripeOld, dir)
	corpus.Gunzip(tb, stripeNew, dir)
	return dir
}

// TestStripeOnce checks the changelog of two real Stripe specs lists each
// change once: no two entries say the same thing, and every change of the
// diff is in it (the diff's per-direction copies and a property's type told
// twice fold into one entry).
func TestStripeOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two 4 MB documents")
	}
	l, in := logOf(t, stripeDir(t), stripeOld, stripeNew)
	seen := map[string]string{}
	listed := map[string]bool{}
	for _, g := range l.Groups {
		for _, e := range g.Entries {
			k := fmt.Sprint(e.Action, e.Subject, e.Path, e.Aspect, e.Old, e.New)
			if prev, dup := seen[k]; dup {
				t.Errorf("change %s listed twice: under %s and %s", e.Path, prev, g.Name)
			}
			seen[k] = g.Name
			listed[e.Path] = true
		}
	}
	for _, c := range in.Changes {
		if !listed[c.Path] && !(c.Subject == rules.SubjectField && c.Aspect == "") {
			t.Errorf("change %s (%v %v) missing from the changelog", c.Path, c.Kind, c.Subject)
		}
	}
	s := l.Summarize()
	if s.Changes == 0 || s.Breaking == 0 || s.Changes >= len(in.Changes) {
		t.Errorf("summary %v of %d diff changes: want some breaking, and fewer entries than the diff's per-direction changes", s, len(in.Changes))
	}
}

// BenchmarkStripeChangelog reports the changelog's time (load, diff, both
// directions' rules, the text) as a ratio to loading the two documents.
func BenchmarkStripeChangelog(b *testing.B) {
	dir := stripeDir(b)
	src, err := source.OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var load, total time.Duration
	for b.Loop() {
		st := &pipeline.Stats{}
		o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}, Stats: st}
		start := time.Now()
		in, err := pipeline.Compare(pipeline.Side{Src: src, Files: []string{stripeOld}}, pipeline.Side{Src: src, Files: []string{stripeNew}}, o)
		if err != nil {
			b.Fatal(err)
		}
		if err := changelog.Write(io.Discard, changelog.Of(in, o.Registry, o.Settings), "text"); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		load += st.Phases[0].Time
	}
	b.ReportMetric(float64(total)/float64(load), "changelog/load")
}
