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
	cfg := chargeserver.DefaultConfig()
	cfg.Database = testdb.SQLite(t)
	cfg.APIKeys = apiKeys
	cfg.RateLimit = 0
	st, err := store.Open(context.Background(), cfg.Database)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledger := processor.NewLedger()
	srv := chargeserver.New(cfg, st, ledger, slog.New(slog.NewTextHandler(io.Discard, nil)))
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.Protocols = H2C()
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.URL, ledger
}

// H2C is HTTP/1 and HTTP/2 without TLS, as the charge server serves: what
// gRPC clients need on a plain port.
func H2C() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}
