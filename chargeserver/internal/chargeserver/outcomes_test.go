package chargeserver

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// TestProcessorRefusalIsStoredAndReplayed: a definite "not charged" from the
// processor is a final answer like a decline: stored, replayed to every
// retry, and never asked again.
func TestProcessorRefusalIsStoredAndReplayed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		h.ledger.SetFaults(processor.Faults{Reject: 1})
		first := h.mustPost(t, keyA, "refused", okBody)
		if first.Status != 402 || first.code() != "charge_rejected" || first.replayed() {
			t.Fatalf("first: %d %s", first.Status, first.Body)
		}
		again := h.mustPost(t, keyA, "refused", okBody)
		if again.Status != 402 || !again.replayed() || string(again.Body) != string(first.Body) {
			t.Fatalf("retry: %d replay=%v %s", again.Status, again.replayed(), again.Body)
		}
		if h.ledger.Calls() != 1 || processorCharges(t, h.ledger) != 0 || countCharges(t, h.store) != 0 {
			t.Fatalf("a refusal was asked again (%d calls) or charged", h.ledger.Calls())
		}
		if n := h.server.Metrics().Outcome(outcomeRejected); n != 1 {
			t.Fatalf("rejected outcomes counted %d", n)
		}
	})
}

// TestUnknownIsRedrivenThenBounded: while the processor answers "unknown"
// the claim stays unresolved (stale, visible in /metrics) and the reaper asks
// again with the same key; after MaxAttempts drives "unresolved" is stored as
// the final answer, so the claim cannot stay open for ever.
func TestUnknownIsRedrivenThenBounded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		cfg.MaxAttempts = 3
		h := newHarness(t, cfg, nil)
		h.ledger.SetFaults(processor.Faults{FailBefore: 100})
		if r := h.mustPost(t, keyA, "unknown", okBody); r.Status != 503 {
			t.Fatalf("first: %d %s", r.Status, r.Body)
		}
		metricsHave(t, h, `chargeserver_claims{state="stale"} 1`, `chargeserver_claims{state="completed"} 0`)
		reaper := NewReaper(cfg, h.store, h.ledger, h.server.Metrics(), quietLog())
		ctx := context.Background()
		if n, err := reaper.RunOnce(ctx); n != 0 || err != nil {
			t.Fatalf("second drive: resolved %d, %v; want still unknown", n, err)
		}
		if n, err := reaper.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("third drive: resolved %d, %v; want the bound to settle it", n, err)
		}
		if h.ledger.Calls() != 3 {
			t.Fatalf("processor asked %d times, want MaxAttempts=3", h.ledger.Calls())
		}
		r := h.mustPost(t, keyA, "unknown", okBody)
		if r.Status != 502 || !r.replayed() || r.code() != "charge_outcome_unknown" || !strings.Contains(string(r.Body), "3 attempts") {
			t.Fatalf("after the bound: %d replay=%v %s", r.Status, r.replayed(), r.Body)
		}
		metricsHave(t, h, `chargeserver_claims{state="stale"} 0`, `chargeserver_claims{state="in_progress"} 0`, `chargeserver_claims{state="completed"} 1`,
			"chargeserver_gave_up_total 1")
	})
}

// TestUnresolvedAgeBound: a claim older than MaxUnresolvedAge is settled by
// the next drive that still gets "unknown", here a client's retry.
func TestUnresolvedAgeBound(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.ProcessorTimeout, cfg.StaleAfter, cfg.MaxUnresolvedAge = 100*time.Millisecond, 200*time.Millisecond, 300*time.Millisecond
	h := newHarness(t, cfg, nil)
	h.ledger.SetFaults(processor.Faults{FailBefore: 100})
	if r := h.mustPost(t, keyA, "old", okBody); r.Status != 503 {
		t.Fatalf("first: %d", r.Status)
	}
	time.Sleep(cfg.MaxUnresolvedAge)
	r := h.mustPost(t, keyA, "old", okBody)
	if r.Status != 502 || r.replayed() || r.code() != "charge_outcome_unknown" {
		t.Fatalf("retry past the age bound: %d replay=%v %s", r.Status, r.replayed(), r.Body)
	}
	if n, g := h.server.Metrics().Outcome(outcomeUnresolved), h.server.Metrics().GaveUp.Load(); n != 1 || g != 1 {
		t.Fatalf("unresolved outcomes counted %d, gave up %d; want 1 each", n, g)
	}
}

