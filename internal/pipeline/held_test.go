package pipeline_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
)

// heldRun diffs old and new with h holding the old side and with both
// documents loaded whole and nothing held: every field of every finding
// must be the same. h's first run with a subset plan starts the old
// side's whole load and, not waiting for it, loads the plan's old text;
// heldRun waits for that load, so every later run restricts it.
func heldRun(t *testing.T, h *pipeline.Held, old, new pipeline.Side) {
	t.Helper()
	got, gotErr := pipeline.Diff(old, new, pipeline.Options{Registry: defaultRules(), Settings: everyRule(), Held: h})
	h.Wait()
	sameAsWhole(t, old, new, got, gotErr, "held")
}

// TestHeldSameFindingsRules runs every OpenAPI pair of the rule cases with
// the old side held, twice: the first run while the held load has not
// finished, the second restricting it.
func TestHeldSameFindingsRules(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	for _, dir := range cases {
		old, new, ok := openAPIPair(dir)
		if !ok {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			h := pipeline.NewHeld()
			for range 2 {
				heldRun(t, h, pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}})
			}
		})
	}
}

// TestHeldSameFindingsStripeEdits holds Stripe's spec as the old side of
// one session and compares a series of edits of it, as an editor makes
// them, each against the whole load: a property of an operation, a shared
// component nearly every operation reaches (in place, and with a line added
// that moves every path below it), a removed path, a description, a reused
// operationId, and the document back as it was. Each case loads Stripe
// whole: the default run checks a sample of three, the full run (see
// corpus.Full) every case.
func TestHeldSameFindingsStripeEdits(t *testing.T) {
	dir, name, spec := stripeSpec(t)
	firstInteger := func(section string) edit {
		at := regexp.MustCompile(`(?m)^` + section + `:`).FindStringIndex(spec)[0]
		l := regexp.MustCompile(`(?m)^ +type: integer\n`).FindString(spec[at:])
		anchor := section + ":\n"
		if at > 0 {
			anchor = "\n" + anchor
		}
		return edit{anchor, l, strings.Replace(l, "integer", "number", 1)}
	}
	coupons := "\n  /v1/coupons:\n"
	// The first edit of a session is judged while its base still loads: a
	// plan blanking most chunks loads its old text, and one keeping most of
	// them (the shared component) waits for the load.
	for i, e := range []edit{firstInteger("paths"), firstInteger("components")} {
		t.Run("first edit while the base loads: "+strings.Trim(e.at, "\n:"), func(t *testing.T) {
			if i == 0 {
				// The session below starts with the same edit, judged the
				// same way: the sample leaves this one to the full run.
				corpus.FullOnly(t)
			}
			writeFile(t, filepath.Join(dir, "new.yaml"), apply(t, spec, []edit{e}))
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			heldRun(t, pipeline.NewHeld(), pipeline.Side{Src: src, Files: []string{name}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}})
		})
	}
	h := pipeline.NewHeld()
	for _, tc := range []struct {
		name   string
		edits  []edit
		sample bool // in the default run's sample (each case loads Stripe whole)
	}{
		{"an operation's parameter changes type", []edit{firstInteger("paths")}, true},
		{"the document as the base has it", nil, false},
		{"a component every operation reaches changes type", []edit{firstInteger("components")}, true},
		{"a line added to a component moves every path below it", []edit{firstInteger("components"),
			{"", "  schemas:\n    account:\n", "  schemas:\n    account:\n      x-editor-note: a line more\n"}}, false},
		{"a path is removed", []edit{{"", coupons, "\n  /v1/coupons-gone:\n"}}, false},
		{"only a description changes", []edit{{"\n  '/v1/tax_rates/{tax_rate}':\n", "<p>Retrieves a tax rate with the given ID</p>", "<p>Retrieves one tax rate</p>"}}, false},
		{"a new operation reuses an operationId",
			[]edit{{"", coupons, "\n  /v1/coupons2:\n    get:\n      operationId: GetCoupons\n      responses:\n        '200':\n          description: ok\n" + coupons[1:]}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.sample {
				corpus.FullOnly(t)
			}
			writeFile(t, filepath.Join(dir, "new.yaml"), apply(t, spec, tc.edits))
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			heldRun(t, h, pipeline.Side{Src: src, Files: []string{name}}, pipeline.Side{Src: src, Files: []string{"new.yaml"}})
		})
	}
}

// stripeSpec unpacks Stripe's 2023-09-12 spec into a new directory and
// returns the directory, the file's name and its text; it skips in -short.
func stripeSpec(t *testing.T) (dir, name, spec string) {
	t.Helper()
	if testing.Short() {
		t.Skip("loads 4 MB documents")
	}
	name = stripeName
	dir = t.TempDir()
	corpus.Gunzip(t, name, dir)
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return dir, name, string(b)
}
