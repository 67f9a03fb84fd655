package review

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/cache"
)

// TestHistoryWalkCached: on a small history repository, the walk finds the
// number reuse only it can see, and a review with --cache, cold and warm,
// reports exactly what one without it does.
func TestHistoryWalkCached(t *testing.T) {
	r := historyRepo(t, 400, 20)
	plain, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(plain.Findings, "field-number-reused") {
		t.Fatalf("no field-number-reused among %v", plain.Findings)
	}
	one := options(r.top)
	one.HistoryDepth = 1
	shallow, err := Run(one)
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(shallow.Findings, "field-number-reused") {
		t.Fatalf("--history-depth 1 saw a reuse of a number deleted long ago: %v", shallow.Findings)
	}
	store, err := cache.Open(t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, run := range []string{"cold", "warm"} {
		o := options(r.top)
		o.Pipeline.Cache = store
		cached, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(plain.Findings, cached.Findings); d != "" {
			t.Errorf("%s cache: findings differ (-without +with):\n%s", run, d)
		}
	}
}
