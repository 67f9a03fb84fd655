package chargeserver

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

// Environment of the child server process the crash test starts by
// re-executing the test binary.
const (
	envChild     = "CHARGESERVER_TEST_CHILD"
	envDB        = "CHARGESERVER_TEST_DATABASE"
	envProcessor = "CHARGESERVER_TEST_PROCESSOR"
	envAddr      = "CHARGESERVER_TEST_ADDR"
	// envRetention sets --retention (and a quarter of it as
	// --max-clock-skew, with a fast pruner), so a test can watch keys pruned.
	envRetention = "CHARGESERVER_TEST_RETENTION"
	// envProcessorTimeout sets --processor-timeout (and twice it as
	// --stale-after) for tests that race requests rather than time them
	// out: the crash tests' half second is what a processor call under
	// -race on a loaded machine can take, and a timeout there answers 503.
	envProcessorTimeout = "CHARGESERVER_TEST_PROCESSOR_TIMEOUT"
	// envCrash enables the crash-after-charge hook; nothing else sets it.
	envCrash    = "CHARGESERVER_TEST_CRASH_AFTER_CHARGE"
	crashMarker = "crash-window reached"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(runChild())
	}
	code := m.Run()
	testdb.RemoveTemplate() // the failover tests' cluster, copied per pair
	os.Exit(code)
}

// runChild is the server process the crash test kills: a real server on the
// real database, with the crash hook when asked.
func runChild() int {
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	if a := os.Getenv(envAddr); a != "" {
		cfg.Addr = a // a restarted server comes back where its clients look
	}
	cfg.Database = os.Getenv(envDB)
	cfg.ProcessorURL = os.Getenv(envProcessor)
	cfg.APIKeys = map[string]string{keyA: acctA, keyB: acctB}
	cfg.ProcessorTimeout, cfg.StaleAfter, cfg.ReapInterval = 500*time.Millisecond, time.Second, 100*time.Millisecond
	if d, err := time.ParseDuration(os.Getenv(envProcessorTimeout)); err == nil {
		cfg.ProcessorTimeout, cfg.StaleAfter = d, 2*d
	}
	if d, err := time.ParseDuration(os.Getenv(envRetention)); err == nil {
		cfg.Retention, cfg.MaxClockSkew, cfg.PruneInterval = d, d/4, 100*time.Millisecond
	}
	sm := realSeams()
	if os.Getenv(envCrash) == "1" {
		sm.afterCharge = func() {
			// Announce the window and wait here for the parent's SIGKILL.
			fmt.Println(crashMarker)
			time.Sleep(time.Hour)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), sm); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// child is a running server process.
type child struct {
	cmd   *exec.Cmd
	lines chan string
	url   string
}

func startChild(t *testing.T, db, processorURL string, crash bool) *child {
	t.Helper()
	return startChildAt(t, "", db, processorURL, crash)
}

// startChildAt starts the child listening on addr ("" for any port).
func startChildAt(t *testing.T, addr, db, processorURL string, crash bool, env ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", envDB+"="+db, envProcessor+"="+processorURL, envAddr+"="+addr)
	if crash {
		cmd.Env = append(cmd.Env, envCrash+"=1")
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 16)}
	t.Cleanup(func() { c.kill() })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	line := c.waitLine(t, "listening on ")
	c.url = line[strings.Index(line, "http://"):]
	return c
}

func (c *child) waitLine(t *testing.T, substr string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("child exited before printing %q", substr)
			}
			if strings.Contains(l, substr) {
				return l
			}
		case <-timeout:
			t.Fatalf("child did not print %q", substr)
		}
	}
}

// kill sends SIGKILL: no deferred function, no shutdown hook runs.
func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		_ = c.cmd.Wait()
	}
}

