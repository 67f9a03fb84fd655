package chargeserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// roundRobin sends each request to the next of several instances, as a
// load balancer without affinity does: a retry lands on another instance.
type roundRobin struct {
	hosts []string
	n     atomic.Int64
	tr    http.RoundTripper
	// unanswered counts requests that got no answer (the killed instance's).
	unanswered atomic.Int64
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Host = rr.hosts[int(rr.n.Add(1))%len(rr.hosts)]
	r.Host = ""
	resp, err := rr.tr.RoundTrip(r)
	if err != nil {
		rr.unanswered.Add(1)
	}
	return resp, err
}

// instances is several server processes on one database.
type instances struct {
	t             *testing.T
	db, processor string
	addrs         []string
	procs         []*child
	env           []string
}

func startInstances(t *testing.T, n int, db, processorURL string, env ...string) *instances {
	in := &instances{t: t, db: db, processor: processorURL, env: env}
	for range n {
		c := startChildAt(t, freeAddr(t), db, processorURL, false, env...)
		u, _ := url.Parse(c.url)
		in.addrs, in.procs = append(in.addrs, u.Host), append(in.procs, c)
	}
	return in
}

// restart SIGKILLs instance i and starts it again on the same address.
func (in *instances) restart(i int) {
	in.procs[i].kill()
	in.procs[i] = startChildAt(in.t, in.addrs[i], in.db, in.processor, false, in.env...)
}

func (in *instances) stop() {
	for _, c := range in.procs {
		c.kill()
	}
}

func (in *instances) harness(i int, st store.Store, ledger *processor.Ledger) *harness {
	return &harness{url: "http://" + in.addrs[i], store: st, ledger: ledger, contract: loadContract(in.t), client: newClientWithTimeout(20 * time.Second)}
}

