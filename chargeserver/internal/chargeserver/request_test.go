package chargeserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// send posts body with exactly the headers given (no Content-Type or
// Authorization added), so a test can send what a careless or hostile client
// sends.
func (h *harness) send(t testing.TB, hdr http.Header, body string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.url+"/v1/charges", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := reply{Status: resp.StatusCode, Header: resp.Header}
	if r.Body, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	h.contract.check(t, req, r.Status, r.Header, r.Body)
	return r
}

// jsonHeader is a well-formed request's headers with the given key.
func jsonHeader(apiKey, idemKey string) http.Header {
	return http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + apiKey}, "Idempotency-Key": {idemKey}}
}

// refused asserts r is status with code and that nothing was charged.
func (h *harness) refused(t *testing.T, what string, r reply, status int, code string) {
	t.Helper()
	if r.Status != status || r.code() != code {
		t.Errorf("%s: %d %s, want %d %s", what, r.Status, r.Body, status, code)
	}
}

// TestDuplicateJSONKeysRefused: {"amount_cents":100,"amount_cents":999999}
// once charged 999999 (the last key won). A body with a repeated member, at
// any depth, is 400 and charges nothing.
func TestDuplicateJSONKeysRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		for i, body := range []string{
			`{"amount_cents":100,"amount_cents":999999,"currency":"GBP","card_token":"tok_visa"}`,
			`{"amount_cents":100,"currency":"GBP","card_token":"tok_visa","card_token":"tok_other"}`,
			`{"amount_cents":100,"currency":"GBP","card_token":"tok_visa","description":{"a":1,"a":2}}`,
			`{"amount_cents":100,"currency":"GBP","card_token":"tok_visa","\u0061mount_cents":5}`,
		} {
			r := h.send(t, jsonHeader(keyA, "dup-"+string(rune('a'+i))), body)
			h.refused(t, body, r, 400, "duplicate_field")
		}
		// The walk that finds them stops at maxNesting: deeper is refused
		// as what it is, not walked (see BenchmarkTextChecks).
		deep := `{"amount_cents":100,"currency":"GBP","card_token":"tok_visa","description":` +
			strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
		r := h.send(t, jsonHeader(keyA, "deep"), deep)
		h.refused(t, "20,000 nested arrays", r, 400, "invalid_json")
		if !strings.Contains(r.code()+string(r.Body), "nests deeper than 32 levels") {
			t.Errorf("deep nesting: %s", r.Body)
		}
		if n := h.ledger.Calls(); n != 0 {
			t.Fatalf("the processor was called %d times", n)
		}
	})
}

// TestDuplicateHeadersRefused: two Idempotency-Key or two Authorization
// headers are 400, not "the first one wins": a proxy and a client that each
// add one disagree about which request this is, or whose.
func TestDuplicateHeadersRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		twoKeys := jsonHeader(keyA, "first")
		twoKeys.Add("Idempotency-Key", "second")
		h.refused(t, "two Idempotency-Key headers", h.send(t, twoKeys, okBody), 400, "idempotency_key_invalid")

		sameTwice := jsonHeader(keyA, "same")
		sameTwice.Add("Idempotency-Key", "same")
		h.refused(t, "one Idempotency-Key sent twice", h.send(t, sameTwice, okBody), 400, "idempotency_key_invalid")

		twoAuth := jsonHeader(keyA, "auth")
		twoAuth.Add("Authorization", "Bearer "+keyB)
		h.refused(t, "two Authorization headers", h.send(t, twoAuth, okBody), 400, "invalid_request")
		if n := h.ledger.Calls(); n != 0 {
			t.Fatalf("the processor was called %d times", n)
		}
		// The same keys sent once each still work.
		if r := h.send(t, jsonHeader(keyA, "first"), okBody); r.Status != 201 {
			t.Fatalf("a well-formed request after the refusals: %d %s", r.Status, r.Body)
		}
	})
}

