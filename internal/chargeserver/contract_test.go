package chargeserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestContractValidatorBites proves the response check used by every test
// rejects responses the contract does not allow, so a passing suite means
// the server matches openapi.yaml.
func TestContractValidatorBites(t *testing.T) {
	c := loadContract(t)
	post := func() *http.Request {
		r := httptest.NewRequest("POST", "http://127.0.0.1/v1/charges", strings.NewReader(okBody))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	jsonHdr := http.Header{"Content-Type": {"application/json"}}
	problemHdr := http.Header{"Content-Type": {"application/problem+json"}}
	good := `{"id":"ch_1","amount_cents":4000,"currency":"GBP","description":"","status":"succeeded","created_at":"2026-01-01T00:00:00Z","extra":1}`
	if err := c.validate(post(), 201, jsonHdr, []byte(good)); err != nil {
		t.Fatalf("a valid charge (with an extra field: responses are open) was rejected: %v", err)
	}
	bad := []struct {
		name   string
		status int
		hdr    http.Header
		body   string
	}{
		{"amount as string", 201, jsonHdr, strings.Replace(good, "4000", `"4000"`, 1)},
		{"missing id", 201, jsonHdr, strings.Replace(good, `"id":"ch_1",`, "", 1)},
		{"undocumented status", 418, jsonHdr, `{}`},
		{"problem without code", 422, problemHdr, `{"type":"x","title":"t","status":422}`},
		{"409 without Retry-After", 409, problemHdr, `{"type":"x","title":"t","status":409,"code":"request_in_progress"}`},
	}
	for _, b := range bad {
		if err := c.validate(post(), b.status, b.hdr, []byte(b.body)); err == nil {
			t.Errorf("%s: accepted", b.name)
		}
	}
}
