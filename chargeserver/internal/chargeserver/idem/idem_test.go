package idem

import (
	"strings"
	"testing"
)

func TestCanonicalIgnoresKeyOrderAndNumberSpelling(t *testing.T) {
	a := `{"amount_cents": 4000, "currency": "GBP", "meta": {"b": 1, "a": [1.50, "x"]}}`
	b := `{"meta": {"a": [1.5, "x"], "b": 1.0}, "currency": "GBP", "amount_cents": 4e3}`
	fa, fb := mustFingerprint(t, a), mustFingerprint(t, b)
	if fa != fb {
		t.Fatalf("fingerprints differ for equivalent bodies: %s vs %s", fa, fb)
	}
	if fc := mustFingerprint(t, `{"amount_cents": 4001, "currency": "GBP"}`); fc == fa {
		t.Fatal("different bodies share a fingerprint")
	}
}

func TestCanonicalForm(t *testing.T) {
	v, err := Parse([]byte(`{"z": 1E2, "a": {"y": null, "x": true}, "s": "é\""}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"x":true,"y":null},"s":"é\"","z":100}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestParseRejectsTrailingData(t *testing.T) {
	for _, body := range []string{`{}{}`, `{} x`, `{"a":`, ``} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("Parse(%q) accepted", body)
		}
	}
}

func TestValidateKey(t *testing.T) {
	cases := map[string]error{
		"":                       ErrKeyMissing,
		"ok-key_1 with spaces":   nil,
		strings.Repeat("k", 255): nil,
		strings.Repeat("k", 256): ErrKeyTooLong,
		"tab\tkey":               ErrKeyInvalid,
		"caf\u00e9":              ErrKeyInvalid,
		"nul\x00":                ErrKeyInvalid,
	}
	for k, want := range cases {
		if got := ValidateKey(k); got != want {
			t.Errorf("ValidateKey(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestProcessorKeyScopes(t *testing.T) {
	base := ProcessorKey("acct_a", "POST /v1/charges", "k1", "n1")
	if base != ProcessorKey("acct_a", "POST /v1/charges", "k1", "n1") {
		t.Fatal("derivation is not deterministic")
	}
	for _, other := range []string{
		ProcessorKey("acct_b", "POST /v1/charges", "k1", "n1"),
		ProcessorKey("acct_a", "POST /v1/refunds", "k1", "n1"),
		ProcessorKey("acct_a", "POST /v1/charges", "k2", "n1"),
		ProcessorKey("acct_", "aPOST /v1/charges", "k1", "n1"),
		// The same key claimed again (after its first claim was pruned).
		ProcessorKey("acct_a", "POST /v1/charges", "k1", "n2"),
	} {
		if other == base {
			t.Fatal("different scopes or claims derive the same processor key")
		}
	}
	if a, b := NewNonce(), NewNonce(); a == b || len(a) != 32 {
		t.Fatalf("nonces %q and %q: want 128 fresh random bits each", a, b)
	}
}

func mustFingerprint(t *testing.T, body string) string {
	t.Helper()
	v, err := Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return Fingerprint(c)
}