// TestContentTypeMustBeJSON: a body that is not declared application/json is
// 415, before anything is parsed or stored; parameters and case do not matter
// (media types are case-insensitive), a charset other than UTF-8 does.
func TestContentTypeMustBeJSON(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		for i, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/jsonx",
			"application/json; charset=latin1", "application/problem+json", "not a media type;;"} {
			hdr := jsonHeader(keyA, "ct-"+string(rune('a'+i)))
			if ct == "" {
				hdr.Del("Content-Type")
			} else {
				hdr.Set("Content-Type", ct)
			}
			r := h.send(t, hdr, okBody)
			h.refused(t, "Content-Type "+ct, r, 415, "unsupported_media_type")
		}
		if n := h.ledger.Calls(); n != 0 {
			t.Fatalf("the processor was called %d times", n)
		}
		for i, ct := range []string{"application/json; charset=utf-8", "Application/JSON", `application/json; charset="UTF-8"`} {
			hdr := jsonHeader(keyA, "ok-"+string(rune('a'+i)))
			hdr.Set("Content-Type", ct)
			if r := h.send(t, hdr, okBody); r.Status != 201 {
				t.Errorf("Content-Type %s: %d %s", ct, r.Status, r.Body)
			}
		}
	})
}

// TestInvalidUTF8Refused: raw bytes that are not UTF-8, or an escaped lone
// surrogate, were silently replaced with U+FFFD, so "caf\xe9" and "caf\xff"
// under one key had one fingerprint and the second replayed the first.
// Both are 400 now, and nothing is claimed.
func TestInvalidUTF8Refused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		body := func(desc string) string {
			return `{"amount_cents":100,"currency":"GBP","card_token":"tok_visa","description":"` + desc + `"}`
		}
		for _, desc := range []string{"caf\xe9", "caf\xff", `caf\ud800`, `caf\udc00\u0041`, `\ud800\ud800`} {
			r := h.send(t, jsonHeader(keyA, "utf8"), body(desc))
			h.refused(t, "description "+desc, r, 400, "invalid_json")
		}
		if n := h.ledger.Calls(); n != 0 {
			t.Fatalf("the processor was called %d times", n)
		}
		// A valid pair and literal U+FFFD are ordinary text.
		for i, desc := range []string{`\ud83d\ude00`, "caf\u00e9 \ufffd"} {
			r := h.send(t, jsonHeader(keyA, "utf8-ok-"+string(rune('a'+i))), body(desc))
			if r.Status != 201 {
				t.Errorf("description %q: %d %s", desc, r.Status, r.Body)
			}
		}
	})
}

// TestMaxLengthCountsCharacters: the contract's maxLength (255 for
// card_token, 1000 for description) counts characters, as JSON Schema does,
// not UTF-8 bytes: 1000 "é" are 2000 bytes and within the limit.
func TestMaxLengthCountsCharacters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		body := func(token, desc string) string {
			return `{"amount_cents":100,"currency":"GBP","card_token":"` + token + `","description":"` + desc + `"}`
		}
		for i, b := range []string{body("tok", strings.Repeat("é", 1000)), body(strings.Repeat("€", 255), "tea")} {
			if r := h.send(t, jsonHeader(keyA, "len-"+string(rune('a'+i))), b); r.Status != 201 {
				t.Errorf("body %d at the limit in characters: %d %s", i, r.Status, r.Body)
			}
		}
		for i, b := range []string{body("tok", strings.Repeat("é", 1001)), body(strings.Repeat("€", 256), "tea")} {
			r := h.send(t, jsonHeader(keyA, "over-"+string(rune('a'+i))), b)
			h.refused(t, "one character over", r, 400, "invalid_request")
		}
	})
}

// TestBearerSchemeCaseInsensitive: RFC 9110 makes the auth scheme
// case-insensitive, so "bearer" and "BEARER" authenticate like "Bearer";
// anything but the exact key still does not.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		for i, auth := range []string{"bearer " + keyA, "BEARER " + keyA, "BeArEr  " + keyA} {
			hdr := jsonHeader(keyA, "scheme-"+string(rune('a'+i)))
			hdr.Set("Authorization", auth)
			if r := h.send(t, hdr, okBody); r.Status != 201 {
				t.Errorf("Authorization %q: %d %s", auth, r.Status, r.Body)
			}
		}
		for _, auth := range []string{"Basic " + keyA, "Bearer", "Bearer " + strings.ToUpper(keyA), keyA, "Bearer" + keyA} {
			hdr := jsonHeader(keyA, "bad-scheme")
			hdr.Set("Authorization", auth)
			h.refused(t, "Authorization "+auth, h.send(t, hdr, okBody), 401, "unauthorized")
		}
	})
}
