package chargeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

// Bounds of a failover run: how many clients, how many charges each phase
// must see acknowledged, and how long a phase may take before the run is
// given up on.
const (
	failoverClients = 8
	acksBefore      = 24
	acksAfterCut    = 8
	acksAfter       = 24
	phaseLimit      = 90 * time.Second
	// cutHold is how long the synchronous pair runs with its standby cut
	// off before the kill.
	cutHold = 2 * time.Second
)

// TestFailoverSynchronousStandby is issue 49's production shape: a primary
// with a synchronous standby (synchronous_commit=on, the standby named in
// synchronous_standby_names), the server reaching them through pgx's
// multi-host connection string with target_session_attrs=read-write. Eight
// clients charge with random keys and retry with the same key on any error;
// mid-run the standby's WAL receiver is stopped, as in the asynchronous
// control, then the primary is SIGKILLed and the standby promoted. Every
// commit the server waited for is on the standby, so: every acknowledged
// charge exists exactly once, no key maps to two charges, a replay returns
// the stored answer byte for byte, and reconcile agrees with the processor.
//
// The floor (see floorRun) fails over with the server, on the pair's
// second database: one pair, one kill, for both, so the server's window is
// measured against the floor of the very same failover.
func TestFailoverSynchronousStandby(t *testing.T) {
	t.Parallel() // it waits more than it computes (servers starting, leases running out)
	if testing.Short() {
		t.Skip("failover test: starts two PostgreSQL servers; skipped under -short")
	}
	pair := testdb.StartPair(t, true)
	floor := newFloorRun(t, pair)
	r := failover(t, pair, true, floor.one)
	t.Run("server", func(t *testing.T) {
		for _, v := range r.violations(t) {
			t.Error(v)
		}
		t.Log(r.summary())
	})
	t.Run("floor", func(t *testing.T) { floor.check(t, r.killed) })
}

// TestFailoverAsynchronousStandbyLosesCharges is the negative control: the
// same run with an asynchronous standby (synchronous_commit=local) whose WAL
// receiver is stopped before the kill, so charges acknowledged after that
// exist only on the primary that dies. The checks of the synchronous test
// must see the loss; if they did not, they would prove nothing there either.
// The cut makes the loss all but certain; a run that acknowledged nothing
// after it is tried again, at most three times.
func TestFailoverAsynchronousStandbyLosesCharges(t *testing.T) {
	t.Parallel() // it waits more than it computes (servers starting, leases running out)
	if testing.Short() {
		t.Skip("failover test: starts two PostgreSQL servers; skipped under -short")
	}
	for round := 1; round <= 3; round++ {
		// Each round's pair and server end with its subtest: check inside.
		var v []string
		var summary string
		ok := t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			r := failover(t, testdb.StartPair(t, false), false)
			v, summary = r.violations(t), r.summary()
		})
		if !ok {
			t.FailNow()
		}
		if len(v) > 0 {
			t.Logf("round %d: the loss was seen, %d violation(s); the first: %s", round, len(v), v[0])
			t.Log(summary)
			return
		}
		t.Logf("round %d: no loss seen (%s)", round, summary)
	}
	t.Fatal("three runs with an asynchronous standby cut off before the kill, and the checks saw no loss: they have no teeth")
}

// failoverRun is what one run produced.
type failoverRun struct {
	h         *harness
	ledger    *processor.Ledger
	client    *chargeclient.Client
	intents   []intentResult
	attempts  *attemptLog
	killed    time.Time
	promoted  time.Time
	afterCut  int
	completed int
}

// intentResult is one intent as its client saw it.
type intentResult struct {
	in  chargeclient.Intent
	res chargeclient.Result
	err error
}

