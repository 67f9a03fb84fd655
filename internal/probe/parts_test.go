package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/probe/probefake"
	"github.com/contractlint/contractlint/rules"
)

// TestRefusedStopsTheSequence: an endpoint that refuses every request (here
// a wrong path, 404) stops the run after step 1 instead of failing six steps.
func TestRefusedStopsTheSequence(t *testing.T) {
	s := probefake.New(probefake.Correct)
	c := config(t, strings.TrimSuffix(serve(t, s), "/v1/charges")+"/v1/nowhere", false)
	c.ChargesURL = nil
	rep := Run(context.Background(), c)
	if len(rep.Results) != 1 || rep.Results[0].Outcome != Fail || !strings.Contains(rep.Results[0].Message, "refused every request with 404") {
		t.Fatalf("results %+v", rep.Results)
	}
	if rep.Sent != c.Concurrency || s.Requests.Load() != int64(c.Concurrency) {
		t.Errorf("sent %d (server saw %d), want %d", rep.Sent, s.Requests.Load(), c.Concurrency)
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct{ url, op, lint string }{
		{"http://127.0.0.1:8080/v1/charges", "POST /v1/charges", ""},
		// The server's base path (/api) is stripped before matching.
		{"http://127.0.0.1:8080/api/v1/charges", "POST /v1/charges", ""},
		{"http://127.0.0.1:8080/v1/accounts/acct_1/refunds", "POST /v1/accounts/{id}/refunds", "idempotency-key-missing"},
	} {
		u, _ := url.Parse(tc.url)
		op, fs := target(t, "openapi.yaml", u)
		if op.ID != tc.op {
			t.Errorf("%s matched %s, want %s", tc.url, op.ID, tc.op)
		}
		var ids []string
		for _, f := range fs {
			if r, _ := rules.Default().Get(f.Rule); r.Pack != "idempotency" || !slices.Contains(f.Operations, op.ID) {
				t.Errorf("%s: finding %s is not an idempotency finding on %s", tc.url, f.Rule, op.ID)
			}
			ids = append(ids, f.Rule)
		}
		if tc.lint != "" && !slices.Contains(ids, tc.lint) {
			t.Errorf("%s: lint %v, want %s", tc.url, ids, tc.lint)
		}
		if tc.lint == "" && len(ids) != 0 {
			t.Errorf("%s: lint %v, want none", tc.url, ids)
		}
	}
}

func TestCheckHost(t *testing.T) {
	for host, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:8080": true, "localhost": true, "127.9.9.9": true,
		"api.example.com": false, "10.0.0.1": false, "localhost.example.com": false, "0.0.0.0": false,
	} {
		u := &url.URL{Scheme: "http", Host: host}
		if err := CheckHost(u, false); (err == nil) != ok {
			t.Errorf("%s: %v, want allowed=%v", host, err, ok)
		}
		if err := CheckHost(u, true); err != nil {
			t.Errorf("%s with --allow-side-effects: %v", host, err)
		}
	}
}

func TestBodies(t *testing.T) {
	body := []byte(DefaultBody)
	r, err := reorder(body)
	if err != nil {
		t.Fatal(err)
	}
	if string(r) == string(body) || !sameBody(r, body) {
		t.Errorf("reorder(%s) = %s: want other bytes, same JSON", body, r)
	}
	if ms, _ := parseObject(r); ms[0].key != "description" {
		t.Errorf("reordered body starts with %q", ms[0].key)
	}
	m, err := mutate(body)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(m, &v); err != nil || v["amount_cents"] != 101.0 || v["currency"] != "GBP" {
		t.Errorf("mutate(%s) = %s, want amount_cents 101 and the rest unchanged", body, m)
	}
	if m, _ := mutate([]byte(`{"note": "a", "ok": true}`)); !strings.Contains(string(m), `"a (changed)"`) {
		t.Errorf("mutate without a number = %s", m)
	}
	for _, bad := range []string{`[1]`, `{"a": 1} {}`, `{"a":`, `{"a": null}`, ``} {
		c := &Config{URL: &url.URL{Scheme: "http", Host: "127.0.0.1"}, Body: []byte(bad), Concurrency: 2, Timeout: 1}
		if err := c.Validate(); err == nil {
			t.Errorf("body %q accepted", bad)
		}
	}
}

// TestUnreachableStops: nothing listening means no results at all, only the
// reason (the CLI exits 2 with it), after the step 1 requests.
func TestUnreachableStops(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	u := hs.URL + "/v1/charges"
	hs.Close()
	c := config(t, u, false)
	c.ChargesURL = nil
	rep := Run(context.Background(), c)
	if rep.Unreachable == nil || len(rep.Results) != 0 || rep.Sent != c.Concurrency {
		t.Errorf("unreachable %v, results %v, sent %d", rep.Unreachable, rep.Results, rep.Sent)
	}
}

