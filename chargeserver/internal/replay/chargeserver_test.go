package replay_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/internal/replay"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// chargeServer starts the reference charge server and returns its base URL.
func chargeServer(t *testing.T) *url.URL {
	base, _ := chargetest.Start(t, map[string]string{"sk_replay": "acct_replay"})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var auth = http.Header{"Authorization": {"Bearer sk_replay"}}

// load reads a contract from dir/name the way the CLI does.
func load(t testing.TB, dir, name string) *openapi.Doc {
	t.Helper()
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Load(src, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// replayAgainst plans doc with every operation allowed and the fixtures
// given, sends it to base, and returns the findings.
func replayAgainst(t *testing.T, base *url.URL, doc *openapi.Doc, fx replay.Fixtures) []rules.Finding {
	t.Helper()
	plan := replay.NewPlan(doc, replay.Options{Fixtures: fx, SideEffects: true})
	var b strings.Builder
	plan.Write(&b, func(s string) string { return s })
	t.Logf("plan:\n%s", b.String())
	rep := replay.Run(context.Background(), doc, plan, &replay.Config{Base: base, Header: auth, MaxRequests: 100, MaxTime: time.Minute})
	if rep.Unreachable != nil {
		t.Fatal(rep.Unreachable)
	}
	fs := rep.Findings(rules.Default())
	for _, f := range fs {
		t.Logf("%s: %s %s: %s", f.Where, f.Severity, f.Rule, f.Message)
	}
	return fs
}

// charge is a body the charge server accepts.
var charge = replay.Fixtures{"createCharge": {Body: map[string]any{"amount_cents": 1500, "currency": "GBP", "card_token": "tok_visa"}}}

// TestOwnContractClean: the server agrees with its own contract on every
// answer replay provokes: creates, lists, reads the created charge back.
func TestOwnContractClean(t *testing.T) {
	base := chargeServer(t)
	doc := load(t, filepath.Join("..", "chargeserver", "api"), "openapi.yaml")
	if fs := replayAgainst(t, base, doc, charge); len(fs) != 0 {
		t.Errorf("want no findings, got %d", len(fs))
	}
}

// TestOldContractMissingField: clients built from v0 read `captured`, which
// the server no longer sends: every operation that returns a charge says
// so, at the required list that demands it, with the pointer of the field.
func TestOldContractMissingField(t *testing.T) {
	base := chargeServer(t)
	doc := load(t, filepath.Join("..", "..", "..", "testdata", "replay"), "charges-v0.yaml")
	fs := replayAgainst(t, base, doc, charge)
	got := map[string]string{}
	for _, f := range fs {
		if f.Rule != rules.ReplayResponseInvalid {
			t.Errorf("unexpected %s: %s", f.Rule, f.Message)
			continue
		}
		got[f.Operations[0]] = f.Message
		if f.Where.Line != 107 {
			t.Errorf("%s points at %s, want the Charge schema's required list (line 107)", f.Rule, f.Where)
		}
	}
	for op, ptr := range map[string]string{
		"POST /v1/charges":     "the body at /captured",
		"GET /v1/charges":      "the body at /data/0/captured",
		"GET /v1/charges/{id}": "the body at /captured",
	} {
		if !strings.Contains(got[op], ptr) {
			t.Errorf("%s: want a finding naming %q, got %q", op, ptr, got[op])
		}
	}
}

// TestDollarsContract: a contract that bounds the amount in dollars
// (at most 10000) reads a $250 charge, which the cents server sends as
// 25000: the value is out of the old schema's range. The old client's own
// request (12.50 dollars) is refused.
func TestDollarsContract(t *testing.T) {
	base := chargeServer(t)
	seed(t, base, `{"amount_cents": 25000, "currency": "USD", "card_token": "tok_visa"}`)
	doc := load(t, filepath.Join("..", "..", "..", "testdata", "replay"), "charges-dollars.yaml")
	fs := replayAgainst(t, base, doc, nil)
	var rng, rejected int
	for _, f := range fs {
		switch f.Rule {
		case rules.ReplayValueOutOfRange:
			rng++
			if !strings.Contains(f.Message, "/amount_cents") || f.Where.Line != 99 {
				t.Errorf("range finding at %s: %s; want the pointer of amount_cents and the maximum (line 99)", f.Where, f.Message)
			}
		case rules.ReplayRequestRejected:
			rejected++
			if !strings.Contains(f.Message, "12.5") {
				t.Errorf("rejected request: %s; want it to show the body sent", f.Message)
			}
		default:
			t.Errorf("unexpected %s: %s", f.Rule, f.Message)
		}
	}
	if rng != 1 || rejected != 1 {
		t.Errorf("got %d range and %d rejected-request findings, want 1 of each", rng, rejected)
	}
}

// seed creates a charge the way another client would.
func seed(t *testing.T, base *url.URL, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base.String()+"/v1/charges", strings.NewReader(body))
	req.Header = auth.Clone()
	req.Header.Set("Idempotency-Key", "seed-"+t.Name())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("seeding a charge: %s", resp.Status)
	}
}

// TestNextContractForward: the forward direction. A new app built from v2
// meets today's server: the field v2 added is missing from every charge,
// and the refunds endpoint answers 404, a status v2 does not list for it.
func TestNextContractForward(t *testing.T) {
	base := chargeServer(t)
	doc := load(t, filepath.Join("..", "..", "..", "testdata", "replay"), "charges-v2.yaml")
	got := map[string]int{}
	for _, f := range replayAgainst(t, base, doc, charge) {
		got[f.Rule+" "+f.Operations[0]+" "+f.Where.String()]++
		if f.Rule == rules.ReplayResponseInvalid && !strings.Contains(f.Message, "amount_refunded_cents") {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
	want := map[string]int{
		"replay-response-invalid POST /v1/charges charges-v2.yaml:129:7":               1,
		"replay-response-invalid GET /v1/charges charges-v2.yaml:129:7":                1,
		"replay-response-invalid GET /v1/charges/{id} charges-v2.yaml:129:7":           1,
		"replay-status-undocumented GET /v1/charges/{id}/refunds charges-v2.yaml:94:7": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// servedContract writes the contract the server serves at /openapi.yaml to
// a directory, changed by edit, and loads it.
func servedContract(t *testing.T, base *url.URL, edit func(string) string) *openapi.Doc {
	t.Helper()
	resp, err := http.Get(base.String() + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /openapi.yaml: %d %v", resp.StatusCode, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openapi.yaml"), []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	return load(t, dir, "openapi.yaml")
}

// TestOwnContractReplaysWithoutFixtures: the server's own /openapi.yaml,
// replayed with no fixtures, gets a 2xx for every operation: the contract's
// examples and its currency enum make a body the server accepts (the
// pattern alone derived "AAA", refused 400 unsupported_currency, and
// nothing after it was checked), and the created charge is read back.
func TestOwnContractReplaysWithoutFixtures(t *testing.T) {
	base := chargeServer(t)
	doc := servedContract(t, base, func(s string) string { return s })
	plan := replay.NewPlan(doc, replay.Options{SideEffects: true})
	rep := replay.Run(context.Background(), doc, plan, &replay.Config{Base: base, Header: auth, MaxRequests: 100, MaxTime: time.Minute})
	if rep.Unreachable != nil {
		t.Fatal(rep.Unreachable)
	}
	for _, f := range rep.Findings(rules.Default()) {
		t.Errorf("%s: %s %s", f.Where, f.Rule, f.Message)
	}
	ok := map[string]bool{}
	var created string
	for _, r := range rep.Results {
		t.Logf("%s -> %d", r.Sent, r.Status)
		if r.Status/100 == 2 {
			ok[r.Request.Op.ID] = true
		}
		if r.Request.Op.ID == "GET /v1/charges/{id}" {
			created = strings.TrimPrefix(r.Sent, "GET /v1/charges/")
		}
	}
	for tmpl, item := range doc.T.Paths.Map() {
		for method := range item.Operations() {
			if id := method + " " + tmpl; !ok[id] {
				t.Errorf("%s got no 2xx", id)
			}
		}
	}
	if !strings.HasPrefix(created, "ch_") {
		t.Errorf("the read of one charge asked for %q, not the charge the run created", created)
	}
}

// TestLegacyReceiptContractFails: an old contract (the bundled one, with a
// legacy_receipt_url every Charge must carry) replayed with no fixtures
// reports the field missing on every operation that returns a charge, as
// an error (exit 1), at the Charge schema's required list.
func TestLegacyReceiptContractFails(t *testing.T) {
	base := chargeServer(t)
	const required = "required: [id, amount_cents, currency, status, created_at]"
	doc := servedContract(t, base, func(s string) string {
		if !strings.Contains(s, required) {
			t.Fatalf("the contract's Charge schema no longer says %q", required)
		}
		return strings.Replace(s, required, "required: [id, amount_cents, currency, status, created_at, legacy_receipt_url]", 1)
	})
	plan := replay.NewPlan(doc, replay.Options{SideEffects: true})
	rep := replay.Run(context.Background(), doc, plan, &replay.Config{Base: base, Header: auth, MaxRequests: 100, MaxTime: time.Minute})
	got := map[string]bool{}
	for _, f := range rep.Findings(rules.Default()) {
		if f.Rule == rules.ReplayResponseInvalid && f.Severity == rules.Error && strings.Contains(f.Message, "legacy_receipt_url") {
			got[f.Operations[0]] = true
			continue
		}
		t.Errorf("unexpected %s: %s", f.Rule, f.Message)
	}
	for _, op := range []string{"POST /v1/charges", "GET /v1/charges", "GET /v1/charges/{id}"} {
		if !got[op] {
			t.Errorf("%s: no error finding for the missing legacy_receipt_url", op)
		}
	}
}
