package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

func eachStore(t *testing.T, f func(t *testing.T, st store.Store)) {
	for name, dsn := range map[string]func(testing.TB) string{"sqlite": testdb.SQLite, "postgres": testdb.Postgres} {
		t.Run(name, func(t *testing.T) {
			st, err := store.Open(context.Background(), dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			f(t, st)
		})
	}
}

func record(key, owner string, now time.Time) store.Record {
	return store.Record{
		Scope:       store.Scope{Account: "acct", Route: "POST /v1/charges", Key: key},
		Fingerprint: "fp", ProcessorKey: "pk_" + key, Request: []byte(`{}`),
		Owner: owner, LeaseUntil: now.Add(time.Minute), CreatedAt: now,
	}
}

// TestClaimIsExclusive: many racing claims on one scope, exactly one wins and
// every loser sees the winner's row.
func TestClaimIsExclusive(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		now := time.Now()
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				got, claimed, err := st.Claim(context.Background(), record("k", fmt.Sprint("o", i), now))
				if err != nil {
					t.Error(err)
					return
				}
				if claimed {
					wins.Add(1)
				} else if got.Status != store.StatusInProgress || got.Fingerprint != "fp" {
					t.Errorf("loser saw %+v", got)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d claims won, want 1", wins.Load())
		}
	})
}

// TestLeaseRules: no takeover while the lease runs; after it, one takeover,
// and only the current owner can complete, once.
func TestLeaseRules(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Now()
		rec := record("k", "first", now)
		if _, ok, err := st.Claim(ctx, rec); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if ok, _ := st.TakeOver(ctx, rec.Scope, "first", "thief", now, now.Add(time.Minute)); ok {
			t.Fatal("took over a live lease")
		}
		if err := st.ExpireLease(ctx, rec.Scope, "first", now); err != nil {
			t.Fatal(err)
		}
		later := now.Add(time.Millisecond)
		if ok, _ := st.TakeOver(ctx, rec.Scope, "first", "second", later, later.Add(time.Minute)); !ok {
			t.Fatal("could not take over an expired lease")
		}
		if ok, _ := st.TakeOver(ctx, rec.Scope, "first", "third", later, later.Add(time.Minute)); ok {
			t.Fatal("two takeovers of one expiry")
		}
		resp := store.Response{Status: 201, Body: []byte(`{"id":"ch_1"}`), Charge: &store.Charge{ID: "ch_1", Account: "acct", AmountCents: 1, Currency: "GBP", Status: "succeeded", ProcessorKey: rec.ProcessorKey, CreatedAt: now}}
		if ok, _ := st.Complete(ctx, rec.Scope, "first", resp, now); ok {
			t.Fatal("the old owner completed")
		}
		if ok, err := st.Complete(ctx, rec.Scope, "second", resp, now); !ok || err != nil {
			t.Fatal("the owner could not complete", err)
		}
		if ok, _ := st.Complete(ctx, rec.Scope, "second", resp, now); ok {
			t.Fatal("completed twice")
		}
		got, err := st.Get(ctx, rec.Scope)
		if err != nil || got.Status != store.StatusCompleted || string(got.ResponseBody) != `{"id":"ch_1"}` {
			t.Fatalf("%+v %v", got, err)
		}
		if cs, _ := st.AllCharges(ctx); len(cs) != 1 {
			t.Fatalf("%d charges", len(cs))
		}
		if _, err := st.Charge(ctx, "other", "ch_1"); err != store.ErrNotFound {
			t.Fatalf("another account read the charge: %v", err)
		}
	})
}

