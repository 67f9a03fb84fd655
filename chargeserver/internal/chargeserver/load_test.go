package chargeserver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1/chargesv1connect"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// TestLoadMix's volume per database: loadRequests answers by default, as
// exactly-once is a property of every request, not of their number, and a
// thousand answers from 64 racing connections hold every kind of race the
// mix makes (new keys, retries, concurrent duplicates); loadDuration, when
// set, drives it for that long instead, to measure throughput.
var (
	loadRequests = flag.Int("load-requests", 1000, "how many answers TestLoadMix waits for per database")
	loadDuration = flag.Duration("load-duration", 0, "how long TestLoadMix drives each database (e.g. 30s), instead of -load-requests")
)

// loadStats is what a mixed load saw, kept to check the ledger afterwards.
type loadStats struct {
	mu sync.Mutex
	// ids is the charge id every 201 for a key carried; conflicts lists keys
	// answered with two different ids (a double charge as the client sees it).
	ids       map[string]string
	conflicts []string
	// sent is every key sent; done the keys answered 201 (retry candidates).
	sent     map[string]bool
	done     []string
	statuses map[int]int
	// transport counts requests that got no HTTP answer at all.
	transport int
	lat       []time.Duration
	elapsed   time.Duration
}

func newLoadStats() *loadStats {
	return &loadStats{ids: map[string]string{}, sent: map[string]bool{}, statuses: map[int]int{}}
}

func (s *loadStats) total() int { return len(s.lat) }

// watch runs cond on the stats of a load still running.
func (s *loadStats) watch(cond func(s *loadStats) bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cond(s)
}

// failures are requests answered neither 201 nor 409, or not answered.
func (s *loadStats) failures() int {
	return s.total() - s.statuses[201] - s.statuses[409]
}

func (s *loadStats) String() string {
	lat := slices.Clone(s.lat)
	slices.Sort(lat)
	p := func(q float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return ms(lat[int(float64(len(lat)-1)*q)])
	}
	return fmt.Sprintf("%d requests in %.1fs: %.0f req/s, p50 %.1f ms, p99 %.1f ms; statuses %v, %d unanswered; error rate %.2f%%",
		s.total(), s.elapsed.Seconds(), float64(s.total())/s.elapsed.Seconds(), p(0.5), p(0.99), s.statuses, s.transport,
		100*float64(s.failures())/float64(max(1, s.total())))
}

// record files one answer; id is "" unless the answer was a 201.
func (s *loadStats) record(key string, status int, id string, err error, took time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lat = append(s.lat, took)
	s.sent[key] = true
	if err != nil {
		s.transport++
		return
	}
	s.statuses[status]++
	if status != 201 {
		return
	}
	switch prev, ok := s.ids[key]; {
	case !ok:
		s.ids[key] = id
		s.done = append(s.done, key)
	case prev != id:
		s.conflicts = append(s.conflicts, fmt.Sprintf("key %s answered with charges %s and %s", key, prev, id))
	}
}

func (s *loadStats) completedKey(r *rand.Rand) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.done) == 0 {
		return "", false
	}
	return s.done[r.IntN(len(s.done))], true
}

// loadClient posts charges over plain HTTP, without contract validation,
// which would dominate the timing.
type loadClient struct {
	url    string
	client *http.Client
	// rpc, when set, sends each charge as a gRPC call on it instead.
	rpc *http.Client
	// rpcService is the gRPC client for url, made once per url: building
	// one per call (its procedures' descriptors) was a third of a gRPC
	// load test's CPU.
	rpcService struct {
		sync.Mutex
		url    string
		client chargesv1connect.ChargeServiceClient
	}
}

func newLoadClient(url string, conns int) *loadClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = conns, conns
	return &loadClient{url: url, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (c *loadClient) post(key string) (status int, id string, err error) {
	if c.rpc != nil {
		return c.postRPC(key)
	}
	req, _ := http.NewRequest(http.MethodPost, c.url+"/v1/charges", strings.NewReader(okBody))
	req.Header.Set("Authorization", "Bearer "+keyA)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode == 201 {
		var ch chargeJSON
		if err := json.Unmarshal(body, &ch); err != nil || ch.ID == "" {
			return 0, "", fmt.Errorf("a 201 without a charge: %s", body)
		}
		id = ch.ID
	}
	return resp.StatusCode, id, nil
}

func (c *loadClient) send(stats *loadStats, key string) {
	start := time.Now()
	status, id, err := c.post(key)
	stats.record(key, status, id, err, time.Since(start))
}

// mixLoadInto drives the server from clients goroutines until ctx ends:
// half new keys, a quarter retries of keys already answered 201, a quarter
// bursts of three concurrent identical requests with one new key. It counts
// into stats, which the caller may watch while the load runs (awaitLoad).
func mixLoadInto(ctx context.Context, c *loadClient, clients int, prefix string, stats *loadStats) {
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			for n := 0; ctx.Err() == nil; n++ {
				key := fmt.Sprintf("%s-%d-%d", prefix, w, n)
				switch r.IntN(4) {
				case 0, 1:
					c.send(stats, key)
				case 2:
					if k, ok := stats.completedKey(r); ok {
						key = k
					}
					c.send(stats, key)
				case 3:
					var burst sync.WaitGroup
					for range 3 {
						burst.Go(func() { c.send(stats, key) })
					}
					burst.Wait()
				}
			}
		})
	}
	wg.Wait()
	stats.mu.Lock()
	stats.elapsed = time.Since(start)
	stats.mu.Unlock()
}

// loadPatience is how long a load may go without what a test waits for
// before the test fails: a guard against a hang, not a budget, so it is
// far above what a machine loaded many times over needs.
const loadPatience = 5 * time.Minute

