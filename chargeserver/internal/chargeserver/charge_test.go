package chargeserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

func TestChargeThenReplay(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		first := h.mustPost(t, keyA, "order-1", okBody)
		if first.Status != 201 || first.replayed() {
			t.Fatalf("first: %d replay=%v %s", first.Status, first.replayed(), first.Body)
		}
		// Same request with keys reordered and the amount respelled.
		again := h.mustPost(t, keyA, "order-1", `{"description": "tea", "card_token": "tok_visa", "currency": "GBP", "amount_cents": 4000.0}`)
		if again.Status != 201 || !again.replayed() || string(again.Body) != string(first.Body) {
			t.Fatalf("retry: %d replay=%v %s", again.Status, again.replayed(), again.Body)
		}
		c := first.charge(t)
		if got := h.get(t, keyA, "/v1/charges/"+c.ID); got.Status != 200 || got.charge(t).ID != c.ID {
			t.Fatalf("GET own charge: %d %s", got.Status, got.Body)
		}
		if got := h.get(t, keyB, "/v1/charges/"+c.ID); got.Status != 404 {
			t.Fatalf("another account read the charge: %d", got.Status)
		}
		if n := processorCharges(t, h.ledger); n != 1 {
			t.Fatalf("processor charged %d times", n)
		}
	})
}

// TestConcurrentIdenticalRequests is the core property: 50 racing copies of
// one request make one charge and one fresh 201; the rest replay or wait.
func TestConcurrentIdenticalRequests(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		ledger := processor.NewLedger()
		ledger.SetFaults(processor.Faults{Latency: 20 * time.Millisecond})
		h := newHarness(t, testConfig(db), ledger)
		race(t, []*harness{h}, 50)
		if n := countCharges(t, h.store); n != 1 {
			t.Fatalf("%d charge rows, want 1", n)
		}
	})
}

func TestTwoInstancesOnePostgres(t *testing.T) {
	db := postgresDSN(t)
	ledger := processor.NewLedger()
	ledger.SetFaults(processor.Faults{Latency: 20 * time.Millisecond})
	a, b := newHarness(t, testConfig(db), ledger), newHarness(t, testConfig(db), ledger)
	race(t, []*harness{a, b}, 50)
	if n := countCharges(t, a.store); n != 1 {
		t.Fatalf("%d charge rows, want 1", n)
	}
}

// race sends n identical requests spread over the instances and checks the
// answers: exactly one fresh 201, otherwise replayed 201s or 409s.
func race(t *testing.T, hs []*harness, n int) {
	t.Helper()
	var wg sync.WaitGroup
	replies := make([]reply, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			r, err := hs[i%len(hs)].post(t, keyA, "race-key", okBody)
			if err != nil {
				t.Error(err)
			}
			replies[i] = r
		})
	}
	close(start)
	wg.Wait()
	fresh, ids := 0, map[string]bool{}
	for _, r := range replies {
		switch {
		case r.Status == 201 && !r.replayed():
			fresh++
			ids[r.charge(t).ID] = true
		case r.Status == 201:
			ids[r.charge(t).ID] = true
		case r.Status == 409:
			if r.Header.Get("Retry-After") == "" || r.code() != "request_in_progress" {
				t.Errorf("409 without Retry-After or code: %v %s", r.Header, r.Body)
			}
		default:
			t.Errorf("unexpected %d: %s", r.Status, r.Body)
		}
	}
	if fresh != 1 || len(ids) != 1 {
		t.Fatalf("%d fresh 201s and %d charge ids, want 1 and 1", fresh, len(ids))
	}
	if got := processorCharges(t, hs[0].ledger); got != 1 {
		t.Fatalf("processor charged %d times", got)
	}
}

func TestKeyReusedWithDifferentBody(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		h.mustPost(t, keyA, "k", okBody)
		r := h.mustPost(t, keyA, "k", strings.Replace(okBody, "4000", "4001", 1))
		if r.Status != 422 || r.code() != "idempotency_key_reused" {
			t.Fatalf("got %d %s", r.Status, r.Body)
		}
		if n := processorCharges(t, h.ledger); n != 1 {
			t.Fatalf("processor charged %d times, want only the first", n)
		}
		if n := countCharges(t, h.store); n != 1 {
			t.Fatalf("%d charge rows", n)
		}
	})
}

// TestKeysAreScopedToAccount: another account's identical key is a different
// request, and it can never get a replay of someone else's answer.
func TestKeysAreScopedToAccount(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		a := h.mustPost(t, keyA, "shared", okBody)
		b := h.mustPost(t, keyB, "shared", okBody)
		if a.Status != 201 || b.Status != 201 || b.replayed() {
			t.Fatalf("a %d, b %d replay=%v", a.Status, b.Status, b.replayed())
		}
		if a.charge(t).ID == b.charge(t).ID {
			t.Fatal("account B was given account A's charge")
		}
		if n := processorCharges(t, h.ledger); n != 2 {
			t.Fatalf("processor charged %d times, want 2", n)
		}
		list := h.get(t, keyB, "/v1/charges?limit=10")
		if strings.Contains(string(list.Body), a.charge(t).ID) || !strings.Contains(string(list.Body), b.charge(t).ID) {
			t.Fatalf("B's list is wrong: %s", list.Body)
		}
	})
}