// TestCrashAfterChargeRecoveredByReaper kills the server between the
// processor's charge and the record of it. After a restart the reaper asks
// the processor again with the same key, records the one charge, and the
// client's retry gets the original answer.
func TestCrashAfterChargeRecoveredByReaper(t *testing.T) {
	t.Parallel() // it waits more than it computes (servers starting, leases running out)
	forEachBackend(t, func(t *testing.T, db string) {
		ledger := processor.NewLedger()
		ps := httptest.NewServer(processor.Handler(ledger))
		defer ps.Close()
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		first := startChild(t, db, ps.URL, true)
		h := &harness{url: first.url, store: st, ledger: ledger, contract: loadContract(t), client: newClientWithTimeout(20 * time.Second)}
		errc := make(chan error, 1)
		go func() {
			_, err := h.post(t, keyA, "crash", okBody)
			errc <- err
		}()
		first.waitLine(t, crashMarker)
		first.kill()
		if err := <-errc; err == nil {
			t.Fatal("the client got an answer from a killed server")
		}
		scope := store.Scope{Account: acctA, Route: RouteCreateCharge, Key: "crash"}
		if rec, err := st.Get(context.Background(), scope); err != nil || rec.Status != store.StatusInProgress || countCharges(t, st) != 0 || processorCharges(t, ledger) != 1 {
			t.Fatalf("not in the crash window: claim %q %v, rows %d, processor %d", rec.Status, err, countCharges(t, st), processorCharges(t, ledger))
		}

		second := startChild(t, db, ps.URL, false)
		waitFor(t, 15*time.Second, func() bool {
			rec, err := st.Get(context.Background(), scope)
			return err == nil && rec.Status == store.StatusCompleted
		})
		h.url = second.url
		r := h.mustPost(t, keyA, "crash", okBody)
		recs, _ := ledger.Records(context.Background())
		if r.Status != 201 || !r.replayed() || len(recs) != 1 || r.charge(t).ID != recs[0].ID {
			t.Fatalf("retry after recovery: %d replay=%v %s; processor %+v", r.Status, r.replayed(), r.Body, recs)
		}
		if n := countCharges(t, st); n != 1 {
			t.Fatalf("%d charge rows, want 1", n)
		}
		// The restarted server's reaper resolved it; it counts a claim just
		// after storing its answer, so allow it that moment.
		waitFor(t, 5*time.Second, func() bool {
			return strings.Contains(string(h.get(t, "", "/metrics").Body), "chargeserver_reaped_total 1\n")
		})
		if diffs, err := Reconcile(context.Background(), st, ledger); err != nil || len(diffs) != 0 {
			t.Fatalf("reconcile: %v %v", diffs, err)
		}
	})
}

// twoProcessDatabase is what the two-process tests share: a PostgreSQL store
// and a processor service with a little latency, so duplicates overlap. All
// are closed when the test ends.
func twoProcessDatabase(t *testing.T) (db, processorURL string, ledger *processor.Ledger, st store.Store) {
	db = postgresDSN(t)
	ledger = processor.NewLedger()
	ledger.SetFaults(processor.Faults{Latency: 20 * time.Millisecond})
	ps := httptest.NewServer(processor.Handler(ledger))
	t.Cleanup(ps.Close)
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return db, ps.URL, ledger, st
}

// patientProcessor is the environment of a child server in the two-process
// races: they prove one charge across processes, not what a timeout does.
const patientProcessor = envProcessorTimeout + "=30s"

// TestTwoServerProcessesOnePostgres races 50 identical requests across two
// server processes sharing one database and one processor service.
func TestTwoServerProcessesOnePostgres(t *testing.T) {
	db, psURL, ledger, st := twoProcessDatabase(t)
	var hs []*harness
	for range 2 {
		c := startChildAt(t, "", db, psURL, false, patientProcessor)
		hs = append(hs, &harness{url: c.url, store: st, ledger: ledger, contract: loadContract(t), client: newClientWithTimeout(20 * time.Second)})
	}
	race(t, hs, 50)
	if n := countCharges(t, st); n != 1 {
		t.Fatalf("%d charge rows, want 1", n)
	}
}
