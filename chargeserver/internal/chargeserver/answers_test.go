package chargeserver

import (
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

func TestAnswersBoundedAndFinalOnly(t *testing.T) {
	now := time.Now()
	rec := func(key, status string) store.Record {
		return store.Record{Scope: store.Scope{Account: acctA, Route: RouteCreateCharge, Key: key}, Status: status,
			Fingerprint: "fp-" + key, ResponseStatus: 201, CreatedAt: now}
	}
	has := func(a *answers, key string) bool {
		_, ok := a.get(rec(key, "").Scope, now)
		return ok
	}
	a := newAnswers(2, time.Hour, time.Minute)
	a.put(rec("in-flight", store.StatusInProgress), now)
	if has(a, "in-flight") {
		t.Fatal("a claim in progress was cached; only final answers may be")
	}
	a.put(rec("k1", store.StatusCompleted), now)
	a.put(rec("k2", store.StatusCompleted), now)
	a.put(rec("k2", store.StatusCompleted), now) // again: no second slot
	if !has(a, "k1") || !has(a, "k2") {
		t.Fatal("two answers did not fit a cache of two")
	}
	a.put(rec("k3", store.StatusCompleted), now)
	if has(a, "k1") || !has(a, "k2") || !has(a, "k3") || len(a.entries) != 2 {
		t.Fatalf("after a third answer: %d entries; want the oldest evicted", len(a.entries))
	}
	if e, _ := a.get(rec("k3", "").Scope, now); e.fingerprint != "fp-k3" || !e.until.Equal(now.Add(time.Hour-time.Minute)) {
		t.Fatalf("k3 cached as %+v", e)
	}
	sum := bodySum{1}
	a.remember(rec("k3", "").Scope, sum)
	a.remember(rec("k1", "").Scope, sum) // evicted: nothing to remember it by
	if e, _ := a.get(rec("k3", "").Scope, now); e.raw != sum || has(a, "k1") {
		t.Fatalf("k3 remembers %x; want the body sum", e.raw)
	}
	if _, ok := a.get(rec("k3", "").Scope, now.Add(time.Hour-time.Minute)); ok {
		t.Fatal("an answer was served at retention minus skew, when another instance may prune it")
	}
	off := newAnswers(0, time.Hour, time.Minute)
	off.put(rec("k1", store.StatusCompleted), now)
	if has(off, "k1") {
		t.Fatal("a cache of size 0 kept an answer")
	}
	short := newAnswers(2, time.Minute, time.Minute)
	short.put(rec("k1", store.StatusCompleted), now)
	if has(short, "k1") {
		t.Fatal("retention within the skew: nothing may be cached")
	}
}