// failover runs the clients against a server on pair, kills the primary
// mid-run and promotes the standby; with synchronous false the standby is
// asynchronous and cut off first. Each of beside is one more workload run
// through the same phases (see failoverPhases).
func failover(t *testing.T, pair *testdb.Pair, synchronous bool, beside ...func() bool) *failoverRun {
	cfg := faultConfig(pair.DSN())
	ledger := processor.NewLedger()
	r := &failoverRun{ledger: ledger, attempts: &attemptLog{next: http.DefaultTransport.(*http.Transport).Clone()}}
	r.h = newHarness(t, cfg, ledger)
	o := chargeclient.DefaultOptions()
	o.URL, o.APIKey, o.Transport = r.h.url+"/v1/charges", keyA, r.attempts
	o.Deadline, o.AttemptTimeout, o.BaseDelay, o.MaxDelay = phaseLimit, 5*time.Second, 20*time.Millisecond, 500*time.Millisecond
	r.client = chargeclient.New(o)

	var mu sync.Mutex
	server := func() bool {
		in := chargeclient.Intent{Key: chargeclient.NewKey(), AmountCents: 100 + rand.Int64N(9900), Currency: "GBP", CardToken: "tok_visa"}
		res, err := r.client.Charge(context.Background(), in)
		mu.Lock()
		r.intents = append(r.intents, intentResult{in, res, err})
		mu.Unlock()
		return res.Charged()
	}
	r.killed, r.promoted, r.afterCut = failoverPhases(t, pair, synchronous, append([]func() bool{server}, beside...)...)
	r.completed = len(r.intents)
	return r
}

// failoverPhases runs each workload of ones, an intent from start to end
// that reports whether it was acknowledged, on failoverClients goroutines
// of its own, each starting the next when one ends, through the phases of
// a failover: acksBefore acknowledged; the standby cut off, then
// acksAfterCut more on an asynchronous pair, cutHold on a synchronous one,
// which acknowledges nothing the standby lacks; the primary killed and the
// standby promoted; acksAfter more. Every workload must reach each count
// on its own before the next phase. Then no more intents start, and it
// returns when the last one ends; afterCut counts the first workload's.
func failoverPhases(t *testing.T, pair *testdb.Pair, synchronous bool, ones ...func() bool) (killed, promoted time.Time, afterCut int) {
	acked := make([]atomic.Int64, len(ones))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, one := range ones {
		for range failoverClients {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if one() {
						acked[i].Add(1)
					}
				}
			})
		}
	}
	counts := func() []int64 {
		n := make([]int64, len(acked))
		for i := range acked {
			n[i] = acked[i].Load()
		}
		return n
	}
	// waitAcks waits until each workload has more more acknowledged than
	// it had in from.
	waitAcks := func(what string, from []int64, more int64) {
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			now, short := counts(), false
			for i := range now {
				short = short || now[i] < from[i]+more
			}
			if !short {
				return
			}
			if time.Since(start) > phaseLimit {
				close(stop)
				wg.Wait()
				t.Fatalf("%v intents acknowledged, waiting for %d more than %v %s: the run is stuck", now, more, from, what)
			}
		}
	}
	waitAcks("before the kill", make([]int64, len(ones)), acksBefore)
	pair.CutReplication(t)
	cut := counts()
	if synchronous {
		// Commits now wait for a standby that receives nothing: the
		// primary acknowledges no new charge, so there is nothing to wait
		// for but the requests piling up behind it.
		time.Sleep(cutHold)
	} else {
		waitAcks("after the standby was cut off", cut, acksAfterCut)
	}
	afterCut = int(acked[0].Load() - cut[0])
	killed = time.Now()
	pair.Primary.Kill(t)
	pair.Promote(t)
	promoted = time.Now()
	waitAcks("after the promotion", counts(), acksAfter)
	close(stop)
	wg.Wait()
	return killed, promoted, afterCut
}

