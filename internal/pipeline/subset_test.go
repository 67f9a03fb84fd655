package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// everyRule switches on every rule, those off by default too, so the
// subset load is checked against every finding the tool can make.
func everyRule() *rules.Settings {
	s := &rules.Settings{Rules: map[string]bool{}}
	for _, r := range rules.Default().All() {
		s.Rules[r.ID] = true
	}
	return s
}

// subsetRun diffs old and new with the subset load and with the whole
// documents: every field of every finding must be the same. It returns the
// subset run's stats.
func subsetRun(t *testing.T, old, new pipeline.Side, s *rules.Settings) *pipeline.Stats {
	t.Helper()
	st := &pipeline.Stats{}
	o := pipeline.Options{Registry: rules.Default(), Settings: s, Stats: st}
	got, gotErr := pipeline.Diff(old, new, o)
	o.Stats, o.Whole = nil, true
	want, wantErr := pipeline.Diff(old, new, o)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("subset load error %v, whole load error %v", gotErr, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings of the subset load differ from the whole load's (-whole +subset):\n%s", d)
	}
	return st
}

// TestSubsetSameFindingsRules runs every OpenAPI pair of the rule cases
// through both loads, with every rule on.
func TestSubsetSameFindingsRules(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	ran, skipped := 0, 0
	for _, dir := range cases {
		old, new, ok := openAPIPair(dir)
		if !ok {
			continue
		}
		ran++
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}}, everyRule())
			if st.ChunksSkipped > 0 {
				skipped++
			}
		})
	}
	// Most cases are one or two paths, all changed; enough leave something
	// out for the comparison to mean something.
	t.Logf("%d OpenAPI pairs, %d with chunks left out", ran, skipped)
	if skipped < 10 {
		t.Errorf("only %d of %d pairs left a chunk out", skipped, ran)
	}
}

// openAPIPair names a case's old and new OpenAPI documents.
func openAPIPair(dir string) (old, new string, ok bool) {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		_, oerr := os.Stat(filepath.Join(dir, "old"+ext))
		_, nerr := os.Stat(filepath.Join(dir, "new"+ext))
		if oerr == nil && nerr == nil {
			return "old" + ext, "new" + ext, true
		}
	}
	return "", "", false
}

// TestSubsetSameFindingsStripe compares both loads on real versions of
// Stripe's spec: adjacent days (where the subset leaves most of the
// document out) and seven months apart.
func TestSubsetSameFindingsStripe(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 4 MB documents")
	}
	for _, tc := range []struct {
		old, new string
		skips    bool
	}{
		{"stripe-spec3-2023-09-11.yaml", "stripe-spec3-2023-09-12.yaml", true},
		{"stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-12.yaml", false},
	} {
		t.Run(tc.old+"->"+tc.new, func(t *testing.T) {
			dir := t.TempDir()
			corpus.Gunzip(t, tc.old, dir)
			corpus.Gunzip(t, tc.new, dir)
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{tc.old}}, pipeline.Side{Src: src, Files: []string{tc.new}}, everyRule())
			if tc.skips && st.ChunksSkipped*2 < st.Chunks {
				t.Errorf("subset left out %d of %d chunks, want at least half", st.ChunksSkipped, st.Chunks)
			}
		})
	}
}
