package chargeserver

import (
	"context"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// faultConfig makes leases short so recovery fits in a test.
func faultConfig(db string) Config {
	cfg := testConfig(db)
	cfg.ProcessorTimeout, cfg.StaleAfter = 300*time.Millisecond, time.Second
	return cfg
}

// faultRun drives 16 clients through three phases, healthy, faulty (inject
// runs at its start, heal at its end) and healthy again; then, as a client
// would, retries every key that never got its 201, and checks the ledger.
// Each phase ends on what the clients saw, not after a time, so a loaded
// machine cannot end the fault before it bit: 50 answers before it, 40
// failed requests under it (or the test fails: the fault proved nothing),
// 50 charges after it.
func faultRun(t *testing.T, c *loadClient, st store.Store, proc processor.Processor, cfg Config, inject, heal func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stats := newLoadStats()
	done := make(chan struct{})
	go func() { mixLoadInto(ctx, c, 16, "fault", stats); close(done) }()
	stop := func() { cancel(); <-done }
	phase := func(what string, until func(s *loadStats) bool) {
		t.Helper()
		awaitLoad(t, stats, what, until, stop)
	}
	phase("50 answers before the fault", func(s *loadStats) bool { return s.total() >= 50 })
	inject()
	phase("a request failing under the fault: it proved nothing", func(s *loadStats) bool { return s.failures() >= 40 })
	heal()
	var charged int
	stats.watch(func(s *loadStats) bool { charged = s.statuses[201]; return true })
	phase("50 charges after the fault", func(s *loadStats) bool { return s.statuses[201] >= charged+50 })
	cancel()
	<-done
	t.Logf("%s under load: %s", t.Name(), stats)
	recoverAndVerify(t, c, st, proc, cfg, stats)
}

// recoverAndVerify lets the reaper resolve what the fault left in progress,
// retries the keys the clients never got an answer for (each must now be a
// 201: replayed if it was charged, charged now if it never was), and checks
// that the ledger reconciles.
func recoverAndVerify(t *testing.T, c *loadClient, st store.Store, proc processor.Processor, cfg Config, stats *loadStats) {
	t.Helper()
	drain(t, st, proc, cfg)
	var unanswered []string
	for key := range stats.sent {
		if _, ok := stats.ids[key]; !ok {
			unanswered = append(unanswered, key)
		}
	}
	// A sample of answered keys too: their retry must replay the same charge.
	answered := 0
	for key := range stats.ids {
		if answered++; answered > 200 {
			break
		}
		unanswered = append(unanswered, key)
	}
	for _, key := range unanswered {
		status, id, err := c.post(key)
		stats.record(key, status, id, err, 0)
		if err != nil || status != 201 {
			t.Errorf("retry of %s after recovery: %d %v", key, status, err)
		}
	}
	verifyLedger(t, st, proc, cfg, stats)
}

// TestFaultProcessorTimeouts: the processor answers slower than the server
// waits, so attempts time out (503, lease released); after it recovers the
// reaper and the clients' retries settle every key exactly once.
func TestFaultProcessorTimeouts(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := faultConfig(db)
		h, proc := startOverHTTP(t, cfg)
		set := func(f processor.Faults) {
			if err := proc.SetFaults(context.Background(), f); err != nil {
				t.Error(err)
			}
		}
		faultRun(t, newLoadClient(h.url, 16), h.store, proc, cfg,
			func() { set(processor.Faults{Latency: 3 * cfg.ProcessorTimeout}) },
			func() { set(processor.Faults{}) })
	})
}

// TestFaultProcessor5xx: the processor answers 503, both before charging and
// after (the ambiguous case: the charge happened, the server cannot know).
func TestFaultProcessor5xx(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := faultConfig(db)
		h, proc := startOverHTTP(t, cfg)
		faultRun(t, newLoadClient(h.url, 16), h.store, proc, cfg,
			func() { h.ledger.SetFaults(processor.Faults{FailBefore: 40, FailAfter: 40}) },
			func() { h.ledger.SetFaults(processor.Faults{}) })
	})
}

// TestFaultPostgresConnectionsKilled terminates the server's PostgreSQL
// backends every 100 ms while requests are in flight: claims, records and
// reads die mid-statement. Only this server's backends are killed (matched by
// application_name), so other tests on the database are left alone.
func TestFaultPostgresConnectionsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	postgresConnectionsKilled(t, newLoadClient)
}

