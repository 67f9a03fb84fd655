package rules

import "testing"

// Fingerprints are a promise: waivers (.contractlint-waivers.yaml) and
// SARIF alerts (partialFingerprints) are keyed on them, so a release that
// changed one would reopen every accepted change. These values were
// computed once and must never change; what goes into each is listed in
// docs/rules.md#fingerprints. A change that must alter them comes with a
// migration note and a new partialFingerprints key.
func TestFingerprintsStable(t *testing.T) {
	c := &Change{Kind: Removed, Subject: SubjectField, Path: "#/components/schemas/Order/properties/note", Name: "note", Old: Value{Text: "string"}}
	if got, want := changeFingerprint("response-property-removed", c), "81c35ca98ddb918874a9"; got != want {
		t.Errorf("a change's fingerprint is %s, was %s", got, want)
	}
	// Lines and columns are no part of it: a finding that moved keeps it.
	f := Finding{Rule: "operation-removed", Path: "#/paths/~1orders/get", Message: "GET /orders was removed", Where: Location{File: "a.yaml", Line: 7}}
	moved := f
	moved.Where.Line = 70
	if got, want := f.ChangeFingerprint(), "757d78a741e75bcae7c9"; got != want || moved.ChangeFingerprint() != want {
		t.Errorf("a finding's fingerprint is %s (moved: %s), was %s", got, moved.ChangeFingerprint(), want)
	}
}