// loadUntil runs mixLoad until n answers have come back with both a 201 and
// a 409 among them, or, with d set, for d; loadPatience without that fails t.
func loadUntil(t *testing.T, c *loadClient, clients int, prefix string, n int, d time.Duration) *loadStats {
	t.Helper()
	limit := loadPatience
	if d > 0 {
		limit = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	stats := newLoadStats()
	done := make(chan struct{})
	go func() { mixLoadInto(ctx, c, clients, prefix, stats); close(done) }()
	enough := func(s *loadStats) bool { return s.total() >= n && s.statuses[201] > 0 && s.statuses[409] > 0 }
	for d == 0 && !stats.watch(enough) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if d == 0 && !enough(stats) {
		t.Fatalf("%v without %d answers holding a 201 and a 409 (%s)", loadPatience, n, stats)
	}
	return stats
}

// awaitLoad waits until cond holds of a load still running; after
// loadPatience without, it stops the load (stop) and fails t, saying it
// waited for what.
func awaitLoad(t *testing.T, stats *loadStats, what string, cond func(s *loadStats) bool, stop func()) {
	t.Helper()
	giveUp := time.After(loadPatience)
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for !stats.watch(cond) {
		select {
		case <-giveUp:
			stop()
			t.Fatalf("%v without %s (%s)", loadPatience, what, stats)
		case <-poll.C:
		}
	}
}

// verifyLedger is the end of every load and fault run. Once the reaper has
// resolved every attempt left in progress (the server may have crashed or
// failed around any of them), the charges table and the processor's table
// must reconcile exactly; every 201 a client saw must be one row with that id
// (nothing lost) and no key may have two charges (nothing doubled).
func verifyLedger(t *testing.T, st store.Store, proc processor.Processor, cfg Config, stats *loadStats) {
	t.Helper()
	ctx := context.Background()
	drain(t, st, proc, cfg)
	if len(stats.conflicts) > 0 {
		t.Errorf("%d keys answered with two different charges, e.g. %s", len(stats.conflicts), stats.conflicts[0])
	}
	diffs, err := Reconcile(ctx, st, proc)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Errorf("reconcile: %s", d)
	}
	rows, err := st.AllCharges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]store.Charge{}
	for _, c := range rows {
		byKey[c.ProcessorKey] = c
	}
	for key, id := range stats.ids {
		claim, err := st.Get(ctx, store.Scope{Account: acctA, Route: RouteCreateCharge, Key: key})
		if err != nil {
			t.Errorf("key %s was answered 201 with %s and has no claim: %v", key, id, err)
			continue
		}
		if c, ok := byKey[claim.ProcessorKey]; !ok || c.ID != id {
			t.Errorf("lost: key %s was answered 201 with %s, the table has %q", key, id, c.ID)
		}
	}
	if len(rows) > len(stats.sent) {
		t.Errorf("%d charge rows for %d keys sent", len(rows), len(stats.sent))
	}
	recs, _ := proc.Records(ctx)
	t.Logf("ledger: %d keys sent, %d answered 201, %d charge rows, %d processor charges, reconcile clean=%v",
		len(stats.sent), len(stats.ids), len(rows), processor.Succeeded(recs), len(diffs) == 0)
}

// drain runs the reaper until no attempt is left in progress.
func drain(t *testing.T, st store.Store, proc processor.Processor, cfg Config) {
	t.Helper()
	ctx := context.Background()
	m := newMetrics()
	reaper := NewReaper(cfg, st, proc, m, quietLog())
	deadline := time.Now().Add(cfg.StaleAfter + 30*time.Second)
	for {
		left, err := st.Stale(ctx, time.Now().Add(24*time.Hour), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			t.Logf("the reaper resolved %d attempts left in progress", m.Reaped.Load())
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("attempts still in progress after the reaper ran: %+v", left[0].Scope)
		}
		time.Sleep(100 * time.Millisecond)
		if _, err := reaper.RunOnce(ctx); err != nil {
			t.Logf("reaper: %v", err)
		}
	}
}

// processorService runs the processor as its own HTTP service, so its table
// is independent of the server's process and store.
func processorService(t testing.TB) (*processor.Ledger, string) {
	ledger := processor.NewLedger()
	ps := httptest.NewServer(processor.Handler(ledger))
	t.Cleanup(ps.Close)
	return ledger, ps.URL
}

// startOverHTTP starts the server with the processor as an HTTP service of
// its own, so the processor's ledger outlives the server, as in production.
func startOverHTTP(t testing.TB, cfg Config) (*harness, *processor.Client) {
	ledger, purl := processorService(t)
	proc := processor.NewClient(purl, cfg.ProcessorTimeout)
	return startHarness(t, cfg, ledger, proc, quietLog(), realSeams()), proc
}

// TestLoadMix is the bounded load test: 64 connections on loopback until
// -load-requests answers (or for -load-duration) per database, new keys,
// retries and concurrent duplicates mixed; nothing lost, nothing doubled, no
// error.
//
//	go test ./internal/chargeserver -run TestLoadMix -v -load-duration 30s
func TestLoadMix(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		h, proc := startOverHTTP(t, cfg)
		stats := loadUntil(t, newLoadClient(h.url, 64), 64, "load", *loadRequests, *loadDuration)
		t.Logf("%s, 64 connections: %s", t.Name(), stats)
		if stats.failures() > 0 {
			t.Errorf("%d requests failed without any fault injected", stats.failures())
		}
		if stats.statuses[201] == 0 || stats.statuses[409] == 0 {
			t.Errorf("the mix did not exercise both charges and in-flight duplicates: %v", stats.statuses)
		}
		verifyLedger(t, h.store, proc, cfg, stats)
	})
}
