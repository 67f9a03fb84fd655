package chargeserver

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestReaperResolvesAmbiguousFailure: the processor charges and then fails,
// so the server cannot know the outcome and answers 503, expiring its own
// lease. The reaper asks the processor again with the same key, gets the
// original charge and records it; the retry replays it and nothing is charged
// twice.
func TestReaperResolvesAmbiguousFailure(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		h.ledger.SetFaults(processor.Faults{FailAfter: 1})
		r := h.mustPost(t, keyA, "amb", okBody)
		if r.Status != 503 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("ambiguous failure: %d %s", r.Status, r.Body)
		}
		reaper := NewReaper(h.cfg, h.store, h.ledger, h.server.Metrics(), quietLog())
		if n, err := reaper.RunOnce(context.Background()); err != nil || n != 1 {
			t.Fatalf("reaper resolved %d, %v; want 1", n, err)
		}
		r = h.mustPost(t, keyA, "amb", okBody)
		if r.Status != 201 || !r.replayed() {
			t.Fatalf("retry after reaping: %d replay=%v", r.Status, r.replayed())
		}
		recs, _ := h.ledger.Records(context.Background())
		if len(recs) != 1 || recs[0].ID != r.charge(t).ID || countCharges(t, h.store) != 1 {
			t.Fatalf("want the processor's one charge recorded once; processor %+v, rows %d", recs, countCharges(t, h.store))
		}
		if diffs, err := Reconcile(context.Background(), h.store, h.ledger); err != nil || len(diffs) != 0 {
			t.Fatalf("reconcile: %v %v", diffs, err)
		}
	})
}

// TestRetryRedrivesExpiredClaim: with no reaper, a retry after the lease
// expired takes the claim over itself and gets the original charge.
func TestRetryRedrivesExpiredClaim(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		h.ledger.SetFaults(processor.Faults{FailAfter: 1})
		h.mustPost(t, keyA, "redrive", okBody)
		r := h.mustPost(t, keyA, "redrive", okBody)
		if r.Status != 201 || r.replayed() {
			t.Fatalf("re-driving retry: %d replay=%v %s", r.Status, r.replayed(), r.Body)
		}
		if processorCharges(t, h.ledger) != 1 || countCharges(t, h.store) != 1 {
			t.Fatal("re-drive charged twice")
		}
	})
}

// TestReaperRespectsLease: a claim whose lease is still running belongs to a
// live attempt; the reaper must not touch it until stale-after has passed.
func TestReaperRespectsLease(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		cfg.ProcessorTimeout, cfg.StaleAfter = 100*time.Millisecond, 400*time.Millisecond
		h := newHarness(t, cfg, nil)
		ctx := context.Background()
		claimed := time.Now()
		rec := claimDirectly(t, h, "leased", claimed)
		// The reaper's clock is set, not slept on: a loaded machine may take
		// longer than the lease between the claim and the first run.
		var at atomic.Int64
		at.Store(claimed.Add(cfg.StaleAfter / 2).UnixNano())
		reaper := newReaper(cfg, h.store, h.ledger, h.server.Metrics(), quietLog(), func() time.Time { return time.Unix(0, at.Load()) })
		if n, _ := reaper.RunOnce(ctx); n != 0 || h.ledger.Calls() != 0 {
			t.Fatalf("the reaper raced a live attempt (resolved %d)", n)
		}
		at.Store(claimed.Add(cfg.StaleAfter + 50*time.Millisecond).UnixNano())
		if n, err := reaper.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("after stale-after: resolved %d, %v", n, err)
		}
		// The original owner waking up late must not record a second answer.
		ok, err := h.store.Complete(ctx, rec.Scope, rec.Owner, store.Response{Status: 201, Body: []byte(`{}`)}, time.Now())
		if ok || err != nil {
			t.Fatalf("the dead owner completed a claim it lost: %v %v", ok, err)
		}
		if h.server.Metrics().ReaperRuns.Load() != 2 || h.server.Metrics().Reaped.Load() != 1 {
			t.Fatal("reaper metrics not counted")
		}
	})
}

// claimDirectly stores an in-progress claim for okBody, as a server would
// before calling the processor.
func claimDirectly(t *testing.T, h *harness, key string, now time.Time) store.Record {
	t.Helper()
	req, canonical, p := parseCharge([]byte(okBody), &h.cfg)
	if p != nil || req.AmountCents != 4000 {
		t.Fatal(p)
	}
	rec := store.Record{
		Scope:       store.Scope{Account: acctA, Route: RouteCreateCharge, Key: key},
		Fingerprint: idem.Fingerprint(canonical), ProcessorKey: "pk_" + key, Request: canonical,
		Owner: "dead-owner", LeaseUntil: now.Add(h.cfg.StaleAfter), CreatedAt: now,
	}
	if _, claimed, err := h.store.Claim(context.Background(), rec); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	return rec
}

