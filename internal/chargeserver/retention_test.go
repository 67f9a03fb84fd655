package chargeserver

import (
	"context"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/chargeserver/processor"
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
