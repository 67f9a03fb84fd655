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
		// The variants teams write: the unit named only in the new text, the
		// price sent as a decimal string, and a proto comment.
		{"description-only: cents named where no unit was, example 100x", "v1-unstated.yaml", "v2-unstated-cents.yaml", "",
			[]string{"v2-unstated-cents.yaml:24 field-redefined"},
			[]string{"unit (none stated) -> cents", "example 40 -> 4000", "100 times too large", "add price_cents"}},
		{"string money: \"40.00\" becomes \"4000\"", "v1-string.yaml", "v2-string-cents.yaml", "",
			[]string{"v2-string-cents.yaml:24 field-redefined"},
			[]string{`example "40.00" -> "4000"`, "100 times too large"}},
		{"proto comment: dollars to cents", "proto-v1", "proto-v2", "",
			[]string{"proto-v2/tixdrop/orders.proto:6 field-redefined"},
			[]string{"price: unit dollars -> cents", "add price_cents", "100 times too large", "100 times too small"}},
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
			fs, err := pipeline.Diff(storySide(t, src, step.old), storySide(t, src, step.new), o)
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

// storySide is one version of the story: a file, or a directory of .proto.
func storySide(t *testing.T, src source.Source, name string) pipeline.Side {
	if strings.Contains(name, ".") {
		return pipeline.Side{Src: src, Files: []string{name}}
	}
	files, err := pipeline.ProtoFiles(src, name)
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Side{Src: src, Dir: name, Files: files}
}
