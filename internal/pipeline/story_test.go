package pipeline_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestStory replays the ticket-price story in testdata/story: each step of
// the contract's history must give exactly the findings it predicts.
func TestStory(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "story")
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Evidence is judged on a fixed day, so the story does not age.
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, step := range []struct {
		name, old, new, readers string
		want                    []string // "file:line rule"
		says                    []string // words the single finding's message must hold
	}{
		{"price redefined as cents", "v1.yaml", "v2-bad.yaml", "",
			[]string{"v2-bad.yaml:24 field-redefined"},
			[]string{"type number -> integer", "unit dollars -> cents", "$4,000", "add price_cents"}},
		{"price_cents added beside price", "v1.yaml", "v2-good.yaml", "", nil, nil},
		{"price removed while the 2025 app reads it", "v2-good.yaml", "v3.yaml", "readers-v3",
			[]string{"v2-good.yaml:24 field-removed-while-read"},
			[]string{"tixdrop-ios-2025", "Pact file"}},
		{"price removed after its readers are gone", "v2-good.yaml", "v4.yaml", "readers-v4",
			[]string{"v2-good.yaml:24 field-removed-unread"},
			[]string{"since 2026-01-30", "tixdrop-ios-2025 on 2026-01-12", "expand/contract"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{
				// The story is about evolving a field; the single-contract
				// packs have their own fixtures.
				Packs: map[string]bool{"idempotency": false, "evolvability": false},
			}}
			if step.readers != "" {
				o.Readers, err = readers.Load(dir, []string{filepath.Join(dir, step.readers)}, readers.DefaultWindow, now, limits.DefaultFileSize,
					func(w string) { t.Errorf("warning: %s", w) })
				if err != nil {
					t.Fatal(err)
				}
			}
			fs, err := pipeline.Diff(pipeline.Side{Src: src, Files: []string{step.old}},
				pipeline.Side{Src: src, Files: []string{step.new}}, o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s:%d %s", f.Where.File, f.Where.Line, f.Rule))
			}
			if d := cmp.Diff(step.want, got); d != "" {
				t.Fatalf("findings differ from exactly what the step predicts (-want +got):\n%s", d)
			}
			for _, w := range step.says {
				if !strings.Contains(fs[0].Message, w) {
					t.Errorf("message %q lacks %q", fs[0].Message, w)
				}
			}
		})
	}
}
