package pipeline_test

import (
	"context"
	"errors"
	"testing"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestCancelledRunStops: a run whose Options.Context is cancelled returns
// the context's error and no findings, whether it was cancelled before it
// began or between its phases (here after the diff, before the rules: the
// editor's comparison of a buffer an edit made stale). The same run not
// cancelled finds what the pair holds.
func TestCancelledRunStops(t *testing.T) {
	src, err := source.OpenDir("../../testdata/rules/removed-before-sunset/future")
	if err != nil {
		t.Fatal(err)
	}
	old, new := pipeline.Side{Src: src, Files: []string{"old.yaml"}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}}
	o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
	if fs, err := pipeline.Diff(old, new, o); err != nil || len(fs) == 0 {
		t.Fatalf("not cancelled: %d findings, %v; want findings", len(fs), err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.Context = ctx
	if fs, err := pipeline.Diff(old, new, o); !errors.Is(err, context.Canceled) || fs != nil {
		t.Errorf("cancelled before: %d findings, %v; want none and context.Canceled", len(fs), err)
	}
	if fs, err := pipeline.Lint(new, o); !errors.Is(err, context.Canceled) || fs != nil {
		t.Errorf("lint cancelled before: %d findings, %v; want none and context.Canceled", len(fs), err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	o.Context = ctx
	diffed := false
	o.Compared = func(*rules.Input) { diffed = true; cancel() }
	if fs, err := pipeline.Diff(old, new, o); !errors.Is(err, context.Canceled) || fs != nil || !diffed {
		t.Errorf("cancelled after the diff (reached: %v): %d findings, %v; want none and context.Canceled", diffed, len(fs), err)
	}
}