// violations checks the invariants and returns each broken one. A replay
// of every acknowledged intent is part of the check: with a charge lost,
// the replay is a new charge, which the later checks count.
func (r *failoverRun) violations(t *testing.T) []string {
	ctx := context.Background()
	var out []string
	rows, err := r.h.store.AllCharges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for _, c := range rows {
		byID[c.ID]++
	}
	told := map[string]string{} // charge id -> key told it
	acked := 0
	for _, it := range r.intents {
		if it.err != nil || !it.res.Final {
			out = append(out, fmt.Sprintf("intent %s never settled: %v after %d attempts", it.res.Key, it.err, it.res.Attempts))
			continue
		}
		if !it.res.Charged() {
			out = append(out, fmt.Sprintf("intent %s: %d %s", it.res.Key, it.res.Status, it.res.Body))
			continue
		}
		acked++
		var c chargeJSON
		if err := json.Unmarshal(it.res.Body, &c); err != nil {
			t.Fatal(err)
		}
		if k, dup := told[c.ID]; dup {
			out = append(out, fmt.Sprintf("keys %s and %s were told one charge %s", k, it.res.Key, c.ID))
		}
		told[c.ID] = it.res.Key
		if n := byID[c.ID]; n != 1 {
			out = append(out, fmt.Sprintf("acknowledged charge %s (key %s, %d cents) is in the table %d times", c.ID, it.res.Key, c.AmountCents, n))
		}
		again, err := r.client.Charge(ctx, it.in)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("replay of %s: %v", it.res.Key, err))
		case !again.Replayed || !bytes.Equal(again.Body, it.res.Body):
			out = append(out, fmt.Sprintf("replay of %s: %d replayed=%v %s; want the stored answer %s byte for byte",
				it.res.Key, again.Status, again.Replayed, again.Body, it.res.Body))
		}
	}
	rows, err = r.h.store.AllCharges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := r.ledger.Records(ctx)
	if charged := processor.Succeeded(recs); len(rows) != acked || charged != acked {
		out = append(out, fmt.Sprintf("%d intents acknowledged; the table has %d charges, the processor made %d", acked, len(rows), charged))
	}
	diffs, err := Reconcile(ctx, r.h.store, r.ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		out = append(out, "reconcile: "+d)
	}
	return out
}

// summary is the run's figures: the unavailability window, from the first
// attempt that failed after the kill to the first new charge answered after
// it, and the retries the clients made.
func (r *failoverRun) summary() string {
	firstFail, firstOK := r.attempts.window(r.killed)
	retries, across := 0, 0
	for _, it := range r.intents {
		retries += it.res.Attempts - 1
		if it.res.Attempts > 1 {
			across++
		}
	}
	return fmt.Sprintf("%d intents (%d acknowledged after the standby was cut off); kill to promoted %s; unavailable %s (first failed attempt %s after the kill, first new charge %s after it); %d retries by %d intents; %d attempts failed",
		r.completed, r.afterCut, r.promoted.Sub(r.killed).Round(time.Millisecond), firstOK.Sub(firstFail).Round(time.Millisecond),
		firstFail.Sub(r.killed).Round(time.Millisecond), firstOK.Sub(r.killed).Round(time.Millisecond), retries, across, r.attempts.failed())
}

// attemptLog records when each attempt ended, whether it failed (no
// answer, or a 5xx) and whether it was a new charge, for the unavailability
// window.
type attemptLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	ends []attemptEnd
}

type attemptEnd struct {
	at      time.Time
	charged bool
	failed  bool
}

func (l *attemptLog) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	e := attemptEnd{at: time.Now(), failed: err != nil || resp.StatusCode >= 500}
	// A replay may come from the answers in memory: only a new charge
	// shows the database writable again.
	e.charged = err == nil && resp.StatusCode == http.StatusCreated && resp.Header.Get("Idempotent-Replay") != "true"
	l.add(e)
	return resp, err
}

func (l *attemptLog) add(e attemptEnd) {
	l.mu.Lock()
	l.ends = append(l.ends, e)
	l.mu.Unlock()
}

// window is the first failed attempt after since, and the first charge
// answered after that.
func (l *attemptLog) window(since time.Time) (firstFail, firstOK time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.ends {
		if e.failed && e.at.After(since) && (firstFail.IsZero() || e.at.Before(firstFail)) {
			firstFail = e.at
		}
	}
	for _, e := range l.ends {
		if e.charged && e.at.After(firstFail) && (firstOK.IsZero() || e.at.Before(firstOK)) {
			firstOK = e.at
		}
	}
	return firstFail, firstOK
}

func (l *attemptLog) failed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.ends {
		if e.failed {
			n++
		}
	}
	return n
}

