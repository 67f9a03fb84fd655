package chargeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// intents is how many purchase intents the client tests run at once.
const intents = 64

// sendIntents runs n intents concurrently through the reference client,
// intent i charging 1000+i cents, and returns their results.
func sendIntents(t *testing.T, url string, n int) []chargeclient.Result {
	t.Helper()
	o := chargeclient.DefaultOptions()
	o.URL, o.APIKey = url+"/v1/charges", keyA
	o.Deadline, o.AttemptTimeout, o.BaseDelay, o.MaxDelay = 60*time.Second, 5*time.Second, 20*time.Millisecond, 500*time.Millisecond
	c := chargeclient.New(o)
	results := make([]chargeclient.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := c.Charge(context.Background(), chargeclient.Intent{AmountCents: int64(1000 + i), Currency: "GBP", CardToken: "tok_visa"})
			if err != nil {
				t.Errorf("intent %d: %v after %d attempts (last %d %s)", i, err, res.Attempts, res.Status, res.Body)
			}
			results[i] = res
		})
	}
	wg.Wait()
	return results
}

// oneChargePerIntent checks the money: every intent charged, once, for its
// own amount, in the processor and the charges table alike, and reconcile
// finds nothing. It returns how many intents needed more than one attempt.
func oneChargePerIntent(t *testing.T, results []chargeclient.Result, st store.Store, proc processor.Processor) int {
	t.Helper()
	ctx := context.Background()
	retried, ids := 0, map[string]bool{}
	for i, r := range results {
		var c chargeJSON
		if !r.Charged() || json.Unmarshal(r.Body, &c) != nil || c.AmountCents != int64(1000+i) || ids[c.ID] {
			t.Errorf("intent %d: %d %s after %d attempts; want its own charge of %d", i, r.Status, r.Body, r.Attempts, 1000+i)
		}
		ids[c.ID] = true
		if r.Attempts > 1 {
			retried++
		}
	}
	recs, err := proc.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, rows := processor.Succeeded(recs), countCharges(t, st); n != len(results) || rows != len(results) {
		t.Errorf("%d intents: the processor charged %d times, the table has %d rows", len(results), n, rows)
	}
	diffs, err := Reconcile(ctx, st, proc)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("reconcile: %s", d)
	}
	return retried
}

// dropper is a proxy that loses every nth answer after the server gave it:
// the charge is made, the client hears nothing but a closed connection.
type dropper struct {
	target  string
	client  *http.Client
	every   int64
	seen    atomic.Int64
	dropped atomic.Int64
	// unavailable counts the 503s the server gave, dropped or not.
	unavailable atomic.Int64
	// onUnavailable, when set, is told each 503's count as it passes.
	onUnavailable func(n int64)
}

func (d *dropper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, err := http.NewRequestWithContext(r.Context(), r.Method, d.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	req.Header = r.Header.Clone()
	resp, err := d.client.Do(req)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		if n := d.unavailable.Add(1); d.onUnavailable != nil {
			d.onUnavailable(n)
		}
	}
	if err != nil || d.seen.Add(1)%d.every == 0 {
		d.dropped.Add(1)
		panic(http.ErrAbortHandler) // hang up without a word
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(b)
}

// TestClientExactlyOnceUnderFaults: 64 intents through the reference client
// while the processor times out, charges and then fails (the ambiguous
// answer), and a third of the answers are lost after the charge was made.
// Every intent ends charged exactly once, for its own amount.
func TestClientExactlyOnceUnderFaults(t *testing.T) {
	t.Parallel() // it waits more than it computes (servers starting, leases running out)
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := faultConfig(db)
		h, proc := startOverHTTP(t, cfg)
		ctx := context.Background()
		// First processor timeouts until 16 of them have been answered 503,
		// then 12 failures, 8 of them after charging, then health. The
		// faults change on what was seen, not after a time, so a loaded
		// machine cannot end the first before it bit.
		const counted, timeouts = 12, 16
		if err := proc.SetFaults(ctx, processor.Faults{Latency: 3 * cfg.ProcessorTimeout}); err != nil {
			t.Fatal(err)
		}
		d := &dropper{target: h.url, client: newClientWithTimeout(30 * time.Second), every: 3}
		d.onUnavailable = func(n int64) {
			if n == timeouts {
				if err := proc.SetFaults(ctx, processor.Faults{FailAfter: 8, FailBefore: counted - 8}); err != nil {
					t.Error(err)
				}
			}
		}
		proxy := httptest.NewServer(d)
		defer proxy.Close()
		results := sendIntents(t, proxy.URL, intents)
		retried := oneChargePerIntent(t, results, h.store, proc)
		if d.dropped.Load() == 0 || retried == 0 || d.unavailable.Load() < timeouts {
			t.Fatalf("answers dropped %d, intents retried %d, 503s %d (timeouts are the 503s beyond %d): a fault never bit, the run proves nothing",
				d.dropped.Load(), retried, d.unavailable.Load(), counted)
		}
		t.Logf("%d intents, %d answers dropped, %d 503s, %d intents retried", intents, d.dropped.Load(), d.unavailable.Load(), retried)
	})
}

// TestClientExactlyOnceAcrossServerCrash: 64 intents in flight when the
// server process is SIGKILLed between the processor's charges and their
// records, then restarted on the same address. The clients retry through the
// outage with their keys; every intent ends charged exactly once.
func TestClientExactlyOnceAcrossServerCrash(t *testing.T) {
	t.Parallel() // it waits more than it computes (servers starting, leases running out)
	if testing.Short() {
		t.Skip("crash test under load: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) {
		ledger, purl := processorService(t)
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		addr := freeAddr(t)
		first := startChildAt(t, addr, db, purl, true)
		done := make(chan []chargeclient.Result)
		go func() { done <- sendIntents(t, first.url, intents) }()
		first.waitLine(t, crashMarker)
		time.Sleep(100 * time.Millisecond) // let more intents reach the window
		first.kill()
		charged := processorCharges(t, ledger)
		if rows := countCharges(t, st); rows != 0 {
			t.Fatalf("%d charges were recorded before the crash; the window was missed", rows)
		}
		startChildAt(t, addr, db, purl, false)
		results := <-done
		if charged == 0 {
			t.Fatal("the crash came before any charge: the run proves nothing")
		}
		retried := oneChargePerIntent(t, results, st, ledger)
		t.Logf("%d intents, %d charged before the crash recorded nothing, %d intents retried", intents, charged, retried)
	})
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
