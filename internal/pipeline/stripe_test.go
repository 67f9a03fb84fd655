package pipeline_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestStripeFindings pins what contractlint reports on two real versions of
// Stripe's spec, so getting faster never means getting wrong: the number of
// findings, that it equals the number of distinct (rule, location) pairs
// (one change, one finding), and a sample of them.
func TestStripeFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two 4 MB documents")
	}
	const old, new = "stripe-spec3-2023-02-13.yaml", "stripe-spec3-2023-09-12.yaml"
	dir := t.TempDir()
	corpus.Gunzip(t, old, dir)
	corpus.Gunzip(t, new, dir)
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := pipeline.Diff(pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}},
		pipeline.Options{Registry: defaultRules(), Settings: &rules.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	distinct := map[string]bool{}
	for _, f := range fs {
		k := fmt.Sprintf("%s %s:%d", f.Rule, f.Where.File, f.Where.Line)
		got = append(got, k)
		distinct[fmt.Sprintf("%s %s", f.Rule, f.Where)] = true
	}
	// 211: the 220 of before less VerificationSession.options' document
	// and id_number, which its nullable anyOf wrapper made look removed
	// (response-property-removed and field-removed-without-deprecation each),
	// three field-redefined that repeated response-became-nullable, and two
	// field-removed-without-deprecation for mandate_data.customer_acceptance,
	// which is still there in the first member of the anyOf that now wraps
	// mandate_data (Stripe's "or empty string" form). 202: one edit, one
	// finding: six removals carry field-removed-without-deprecation, three
	// response-became-nullable carry response-property-became-optional.
	// 199: three response-one-of-added warnings went, whose new members
	// the old schema already accepted (schemas compared by what they
	// accept); and the 17 new POSTs without a key are warnings
	// (idempotency-key-not-adopted), since Stripe's spec declares no key.
	if len(fs) != 199 {
		t.Errorf("%d findings, want 199", len(fs))
	}
	if len(distinct) != len(fs) {
		t.Errorf("%d findings but %d distinct (rule, location) pairs", len(fs), len(distinct))
	}
	for _, want := range []string{
		"response-property-removed " + old + ":16913",
		"request-enum-value-removed " + old + ":102462",
		"response-property-type-changed " + new + ":17300",
		"response-became-nullable " + new + ":10663",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing finding %s", want)
		}
	}
	for _, f := range fs {
		if f.Rule == "response-property-removed" && f.Where.Line == 16913 && len(f.Operations) != 445 {
			t.Errorf("blik removal reaches %d operations, want 445", len(f.Operations))
		}
	}
}