// floorRun is the floor the server's window is measured against: the
// server's SQL flow for a new key (the claim, then the charge and the
// stored answer in one transaction) run straight through the store on the
// same multi-host connection string, each step retried every 20 ms with
// the same key on any error. No HTTP, no processor, no backoff: how long
// the database itself is unwritable. It holds the same invariant as the
// server: every key whose answer was committed has its one charge after
// the promotion. It runs on a database of its own, so neither workload's
// count of rows sees the other's.
type floorRun struct {
	st      store.Store
	log     *attemptLog
	mu      sync.Mutex
	done    map[string]string // key -> charge id
	retries int
}

func newFloorRun(t *testing.T, pair *testdb.Pair) *floorRun {
	st, err := store.Open(context.Background(), pair.Database(t, "floor"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &floorRun{st: st, log: &attemptLog{}, done: map[string]string{}}
}

// one runs a new key through the flow; it is failoverPhases' workload. It
// takes floorStep at least, as a retry does: run flat out, the floor made
// thousands of keys, each two synchronous commits, most of the failover
// test's CPU, for a window measured no finer than the retries' step.
func (f *floorRun) one() bool {
	defer pace(time.Now(), floorStep)
	key, tries := chargeclient.NewKey(), 0
	id, ok := floorCharge(f.st, key, f.log, &tries)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retries += tries - 1
	if ok {
		f.done[key] = id
	}
	return ok
}

// check holds the invariant once the run is over and logs the window
// from the kill.
func (f *floorRun) check(t *testing.T, killed time.Time) {
	rows, err := f.st.AllCharges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for _, c := range rows {
		byID[c.ID]++
	}
	for key, id := range f.done {
		if byID[id] != 1 {
			t.Errorf("key %s: committed charge %s is in the table %d times", key, id, byID[id])
		}
	}
	if len(rows) != len(f.done) {
		t.Errorf("%d keys committed, %d charges in the table", len(f.done), len(rows))
	}
	firstFail, firstOK := f.log.window(killed)
	t.Logf("floor: %d keys; unavailable %s (first failed step %s after the kill); %d retries, %d steps failed",
		len(f.done), firstOK.Sub(firstFail).Round(time.Millisecond), firstFail.Sub(killed).Round(time.Millisecond), f.retries, f.log.failed())
}

// floorStep is how often a floor worker steps, a retry or a new key.
const floorStep = 20 * time.Millisecond

// pace sleeps until step has passed since start.
func pace(start time.Time, step time.Duration) {
	time.Sleep(step - time.Since(start))
}

// floorCharge runs one key through the claim and the completion, each
// retried on error with the same key for up to phaseLimit; tries counts
// the attempts.
func floorCharge(st store.Store, key string, log *attemptLog, tries *int) (string, bool) {
	ctx := context.Background()
	now := time.Now()
	rec := store.Record{Scope: chargeScope(acctA, key), Fingerprint: key, ProcessorKey: "pk_" + key, Request: []byte("{}"),
		Owner: newOwner("floor"), LeaseUntil: now.Add(time.Minute), CreatedAt: now, Attempts: 1}
	c := store.Charge{ID: "ch_" + key, Account: acctA, AmountCents: 100, Currency: "GBP", Status: "succeeded", ProcessorKey: rec.ProcessorKey, CreatedAt: now}
	for start := time.Now(); time.Since(start) < phaseLimit; time.Sleep(floorStep) {
		*tries++
		existing, claimed, err := st.Claim(ctx, rec)
		if err == nil && !claimed && existing.Status == store.StatusCompleted {
			log.add(attemptEnd{at: time.Now(), charged: true})
			return c.ID, true
		}
		if err == nil && (claimed || existing.Owner == rec.Owner) {
			var ok bool
			ok, err = st.Complete(ctx, rec.Scope, rec.Owner, store.Response{Status: 201, Body: []byte(`{}`), Charge: &c}, time.Now())
			if err == nil && ok {
				log.add(attemptEnd{at: time.Now(), charged: true})
				return c.ID, true
			}
		}
		log.add(attemptEnd{at: time.Now(), failed: true})
	}
	return "", false
}