// TestAttemptsAndStats: every takeover counts one more drive, and ClaimStats
// tells a live claim from a stale one and both from a completed one.
func TestAttemptsAndStats(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Now()
		done, live, stale := record("done", "o", now.Add(-time.Hour)), record("live", "o", now), record("stale", "o", now.Add(-time.Minute))
		stale.LeaseUntil = now.Add(-time.Second)
		for _, r := range []store.Record{done, live, stale} {
			if _, ok, err := st.Claim(ctx, r); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		if ok, err := st.Complete(ctx, done.Scope, "o", store.Response{Status: 402, Body: []byte(`{}`)}, now); !ok || err != nil {
			t.Fatal(ok, err)
		}
		stats, err := st.ClaimStats(ctx, now)
		want := []store.ClaimStat{
			{State: store.StatusCompleted, Count: 1, Oldest: done.CreatedAt.Truncate(time.Millisecond).UTC()},
			{State: store.StatusInProgress, Count: 1, Oldest: live.CreatedAt.Truncate(time.Millisecond).UTC()},
			{State: store.StateStale, Count: 1, Oldest: stale.CreatedAt.Truncate(time.Millisecond).UTC()},
		}
		if err != nil || fmt.Sprint(stats) != fmt.Sprint(want) {
			t.Fatalf("stats %v, %v; want %v", stats, err, want)
		}
		for i, owner := range []string{"o2", "o3"} {
			prev := []string{"o", "o2"}[i]
			later := now.Add(time.Duration(i+1) * time.Millisecond)
			if ok, err := st.TakeOver(ctx, stale.Scope, prev, owner, later, later.Add(-time.Millisecond/2)); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		got, err := st.Get(ctx, stale.Scope)
		if err != nil || got.Attempts != 3 {
			t.Fatalf("attempts after two takeovers: %d, %v; want 3", got.Attempts, err)
		}
		completed, err := st.Completed(ctx)
		if err != nil || len(completed) != 1 || completed[0].Key != "done" || completed[0].ResponseStatus != 402 {
			t.Fatalf("completed %+v, %v", completed, err)
		}
	})
}

// TestSQLiteUpgradesOldSchema: a database made before claims counted their
// drives opens, gains the column, and keeps its rows.
func TestSQLiteUpgradesOldSchema(t *testing.T) {
	dsn := testdb.SQLite(t)
	st, err := store.OpenSQLite(context.Background(), strings.TrimPrefix(dsn, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rec := record("old", "o", time.Now())
	if _, ok, err := st.Claim(ctx, rec); !ok || err != nil {
		t.Fatal(ok, err)
	}
	st.Close()
	// Back to the first release's table, through the driver the store uses.
	db, err := sql.Open("sqlite", strings.TrimPrefix(dsn, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE idempotency_keys DROP COLUMN attempts`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 { // and opening it again is a no-op
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Get(ctx, rec.Scope)
		st.Close()
		if err != nil || got.Attempts != 1 {
			t.Fatalf("after the upgrade: %+v, %v", got, err)
		}
	}
}

// TestConcurrentCompletionsFailAlone: completions racing through the store
// (on SQLite, group-committed) each get their own outcome. One whose charge
// row breaks a constraint fails, and leaves its claim in progress, while the
// others, whichever group they shared, are committed.
func TestConcurrentCompletionsFailAlone(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Now().Truncate(time.Millisecond)
		charge := func(id, key string) *store.Charge {
			return &store.Charge{ID: id, Account: "acct", AmountCents: 100, Currency: "GBP", Status: "succeeded", ProcessorKey: "pk_" + key, CreatedAt: now}
		}
		if err := st.InsertCharge(ctx, *charge("ch_taken", "earlier")); err != nil {
			t.Fatal(err)
		}
		const n = 48
		for i := range n {
			if _, ok, err := st.Claim(ctx, record(fmt.Sprint("k", i), "o", now)); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				key, id := fmt.Sprint("k", i), fmt.Sprint("ch_", i)
				if i == n/2 {
					id = "ch_taken" // the primary key is someone else's
				}
				ok, err := st.Complete(ctx, store.Scope{Account: "acct", Route: "POST /v1/charges", Key: key}, "o",
					store.Response{Status: 201, Body: []byte(key), Charge: charge(id, key)}, now)
				if err == nil && !ok {
					err = fmt.Errorf("%s: the owner lost its claim", key)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			got, gerr := st.Get(ctx, store.Scope{Account: "acct", Route: "POST /v1/charges", Key: fmt.Sprint("k", i)})
			switch {
			case gerr != nil:
				t.Fatal(gerr)
			case i == n/2 && (err == nil || got.Status != store.StatusInProgress):
				t.Fatalf("the completion with a taken charge id: %v, claim %s; want an error and the claim in progress", err, got.Status)
			case i != n/2 && (err != nil || got.Status != store.StatusCompleted || string(got.ResponseBody) != fmt.Sprint("k", i)):
				t.Fatalf("completion %d: %v, claim %s %q; want it committed", i, err, got.Status, got.ResponseBody)
			}
		}
		if all, err := st.AllCharges(ctx); err != nil || len(all) != n {
			t.Fatalf("%d charges, %v; want %d", len(all), err, n)
		}
	})
}
