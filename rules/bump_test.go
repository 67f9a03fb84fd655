package rules

import "testing"

// Every rule contractlint ships needs a bump, declared or derived, so every
// finding in every format carries one.
func TestEveryRuleHasBump(t *testing.T) {
	for _, r := range Default().All() {
		if b := r.RequiredBump(); b < Patch || b > Major {
			t.Errorf("%s: no version bump (%d): declare Bump or give it a mode", r.ID, b)
		}
	}
}

// The bump follows what a rule judges, never its severity.
func TestRequiredBump(t *testing.T) {
	reg := Default()
	for id, want := range map[string]Bump{
		"operation-removed":                Major, // a backward break
		"response-enum-value-added":        Major, // a warning, still a break
		"field-removed-unread":             Major, // info: no reader seen, still a removal
		"forward-operation-added":          Minor, // new clients may use it
		"forward-request-enum-value-added": Minor,
		"idempotency-key-missing":          Patch, // lint: one version
		"probe-retry-replay":               Patch, // a live server
		"config-weakened":                  Patch, // the linter's own file
		"lock-file-weakened":               Patch,
	} {
		r, ok := reg.Get(id)
		if !ok {
			t.Fatalf("no rule %s", id)
		}
		if got := r.RequiredBump(); got != want {
			t.Errorf("%s: bump %s, want %s", id, got, want)
		}
	}
}

func TestParseBump(t *testing.T) {
	for _, b := range []Bump{Patch, Minor, Major} {
		if got, err := ParseBump(" " + b.String() + " "); err != nil || got != b {
			t.Errorf("ParseBump(%q) = %v, %v", b, got, err)
		}
	}
	if _, err := ParseBump("huge"); err == nil {
		t.Error("ParseBump(huge): no error")
	}
	if got := ChangeBump(&Change{Kind: Added}); got != Minor {
		t.Errorf("an addition needs %s, want minor", got)
	}
	if got := ChangeBump(&Change{Kind: Modified, Aspect: AspectName}); got != Patch {
		t.Errorf("a description change needs %s, want patch", got)
	}
}