// TestVariants: the key-reuse step changes the first number, then the last
// other member that can change, so a fingerprint over one field is caught.
func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		body    string
		members []string
	}{
		{DefaultBody, []string{"amount_cents", "description"}},
		{`{"note": "a", "ok": true, "tags": ["x"]}`, []string{"note", "ok"}},
		{`{"amount": 5, "meta": {"a": 1}}`, []string{"amount"}},
	} {
		vs, err := variants([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.member)
			if sameBody(v.body, []byte(tc.body)) {
				t.Errorf("%s: the %s variant is the same body", tc.body, v.member)
			}
		}
		if !slices.Equal(got, tc.members) {
			t.Errorf("%s: variants change %v, want %v", tc.body, got, tc.members)
		}
	}
}

// TestDigestCoversTheWholeBody: two bodies alike in their first MiB and
// different after it are different; spacing and key order are not.
func TestDigestCoversTheWholeBody(t *testing.T) {
	pad := strings.Repeat("x", 2<<20)
	a := []byte(`{"pad": "` + pad + `", "id": "ch_1"}`)
	b := []byte(`{"pad": "` + pad + `", "id": "ch_2"}`)
	if sameBody(a, b) {
		t.Error("bodies that differ after 2 MiB compared equal")
	}
	if !sameBody([]byte(`{"id": "ch_1", "n": 10}`), []byte("{\"n\":10,\n \"id\":\"ch_1\"}")) {
		t.Error("the same JSON spaced and ordered differently compared unequal")
	}
	if !sameBody([]byte(`{"n": 1}`), []byte(`{"n": 1.0}`)) || !sameBody([]byte(`[1e3]`), []byte(`[1000]`)) {
		t.Error("one number spelt two ways compared unequal")
	}
	if sameBody([]byte(`{"id": 9007199254740993}`), []byte(`{"id": 9007199254740992}`)) ||
		sameBody([]byte(`{"n": "1"}`), []byte(`{"n": 1}`)) || sameBody([]byte("a"), []byte("b")) {
		t.Error("different bodies compared equal")
	}
}

// TestListItems: the charges endpoint's answer is an array or an object
// with one array member (or "data"); anything else says what it wanted.
func TestListItems(t *testing.T) {
	for body, want := range map[string]int{
		`[{"id": 1}, {"id": 2}]`:                   2,
		`{"data": [{"id": 1}], "has_more": false}`: 1,
		`{"charges": [], "total": 0}`:              0,
		`{"data": [{}], "errors": []}`:             1,
	} {
		items, err := listItems([]byte(body))
		if err != nil || len(items) != want {
			t.Errorf("%s: %d items, %v; want %d", body, len(items), err, want)
		}
	}
	for _, bad := range []string{`{"id": 1}`, `not json`, `{"a": [], "b": []}`} {
		if _, err := listItems([]byte(bad)); err == nil {
			t.Errorf("%s: accepted as a list", bad)
		}
	}
}

// TestValidateNewFlags: the charges endpoint stays on the probed origin (it
// is fetched with the credentials), the second header must be another
// credential, and the delay and size cap are bounded.
func TestValidateNewFlags(t *testing.T) {
	base := func() *Config {
		u, _ := url.Parse("http://127.0.0.1:8080/v1/charges")
		return &Config{URL: u, Body: []byte(DefaultBody), Concurrency: 2, Timeout: time.Second,
			Header: http.Header{"Authorization": {"Bearer a"}}}
	}
	for name, tc := range map[string]struct {
		change func(*Config)
		want   string
	}{
		"another host":    {func(c *Config) { c.ChargesURL, _ = url.Parse("http://127.0.0.2:8080/v1/charges") }, "must be on http://127.0.0.1:8080"},
		"another scheme":  {func(c *Config) { c.ChargesURL, _ = url.Parse("https://127.0.0.1:8080/v1/charges") }, "must be on http://127.0.0.1:8080"},
		"same credential": {func(c *Config) { c.SecondHeader = http.Header{"Authorization": {"Bearer a"}} }, "repeats the --header values"},
		"negative delay":  {func(c *Config) { c.RetryAfter = -time.Second }, "--retry-after must be from 0"},
		"huge cap":        {func(c *Config) { c.MaxResponse = MaxMaxResponse + 1 }, "--max-response must be from 1"},
	} {
		c := base()
		tc.change(c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	c := base()
	c.ChargesURL, _ = c.URL.Parse("/v1/charges?limit=100")
	c.SecondHeader = http.Header{"Authorization": {"Bearer b"}}
	if err := c.Validate(); err != nil {
		t.Errorf("a valid configuration: %v", err)
	}
}

// TestFakeDelayHeader: the fake servers read the header the probe sends.
func TestFakeDelayHeader(t *testing.T) {
	if probefake.DelayHeader != DelayHeader {
		t.Fatalf("probefake.DelayHeader is %q, the probe sends %q", probefake.DelayHeader, DelayHeader)
	}
}