// cacheHits reads chargeserver_replay_cache_hits_total from an instance.
func cacheHits(t *testing.T, h *harness) int {
	m := regexp.MustCompile(`(?m)^chargeserver_replay_cache_hits_total (\d+)$`).FindSubmatch(h.get(t, "", "/metrics").Body)
	if m == nil {
		t.Fatal("no chargeserver_replay_cache_hits_total in /metrics")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestManyInstancesOneDatabase: three server processes on one PostgreSQL,
// the database the arbiter. Every intent goes through a round-robin client
// twice at once (a duplicate, and concurrent retries landing on different
// instances), and one instance is SIGKILLed mid-flight and restarted. Each
// intent is one charge, both copies get it, and reconcile agrees. Then, with
// a short --retention on every instance, answers cached by two instances
// are pruned by the pruners: the key used again is a new charge everywhere,
// never the cached answer of a claim that is gone.
func TestManyInstancesOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("three server processes under load: skipped under -short")
	}
	db := postgresDSN(t)
	ledger, ps := processorService(t)
	ledger.SetFaults(processor.Faults{Latency: 30 * time.Millisecond})
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in := startInstances(t, 3, db, ps)

	o := chargeclient.DefaultOptions()
	o.URL, o.APIKey = "http://"+in.addrs[0]+"/v1/charges", keyA
	o.Deadline, o.AttemptTimeout, o.BaseDelay, o.MaxDelay = 60*time.Second, 5*time.Second, 20*time.Millisecond, 500*time.Millisecond
	rr := &roundRobin{hosts: in.addrs, tr: http.DefaultTransport.(*http.Transport).Clone()}
	o.Transport = rr
	c := chargeclient.New(o)
	const n = 48
	results := make([][2]chargeclient.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		key := chargeclient.NewKey()
		for copy := range 2 {
			wg.Go(func() {
				res, err := c.Charge(context.Background(), chargeclient.Intent{Key: key, AmountCents: int64(1000 + i), Currency: "GBP", CardToken: "tok_visa"})
				if err != nil {
					t.Errorf("intent %d copy %d: %v after %d attempts (last %d %s)", i, copy, err, res.Attempts, res.Status, res.Body)
				}
				results[i][copy] = res
			})
		}
	}
	waitFor(t, 30*time.Second, func() bool { return processorCharges(t, ledger) >= 8 })
	atKill := processorCharges(t, ledger)
	in.restart(1) // mid-flight: the processor is still charging the rest
	wg.Wait()
	if rr.unanswered.Load() == 0 || atKill >= n {
		t.Fatalf("%d requests unanswered, %d of %d charged at the kill: it was not mid-flight, the run proves nothing", rr.unanswered.Load(), atKill, n)
	}
	first := make([]chargeclient.Result, n)
	for i, pair := range results {
		first[i] = pair[0]
		if string(pair[0].Body) != string(pair[1].Body) {
			t.Errorf("intent %d: the two copies were told different answers: %s and %s", i, pair[0].Body, pair[1].Body)
		}
	}
	retried := oneChargePerIntent(t, first, st, ledger)
	t.Logf("%d intents x 2 copies over 3 instances, one killed with %d charged: %d requests unanswered, %d intents needed a retry",
		n, atKill, rr.unanswered.Load(), retried)
	in.stop()

	// The replay cache across instances: every instance with the same short
	// retention; two of them cache each answer, and the pruners delete it.
	ledger.SetFaults(processor.Faults{})
	in = startInstances(t, 3, db, ps, envRetention+"=3s")
	defer in.stop()
	hs := []*harness{in.harness(0, st, ledger), in.harness(1, st, ledger), in.harness(2, st, ledger)}
	const keys = 8
	old := map[string]string{}
	for k := range keys {
		key := fmt.Sprintf("pruned-%d", k)
		body := fmt.Sprintf(`{"amount_cents": %d, "currency": "GBP", "card_token": "tok_visa"}`, 2000+k)
		r := hs[0].mustPost(t, keyA, key, body)
		old[key] = r.charge(t).ID
		for _, h := range hs[1:] {
			for range 2 { // the second from memory
				if r := h.mustPost(t, keyA, key, body); r.Status != 201 || !r.replayed() || r.charge(t).ID != old[key] {
					t.Fatalf("%s on another instance: %d replayed=%v %s", key, r.Status, r.replayed(), r.Body)
				}
			}
		}
	}
	for _, h := range hs[1:] {
		if cacheHits(t, h) < keys {
			t.Fatalf("an instance answered fewer than %d replays from its cache: the check below would prove nothing", keys)
		}
	}
	waitFor(t, 20*time.Second, func() bool {
		for k := range keys {
			if _, err := st.Get(context.Background(), store.Scope{Account: acctA, Route: RouteCreateCharge, Key: fmt.Sprintf("pruned-%d", k)}); !errors.Is(err, store.ErrNotFound) {
				return false
			}
		}
		return true
	})
	for k := range keys {
		key := fmt.Sprintf("pruned-%d", k)
		body := fmt.Sprintf(`{"amount_cents": %d, "currency": "GBP", "card_token": "tok_visa"}`, 3000+k)
		var fresh string
		for i, h := range hs[1:] {
			r := h.mustPost(t, keyA, key, body)
			var c chargeJSON
			_ = json.Unmarshal(r.Body, &c)
			switch {
			case r.Status != 201 || c.ID == old[key] || c.AmountCents != int64(3000+k):
				t.Errorf("%s after pruning, instance %d: %d %s; want a new charge of %d, never the pruned %s", key, i+1, r.Status, r.Body, 3000+k, old[key])
			case i == 0 && r.replayed(), i == 1 && (!r.replayed() || c.ID != fresh):
				t.Errorf("%s after pruning, instance %d: replayed=%v %s; want the first a new charge and the second its replay", key, i+1, r.replayed(), r.Body)
			}
			fresh = c.ID
		}
	}
	if diffs, err := Reconcile(context.Background(), st, ledger); err != nil || len(diffs) != 0 {
		t.Fatalf("reconcile: %v %v", diffs, err)
	}
}
