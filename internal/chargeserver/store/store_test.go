package store_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/chargeserver/store"
	"github.com/contractlint/contractlint/internal/chargeserver/testdb"
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
