package chargeserver

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/chargeserver/processor"
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
		metricsHave(t, h, `chargeserver_claims{state="stale"} 0`, `chargeserver_claims{state="in_progress"} 0`, `chargeserver_claims{state="completed"} 1`)
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
	if n := h.server.Metrics().Outcome(outcomeUnresolved); n != 1 {
		t.Fatalf("unresolved outcomes counted %d", n)
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
