package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
)

// BenchmarkPlanStripe plans every operation of Stripe's contract (about
// 500, the largest in the corpus) and reports planning against loading
// the document, which every run pays first.
func BenchmarkPlanStripe(b *testing.B) {
	const name = "stripe-spec3-2023-09-12.yaml"
	dir := b.TempDir()
	corpus.Gunzip(b, name, dir)
	var loading, planning time.Duration
	requests := 0
	for b.Loop() {
		t0 := time.Now()
		doc := load(b, dir, name)
		t1 := time.Now()
		p := NewPlan(doc, Options{SideEffects: true})
		loading, planning = loading+t1.Sub(t0), planning+time.Since(t1)
		requests = len(p.Requests)
	}
	b.ReportMetric(float64(planning)/float64(loading), "plan/load")
	b.ReportMetric(float64(requests), "requests")
}

// BenchmarkCheck validates a page of 100 charges against the charge
// server's contract, the work done on every answer, and reports it against
// decoding the same JSON.
func BenchmarkCheck(b *testing.B) {
	doc := load(b, filepath.Join("..", "..", "chargeserver", "internal", "chargeserver", "api"), "openapi.yaml")
	var list *Operation
	for _, op := range operations(doc) {
		if op.Name == "listCharges" {
			list = op
		}
	}
	items := make([]string, 100)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"ch_%d","amount_cents":%d,"currency":"GBP","description":"tea","status":"succeeded","created_at":"2026-01-02T03:04:05Z"}`, i, 100+i)
	}
	body := []byte(`{"data":[` + strings.Join(items, ",") + `],"has_more":true}`)
	r := &runner{doc: doc}
	req := &Request{Op: list, Variant: "required fields"}
	hr := httptest.NewRequest(http.MethodGet, "/v1/charges", nil)
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}}
	var check, decode time.Duration
	for b.Loop() {
		t0 := time.Now()
		if p := r.check(context.Background(), req, hr, resp, body); p != nil {
			b.Fatal(p.Message)
		}
		t1 := time.Now()
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
		check, decode = check+t1.Sub(t0), decode+time.Since(t1)
	}
	b.ReportMetric(float64(check)/float64(decode), "check/decode")
}