// TestRetryAfterFollowsTheLease: a 409 asks the client to come back when the
// in-flight attempt's lease ends, not after a constant.
func TestRetryAfterFollowsTheLease(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.StaleAfter = 10 * time.Second
	h := newHarness(t, cfg, nil)
	now := time.Now()
	claimDirectly(t, h, "long", now)
	r := h.mustPost(t, keyA, "long", okBody)
	if got, _ := strconv.Atoi(r.Header.Get("Retry-After")); r.Status != 409 || got < 9 || got > 10 {
		t.Fatalf("lease ends in 10s: %d Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
	for lease, want := range map[time.Duration]int{0: 1, 1500 * time.Millisecond: 2, 10 * time.Millisecond: 1} {
		if got := retryAfter(now.Add(lease), now); got != want {
			t.Errorf("lease ending in %s: Retry-After %d, want %d", lease, got, want)
		}
	}
}

func metricsHave(t *testing.T, h *harness, lines ...string) {
	t.Helper()
	m := string(h.get(t, "", "/metrics").Body)
	for _, l := range lines {
		if !strings.Contains(m, l+"\n") {
			t.Errorf("metrics lack %q:\n%s", l, m)
		}
	}
}

// TestReconcileChecksWhatClientsWereTold plants the three ways an answer can
// disagree with the money: a 201 whose amount is not the charge's (the
// retention bug's symptom), a 201 naming a charge the processor never made
// under the claim's key, and a "not charged" answer for a key the processor
// did charge. Reconcile must report each, and nothing for an honest answer.
func TestReconcileChecksWhatClientsWereTold(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		ctx := context.Background()
		honest := h.mustPost(t, keyA, "honest", okBody).charge(t)
		plant := func(key string, status int, told string, row *store.Charge) {
			t.Helper()
			rec := claimDirectly(t, h, key, time.Now())
			body := strings.NewReplacer("ID", "", "KEY", rec.ProcessorKey).Replace(told)
			if row != nil {
				row.ProcessorKey = rec.ProcessorKey
			}
			if ok, err := h.store.Complete(ctx, rec.Scope, rec.Owner, store.Response{Status: status, Body: []byte(body), Charge: row}, time.Now()); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		// The processor charges 4000 under the claim's key; the client is told 9900.
		res, err := h.ledger.Charge(ctx, processor.Request{Key: "pk_wrong-amount", Account: acctA, AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"})
		if err != nil {
			t.Fatal(err)
		}
		plant("wrong-amount", 201, `{"id":"`+res.ID+`","amount_cents":9900,"currency":"GBP","status":"succeeded","created_at":"2026-01-01T00:00:00Z"}`,
			&store.Charge{ID: res.ID, Account: acctA, AmountCents: 4000, Currency: "GBP", Status: "succeeded", CreatedAt: time.Now()})
		// The client is told about the honest charge under another claim.
		plant("borrowed-id", 201, `{"id":"`+honest.ID+`","amount_cents":4000,"currency":"GBP","status":"succeeded","created_at":"2026-01-01T00:00:00Z"}`, nil)
		// The processor charged, the client was told the outcome is unknown.
		if _, err := h.ledger.Charge(ctx, processor.Request{Key: "pk_told-unknown", Account: acctA, AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"}); err != nil {
			t.Fatal(err)
		}
		plant("told-unknown", 502, `{"code":"charge_outcome_unknown"}`, nil)
		diffs, err := Reconcile(ctx, h.store, h.ledger)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(diffs, "\n")
		for _, want := range []string{
			"key wrong-amount of acct_a was told charge " + res.ID + " for 9900 GBP; the charge row says 4000 GBP",
			"key wrong-amount of acct_a was told charge " + res.ID + " for 9900 GBP; the processor charged " + res.ID + " for 4000 GBP under its key",
			"key borrowed-id of acct_a was told charge " + honest.ID + " for 4000 GBP, but that charge row belongs to another claim",
			"key borrowed-id of acct_a was told charge " + honest.ID + " for 4000 GBP, but the processor made no successful charge under its key",
			"key told-unknown of acct_a was answered 502 (not charged), but the processor charged ",
			"processor charge ", // the told-unknown charge has no row either
		} {
			if !strings.Contains(got, want) {
				t.Errorf("reconcile missed %q; it said:\n%s", want, got)
			}
		}
		if strings.Contains(got, "key honest ") || len(diffs) != 6 {
			t.Errorf("want exactly the six planted differences, got %d:\n%s", len(diffs), got)
		}
	})
}

// TestKeylessRefusalIsNotUnavailable: during a rollout a keyless POST the
// processor refuses is told "not charged" (402), not "retry" (503).
func TestKeylessRefusalIsNotUnavailable(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.RequireIdempotencyKey = false
	h := newHarness(t, cfg, nil)
	h.ledger.SetFaults(processor.Faults{Reject: 1})
	if r := h.mustPost(t, keyA, "", okBody); r.Status != 402 || r.code() != "charge_rejected" {
		t.Fatalf("keyless refusal: %d %s", r.Status, r.Body)
	}
}

// TestReconcileComparesAccounts: a charge row on another account than the
// processor charged is a difference, even when amount and currency agree.
func TestReconcileComparesAccounts(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	ctx := context.Background()
	res, err := h.ledger.Charge(ctx, processor.Request{Key: "pk_acct", Account: acctA, AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.store.InsertCharge(ctx, store.Charge{ID: res.ID, Account: acctB, AmountCents: 4000, Currency: "GBP",
		Status: "succeeded", ProcessorKey: "pk_acct", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	diffs, err := Reconcile(ctx, h.store, h.ledger)
	want := "charge " + res.ID + ": recorded 4000 GBP for acct_b, processor has 4000 GBP for acct_a"
	if err != nil || len(diffs) != 1 || diffs[0] != want {
		t.Fatalf("diffs %q, %v; want %q", diffs, err, want)
	}
}