func TestPrunerDeletesPastRetention(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		cfg.PruneBatch = 2 // several batches
		h := newHarness(t, cfg, nil)
		ctx := context.Background()
		old := time.Now().Add(-cfg.Retention - time.Hour)
		for _, k := range []string{"o1", "o2", "o3", "o4", "o5"} {
			rec := claimDirectly(t, h, k, old)
			if ok, err := h.store.Complete(ctx, rec.Scope, rec.Owner, store.Response{Status: 201, Body: []byte(`{}`)}, old); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		stuck := claimDirectly(t, h, "old-in-progress", old)
		fresh := h.mustPost(t, keyA, "fresh", okBody)
		n, err := NewPruner(cfg, h.store, h.server.Metrics()).RunOnce(ctx)
		if err != nil || n != 5 {
			t.Fatalf("pruned %d, %v; want 5", n, err)
		}
		if _, err := h.store.Get(ctx, stuck.Scope); err != nil {
			t.Fatal("the pruner deleted an unresolved claim; only the reaper may settle it")
		}
		if r := h.mustPost(t, keyA, "fresh", okBody); !r.replayed() || string(r.Body) != string(fresh.Body) {
			t.Fatal("a key inside retention was pruned")
		}
		// A pruned key is free again: the same key is a new request now.
		if _, err := h.store.Get(ctx, store.Scope{Account: acctA, Route: RouteCreateCharge, Key: "o1"}); err != store.ErrNotFound {
			t.Fatalf("o1 still stored: %v", err)
		}
	})
}

// TestScopeIncludesRoute: the store keys claims by route too, so one key on
// another route is an independent claim.
func TestScopeIncludesRoute(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		rec := claimDirectly(t, h, "k", time.Now())
		rec.Route = "POST /v1/refunds"
		if _, claimed, err := h.store.Claim(context.Background(), rec); err != nil || !claimed {
			t.Fatalf("the same key on another route was not independent: %v %v", claimed, err)
		}
		if _, claimed, _ := h.store.Claim(context.Background(), rec); claimed {
			t.Fatal("claimed one scope twice")
		}
	})
}

func TestRolloutWithoutKeyAndMetrics(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.RequireIdempotencyKey = false
	h := newHarness(t, cfg, nil)
	for range 2 {
		if r := h.mustPost(t, keyA, "", okBody); r.Status != 201 || r.replayed() {
			t.Fatalf("keyless: %d %s", r.Status, r.Body)
		}
	}
	h.mustPost(t, keyA, "m", okBody)
	h.mustPost(t, keyA, "m", okBody)
	h.mustPost(t, keyA, "m", strings.Replace(okBody, "tea", "coffee", 1))
	m := h.get(t, "", "/metrics")
	for _, want := range []string{
		"chargeserver_requests_without_key_total 2",
		"chargeserver_replays_total 1",
		"chargeserver_key_reused_total 1",
		`chargeserver_requests_total{outcome="created"} 3`,
		"chargeserver_reaper_runs_total 0",
		"chargeserver_pruner_runs_total 0",
	} {
		if !strings.Contains(string(m.Body), want) {
			t.Errorf("metrics lack %q:\n%s", want, m.Body)
		}
	}
	if processorCharges(t, h.ledger) != 3 {
		t.Fatal("want 3 charges: 2 keyless, 1 keyed")
	}
}

func TestRateLimit(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.RateLimit, cfg.RateBurst = 1, 2
	h := newHarness(t, cfg, nil)
	var last reply
	for range 3 {
		last = h.get(t, keyA, "/v1/charges")
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" {
		t.Fatalf("third request within the burst of 2: %d", last.Status)
	}
	if r := h.get(t, keyB, "/v1/charges"); r.Status != 200 {
		t.Fatalf("another account was limited: %d", r.Status)
	}
}

func TestServesItsContract(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	r := h.get(t, "", "/openapi.yaml")
	if r.Status != 200 || !strings.HasPrefix(string(r.Body), "openapi: 3.1") {
		t.Fatalf("GET /openapi.yaml: %d", r.Status)
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	cfg.StaleAfter = cfg.ProcessorTimeout
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--stale-after") {
		t.Fatalf("stale-after not above the processor timeout was accepted: %v", err)
	}
}

func TestReconcileFindsDifferences(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	h.mustPost(t, keyA, "ok", okBody)
	ctx := context.Background()
	// A charge the processor made that the server never recorded.
	if _, err := h.ledger.Charge(ctx, processor.Request{Key: "orphan", AmountCents: 5, Currency: "GBP", CardToken: "tok"}); err != nil {
		t.Fatal(err)
	}
	diffs, err := Reconcile(ctx, h.store, h.ledger)
	if err != nil || len(diffs) != 1 || !strings.Contains(diffs[0], "has no charge row") {
		t.Fatalf("diffs %q, %v", diffs, err)
	}
}