func TestDeclineReplaysAsDecline(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		body := strings.Replace(okBody, "tok_visa", processor.DeclineToken, 1)
		first := h.mustPost(t, keyA, "d", body)
		again := h.mustPost(t, keyA, "d", body)
		if first.Status != 402 || first.code() != "card_declined" || first.replayed() {
			t.Fatalf("first: %d %s", first.Status, first.Body)
		}
		if again.Status != 402 || !again.replayed() || string(again.Body) != string(first.Body) {
			t.Fatalf("retry: %d replay=%v %s", again.Status, again.replayed(), again.Body)
		}
		if n := countCharges(t, h.store); n != 0 {
			t.Fatalf("a decline made %d charge rows", n)
		}
		if h.ledger.Calls() != 1 {
			t.Fatalf("the replay asked the processor again (%d calls)", h.ledger.Calls())
		}
	})
}

// TestSlowProcessor: the client gives up before the processor answers; its
// retry is told to wait, and once the charge is recorded it gets the replay.
func TestSlowProcessor(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		ledger := processor.NewLedger()
		ledger.SetFaults(processor.Faults{Latency: 1500 * time.Millisecond})
		h := newHarness(t, testConfig(db), ledger)
		impatient := *h
		impatient.client = newClientWithTimeout(300 * time.Millisecond)
		if _, err := impatient.post(t, keyA, "slow", okBody); err == nil {
			t.Fatal("the client should have timed out")
		}
		r := h.mustPost(t, keyA, "slow", okBody)
		if r.Status != 409 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("retry during the charge: %d %v", r.Status, r.Header)
		}
		// A bound, not a budget: the charge takes 1.5 s, and on a machine at
		// load 20 (seen in a full run) recording it took more than 5.
		waitFor(t, 30*time.Second, func() bool {
			rec, err := h.store.Get(context.Background(), store.Scope{Account: acctA, Route: RouteCreateCharge, Key: "slow"})
			return err == nil && rec.Status == store.StatusCompleted
		})
		r = h.mustPost(t, keyA, "slow", okBody)
		if r.Status != 201 || !r.replayed() {
			t.Fatalf("retry after the charge: %d replay=%v", r.Status, r.replayed())
		}
		if n := processorCharges(t, ledger); n != 1 {
			t.Fatalf("processor charged %d times", n)
		}
	})
}

func TestBadInputsStoreNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		cfg.MaxAmountCents = 1_000_000
		h := newHarness(t, cfg, nil)
		long := strings.Repeat("k", 256)
		cases := []struct {
			name, apiKey, key, body string
			status                  int
			code                    string
		}{
			{"no api key", "", "k1", okBody, 401, "unauthorized"},
			{"wrong api key", "sk_wrong", "k1", okBody, 401, "unauthorized"},
			{"missing idempotency key", keyA, "", okBody, 400, "idempotency_key_missing"},
			{"key over 255", keyA, long, okBody, 400, "idempotency_key_invalid"},
			{"key not ascii", keyA, "kéy", okBody, 400, "idempotency_key_invalid"},
			{"malformed json", keyA, "k2", `{"amount_cents": 4000,`, 400, "invalid_json"},
			{"trailing data", keyA, "k3", okBody + "{}", 400, "invalid_json"},
			{"not an object", keyA, "k4", `[1]`, 400, "invalid_json"},
			{"unknown field", keyA, "k5", `{"amount_cents": 1, "currency": "GBP", "card_token": "t", "price": 1}`, 400, "unknown_field"},
			{"zero amount", keyA, "k6", `{"amount_cents": 0, "currency": "GBP", "card_token": "t"}`, 400, "invalid_amount"},
			{"negative amount", keyA, "k7", `{"amount_cents": -5, "currency": "GBP", "card_token": "t"}`, 400, "invalid_amount"},
			{"float amount", keyA, "k8", `{"amount_cents": 10.5, "currency": "GBP", "card_token": "t"}`, 400, "invalid_amount"},
			{"amount over max", keyA, "k9", `{"amount_cents": 1000001, "currency": "GBP", "card_token": "t"}`, 400, "invalid_amount"},
			{"unknown currency", keyA, "k10", `{"amount_cents": 1, "currency": "XYZ", "card_token": "t"}`, 400, "unsupported_currency"},
			{"missing card", keyA, "k11", `{"amount_cents": 1, "currency": "GBP"}`, 400, "invalid_request"},
			{"body over 64 KiB", keyA, "k12", `{"description": "` + strings.Repeat("x", 70<<10) + `"}`, 413, "body_too_large"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := h.mustPost(t, c.apiKey, c.key, c.body)
				if r.Status != c.status || r.code() != c.code {
					t.Fatalf("got %d %q, want %d %q: %s", r.Status, r.code(), c.status, c.code, r.Body)
				}
				if c.key == "" {
					return
				}
				for _, acct := range []string{acctA, acctB} {
					if _, err := h.store.Get(context.Background(), store.Scope{Account: acct, Route: RouteCreateCharge, Key: c.key}); err != store.ErrNotFound {
						t.Fatalf("a claim was stored for a rejected request: %v", err)
					}
				}
			})
		}
		if h.ledger.Calls() != 0 || countCharges(t, h.store) != 0 {
			t.Fatalf("bad input reached the processor (%d calls) or the table", h.ledger.Calls())
		}
	})
}

func TestListLimitValidated(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	for i := range 3 {
		h.mustPost(t, keyA, fmt.Sprint("l", i), okBody)
	}
	r := h.get(t, keyA, "/v1/charges?limit=2")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"has_more":true`) {
		t.Fatalf("limit=2: %d %s", r.Status, r.Body)
	}
	for _, bad := range []string{"0", "101", "x"} {
		if r := h.get(t, keyA, "/v1/charges?limit="+bad); r.Status != 400 {
			t.Errorf("limit=%s: %d", bad, r.Status)
		}
	}
}

func waitFor(t testing.TB, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