// postgresConnectionsKilled is TestFaultPostgresConnectionsKilled with
// clients made by newClient (over HTTP or gRPC).
func postgresConnectionsKilled(t *testing.T, newClient func(url string, conns int) *loadClient) {
	base := postgresDSN(t)
	app := fmt.Sprintf("chargeserver_fault_%d", time.Now().UnixNano())
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	cfg := faultConfig(u.String())
	h, proc := startOverHTTP(t, cfg)
	var killed atomic.Int64
	stop := make(chan struct{})
	stopped := make(chan struct{})
	inject := func() {
		go func() {
			defer close(stopped)
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
					killed.Add(terminateBackends(t, base, app))
				}
			}
		}()
	}
	heal := func() { close(stop); <-stopped }
	faultRun(t, newClient(h.url, 16), h.store, proc, cfg, inject, heal)
	t.Logf("terminated %d backends", killed.Load())
}

// terminateBackends kills every backend of the application app.
func terminateBackends(t *testing.T, dsn, app string) int64 {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()`, app).Scan(&n)
	if err != nil {
		t.Error(err)
	}
	return n
}

// TestFaultSQLiteDiskFull caps the SQLite file at its current size while
// requests are in flight, so writes fail with SQLITE_FULL ("database or disk
// is full") wherever they happen to be: claims, and records of charges the
// processor already made. Tests run as root, where a read-only file does not
// stop writes; the page cap does, on the very connection the server writes
// with.
func TestFaultSQLiteDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	sqliteDiskFull(t, newLoadClient)
}

// sqliteDiskFull is TestFaultSQLiteDiskFull with clients made by newClient.
func sqliteDiskFull(t *testing.T, newClient func(url string, conns int) *loadClient) {
	cfg := faultConfig(sqliteDSN(t))
	h, proc := startOverHTTP(t, cfg)
	lite := h.store.(*store.SQLite)
	limit := func(extra int) func() {
		return func() {
			if err := lite.LimitPages(context.Background(), extra); err != nil {
				t.Error(err)
			}
		}
	}
	faultRun(t, newClient(h.url, 16), h.store, proc, cfg, limit(0), limit(-1))
}

// TestFaultSIGKILLDuringLoad kills the server process (SIGKILL: no shutdown
// runs) while 16 clients load it, restarts it on the same database, and lets
// its reaper and the clients' retries settle everything: every charge the
// processor made has its row, every retry gets the original answer.
func TestFaultSIGKILLDuringLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) { sigkillDuringLoad(t, db, newLoadClient) })
}

// killAfter is how many answers the load gets before the SIGKILL.
const killAfter = 300

// sigkillDuringLoad is TestFaultSIGKILLDuringLoad on db, its clients made
// by newClient (over HTTP or gRPC).
func sigkillDuringLoad(t *testing.T, db string, newClient func(url string, conns int) *loadClient) {
	_, purl := processorService(t)
	proc := processor.NewClient(purl, time.Second)
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	first := startChild(t, db, purl, false)
	c := newClient(first.url, 16)
	ctx, cancel := context.WithCancel(context.Background())
	stats := newLoadStats()
	done := make(chan struct{})
	go func() { mixLoadInto(ctx, c, 16, "kill", stats); close(done) }()
	// The kill comes once the load is up: 16 clients always have requests
	// in flight, so it cuts some off whenever it lands.
	awaitLoad(t, stats, fmt.Sprintf("%d answers before the kill", killAfter),
		func(s *loadStats) bool { return s.total() >= killAfter }, func() { cancel(); <-done })
	first.kill()
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-done
	t.Logf("%s until the kill: %s", t.Name(), stats)
	if stats.transport == 0 {
		t.Fatal("no request was cut off by the kill")
	}
	second := startChild(t, db, purl, false)
	c.url = second.url
	// The child's settings: its reaper runs beside ours, safely, as the
	// takeover is a conditional update.
	cfg := DefaultConfig()
	cfg.ProcessorTimeout, cfg.StaleAfter = 500*time.Millisecond, time.Second
	recoverAndVerify(t, c, st, proc, cfg, stats)
}
