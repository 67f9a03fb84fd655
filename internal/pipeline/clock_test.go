package pipeline_test

import (
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestRulesReadTheGivenClock: a sunset date is judged against Options.Now,
// not the machine's clock, so the same two files give the same findings on
// any day the caller names.
func TestRulesReadTheGivenClock(t *testing.T) {
	src, err := source.OpenDir("../../testdata/rules/removed-before-sunset/future")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		day  string
		want string
	}{
		{"2026-12-01", "removed-before-sunset"},
		{"2100-01-01", "deprecated-removed"},
	} {
		at, _ := time.Parse(time.DateOnly, c.day)
		o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}, Now: func() time.Time { return at }}
		fs, err := pipeline.Diff(pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}}, o)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, f := range fs {
			got[f.Rule]++
		}
		if got[c.want] != 2 {
			t.Errorf("on %s: findings %v, want two %s", c.day, got, c.want)
		}
	}
}
