package chargeserver

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
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

// TestServedContractListsConfiguredCurrencies: the document at
// /openapi.yaml lists the currencies the server accepts, and its examples
// use one of them, so a client (or replay) that reads it sends a currency
// the server takes. The document stays valid, examples included.
func TestServedContractListsConfiguredCurrencies(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.Currencies = []string{"EUR", "USD"}
	h := newHarness(t, cfg, nil)
	served := h.get(t, "", "/openapi.yaml").Body
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(served)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the served document is invalid: %v", err)
	}
	cur := doc.Components.Schemas["CreateChargeRequest"].Value.Properties["currency"].Value
	if fmt.Sprint(cur.Enum) != "[EUR USD]" || cur.Example != "EUR" {
		t.Errorf("currency enum %v, example %v; want [EUR USD] and EUR", cur.Enum, cur.Example)
	}
	if cfg := testConfig(""); cfg.Validate() != nil || !bytes.Equal(New(cfg, nil, nil, nil).contract, api.OpenAPI()) {
		t.Error("with the default currencies the server does not serve the bundled document as is")
	}
}

// TestContractHasExamples: every request body, parameter and response of
// the bundled contract has an example, so a reader (and replay, with no
// fixtures) sees a value the server accepts and what it answers.
func TestContractHasExamples(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	hasExample := func(m *openapi3.MediaType) bool { return m.Example != nil || len(m.Examples) > 0 }
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if rb := op.RequestBody; rb != nil {
				for mt, m := range rb.Value.Content {
					if !hasExample(m) {
						t.Errorf("%s: request body %s has no example", where, mt)
					}
				}
			}
			for _, p := range op.Parameters {
				if p.Value.Example == nil && len(p.Value.Examples) == 0 {
					t.Errorf("%s: parameter %s has no example", where, p.Value.Name)
				}
			}
			for status, r := range op.Responses.Map() {
				for mt, m := range r.Value.Content {
					if !hasExample(m) {
						t.Errorf("%s %s: %s has no example", where, status, mt)
					}
				}
			}
		}
	}
}
