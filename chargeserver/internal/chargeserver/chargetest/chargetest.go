// Package chargetest starts the reference charge server for the tests of
// the tools that talk to it (probe, replay, the CLI): in-process, on a fresh
// SQLite file, behind real HTTP, with no rate limit.
package chargetest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

// Start serves the charge server until the test ends and returns its base
// URL ("http://127.0.0.1:PORT") and its processor. apiKeys maps each API key
// to its account.
func Start(t testing.TB, apiKeys map[string]string) (string, *processor.Ledger) {
	t.Helper()
	base, ledger, _ := start(t, apiKeys, "")
	return base, ledger
}

// StartTraced is Start with every request's span appended to traceFile as
// OTLP JSON (the server's --trace-file). flush stops the server and writes
// the spans still batched; call it before reading the file. The test's end
// flushes too.
func StartTraced(t testing.TB, apiKeys map[string]string, traceFile string) (base string, flush func()) {
	t.Helper()
	base, _, flush = start(t, apiKeys, traceFile)
	return base, flush
}

func start(t testing.TB, apiKeys map[string]string, traceFile string) (string, *processor.Ledger, func()) {
	t.Helper()
	cfg := chargeserver.DefaultConfig()
	cfg.Database = testdb.SQLite(t)
	cfg.APIKeys = apiKeys
	cfg.RateLimit = 0
	cfg.TraceFile = traceFile
	st, err := store.Open(context.Background(), cfg.Database)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledger := processor.NewLedger()
	srv := chargeserver.New(cfg, st, ledger, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h, shutdown, err := chargeserver.Traced(cfg, srv.Handler())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(h)
	hs.Config.Protocols = H2C()
	hs.Start()
	var once sync.Once
	flush := func() {
		once.Do(func() {
			// A span ends after its answer is sent: only once the server
			// has finished every request are all of them ended.
			hs.Close()
			if err := shutdown(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(flush)
	return hs.URL, ledger, flush
}

// H2C is HTTP/1 and HTTP/2 without TLS, as the charge server serves: what
// gRPC clients need on a plain port.
func H2C() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}
