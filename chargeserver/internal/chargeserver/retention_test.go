package chargeserver

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
)

// TestKeyReusedAfterRetentionIsANewCharge is the sequence of issue 14: a key
// whose claim was pruned is free again, so the same key with another amount is
// a new charge with its own id, and the processor, the database and reconcile
// all agree there are two charges. Before claims carried their own processor
// key, the processor replayed the first charge's id under the new amount.
func TestKeyReusedAfterRetentionIsANewCharge(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		cfg.ProcessorTimeout, cfg.StaleAfter, cfg.Retention = 100*time.Millisecond, 200*time.Millisecond, time.Second
		h := newHarness(t, cfg, nil)
		ctx := context.Background()
		first := h.mustPost(t, keyA, "k-ret", `{"amount_cents": 4000, "currency": "GBP", "card_token": "tok_visa"}`)
		if first.Status != 201 {
			t.Fatalf("first: %d %s", first.Status, first.Body)
		}
		time.Sleep(cfg.Retention + 100*time.Millisecond)
		if n, err := NewPruner(cfg, h.store, h.server.Metrics()).RunOnce(ctx); err != nil || n != 1 {
			t.Fatalf("pruned %d, %v; want the one claim", n, err)
		}
		second := h.mustPost(t, keyA, "k-ret", `{"amount_cents": 9900, "currency": "GBP", "card_token": "tok_visa"}`)
		if second.Status != 201 || second.replayed() {
			t.Fatalf("second: %d replay=%v %s", second.Status, second.replayed(), second.Body)
		}
		c1, c2 := first.charge(t), second.charge(t)
		if c1.ID == c2.ID || c2.AmountCents != 9900 {
			t.Fatalf("the reused key answered %+v after %+v; want a new charge of 9900", c2, c1)
		}
		for _, c := range []chargeJSON{c1, c2} {
			if got := h.get(t, keyA, "/v1/charges/"+c.ID).charge(t); got.AmountCents != c.AmountCents {
				t.Fatalf("GET %s says %d, the client was told %d", c.ID, got.AmountCents, c.AmountCents)
			}
		}
		recs, _ := h.ledger.Records(ctx)
		if processor.Succeeded(recs) != 2 || countCharges(t, h.store) != 2 {
			t.Fatalf("processor %+v, %d charge rows; want two charges each", recs, countCharges(t, h.store))
		}
		if diffs, err := Reconcile(ctx, h.store, h.ledger); err != nil || len(diffs) != 0 {
			t.Fatalf("reconcile: %q %v", diffs, err)
		}
	})
}

// TestReplayCacheNeverOutlivesRetention holds the in-process cache of final
// answers to its rule: it answers replays and 422s without the database only
// until retention minus the clock skew, so by the time any instance may prune
// the claim the cache has let go, and the key reused after retention is a new
// charge. The handler and the pruner run on one test clock, set, never
// slept on.
func TestReplayCacheNeverOutlivesRetention(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		start := time.Now()
		var clock atomic.Int64
		clock.Store(start.UnixNano())
		cfg := testConfig(db)
		cfg.ProcessorTimeout, cfg.StaleAfter, cfg.Retention = 100*time.Millisecond, 200*time.Millisecond, time.Second
		cfg.MaxClockSkew = 300 * time.Millisecond
		now := func() time.Time { return time.Unix(0, clock.Load()) }
		ledger := processor.NewLedger()
		h := startHarness(t, cfg, ledger, ledger, quietLog(), seams{now: now})
		hits := h.server.Metrics().ReplayCacheHits.Load
		const body, other = `{"amount_cents": 4000, "currency": "GBP", "card_token": "tok_visa"}`, `{"amount_cents": 9900, "currency": "GBP", "card_token": "tok_visa"}`
		first := h.mustPost(t, keyA, "k-ret", body)
		if first.Status != 201 || hits() != 0 {
			t.Fatalf("first: %d %s, %d cache hits", first.Status, first.Body, hits())
		}
		// Inside retention minus skew: the replay and the 422 come from the cache.
		clock.Store(start.Add(cfg.Retention - cfg.MaxClockSkew - time.Millisecond).UnixNano())
		if r := h.mustPost(t, keyA, "k-ret", body); !r.replayed() || r.charge(t).ID != first.charge(t).ID || hits() != 1 {
			t.Fatalf("replay: %d %s, %d cache hits; want the first charge from the cache", r.Status, r.Body, hits())
		}
		// The same bytes again (answered without parsing), the same request
		// in other bytes (by its fingerprint), then another request.
		const reordered = `{"card_token": "tok_visa", "currency": "GBP", "amount_cents": 4000}`
		for i, b := range []string{body, reordered} {
			if r := h.mustPost(t, keyA, "k-ret", b); !r.replayed() || r.charge(t).ID != first.charge(t).ID || hits() != int64(i+2) {
				t.Fatalf("replay of %s: %d %s, %d cache hits; want the first charge from the cache", b, r.Status, r.Body, hits())
			}
		}
		if r := h.mustPost(t, keyA, "k-ret", other); r.Status != 422 || hits() != 4 {
			t.Fatalf("other body: %d %s, %d cache hits; want 422 from the cache", r.Status, r.Body, hits())
		}
		// From retention minus skew on, the database answers: still a replay
		// while the claim is kept.
		clock.Store(start.Add(cfg.Retention - cfg.MaxClockSkew).UnixNano())
		if r := h.mustPost(t, keyA, "k-ret", body); !r.replayed() || hits() != 4 {
			t.Fatalf("at the cache's end: %d %s, %d cache hits; want a replay read from the database", r.Status, r.Body, hits())
		}
		clock.Store(start.Add(cfg.Retention + 50*time.Millisecond).UnixNano())
		if n, err := newPruner(cfg, h.store, h.server.Metrics(), now).RunOnce(context.Background()); err != nil || n != 1 {
			t.Fatalf("pruned %d, %v; want the one claim", n, err)
		}
		second := h.mustPost(t, keyA, "k-ret", other)
		if second.Status != 201 || second.replayed() || hits() != 4 {
			t.Fatalf("after retention: %d replay=%v %s, %d cache hits; want a new charge", second.Status, second.replayed(), second.Body, hits())
		}
		if c1, c2 := first.charge(t), second.charge(t); c1.ID == c2.ID || c2.AmountCents != 9900 {
			t.Fatalf("the reused key answered %+v after %+v; want a new charge of 9900", c2, c1)
		}
		recs, _ := h.ledger.Records(context.Background())
		if processor.Succeeded(recs) != 2 || countCharges(t, h.store) != 2 {
			t.Fatalf("processor %+v, %d charge rows; want two charges each", recs, countCharges(t, h.store))
		}
	})
}
