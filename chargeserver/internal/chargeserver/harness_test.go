package chargeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

// Test API keys and their accounts.
const (
	keyA, acctA = "sk_test_a", "acct_a"
	keyB, acctB = "sk_test_b", "acct_b"
)

const okBody = `{"amount_cents": 4000, "currency": "GBP", "card_token": "tok_visa", "description": "tea"}`

func postgresDSN(t testing.TB) string { return testdb.Postgres(t) }

func sqliteDSN(t testing.TB) string { return testdb.SQLite(t) }

// forEachBackend runs f against a fresh SQLite file and a fresh PostgreSQL
// schema.
func forEachBackend(t *testing.T, f func(t *testing.T, database string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, sqliteDSN(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresDSN(t)) })
}

func testConfig(database string) Config {
	cfg := DefaultConfig()
	cfg.Database = database
	cfg.APIKeys = map[string]string{keyA: acctA, keyB: acctB}
	cfg.ProcessorTimeout = 2 * time.Second
	cfg.StaleAfter = 3 * time.Second
	cfg.RateLimit = 0
	return cfg
}

// harness is one server instance on a real database behind real HTTP.
type harness struct {
	url      string
	cfg      Config
	store    store.Store
	ledger   *processor.Ledger
	server   *Server
	contract *contract
	client   *http.Client
}

// newHarness starts a server; ledger may be shared between instances.
func newHarness(t testing.TB, cfg Config, ledger *processor.Ledger) *harness {
	if ledger == nil {
		ledger = processor.NewLedger()
	}
	return startHarness(t, cfg, ledger, ledger, slog.New(slog.NewTextHandler(io.Discard, nil)), realSeams())
}

// startHarness starts a server that calls proc (the ledger itself, or a
// client of it served over HTTP) and logs to log. It serves with the same
// hardened http.Server settings as Run, on the test seams sm.
func startHarness(t testing.TB, cfg Config, ledger *processor.Ledger, proc processor.Processor, log *slog.Logger, sm seams) *harness {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), cfg.Database)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := newServer(cfg, st, proc, log, sm)
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config, hs.Listener = newHTTPServer(srv.Handler(), cfg, hs.Listener)
	hs.Config.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelError)
	hs.Start()
	t.Cleanup(hs.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &harness{url: hs.URL, cfg: cfg, store: st, ledger: ledger, server: srv,
		contract: loadContract(t), client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// reply is one response, already checked against the contract.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) replayed() bool { return r.Header.Get("Idempotent-Replay") == "true" }

func (r reply) code() string {
	var p problem
	_ = json.Unmarshal(r.Body, &p)
	return p.Code
}

func (r reply) charge(t testing.TB) chargeJSON {
	t.Helper()
	var c chargeJSON
	if err := json.Unmarshal(r.Body, &c); err != nil || c.ID == "" {
		t.Fatalf("not a charge (%d): %s", r.Status, r.Body)
	}
	return c
}

// post sends a charge request; idemKey "" sends no header.
func (h *harness) post(t testing.TB, apiKey, idemKey, body string) (reply, error) {
	hdr := http.Header{}
	if idemKey != "" {
		hdr.Set("Idempotency-Key", idemKey)
	}
	return h.do(t, http.MethodPost, "/v1/charges", apiKey, hdr, body)
}

func (h *harness) mustPost(t testing.TB, apiKey, idemKey, body string) reply {
	t.Helper()
	r, err := h.post(t, apiKey, idemKey, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (h *harness) get(t testing.TB, apiKey, path string) reply {
	t.Helper()
	r, err := h.do(t, http.MethodGet, path, apiKey, http.Header{}, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// do sends a request and validates the response against the server's own
// OpenAPI document; a mismatch fails the test.
func (h *harness) do(t testing.TB, method, path, apiKey string, hdr http.Header, body string) (reply, error) {
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header = hdr
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	h.contract.check(t, req, resp.StatusCode, resp.Header, b)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// contract validates responses with kin-openapi against api/openapi.yaml.
type contract struct {
	router routers.Router
}

// loadContract is openapi.yaml, loaded, validated and routed once per test
// process (sharedContract): every harness checks its answers against the
// same document, which nothing changes after loading.
func loadContract(t testing.TB) *contract {
	t.Helper()
	c, err := sharedContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var sharedContract = sync.OnceValues(func() (*contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("loading openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi.yaml is invalid: %w", err)
	}
	doc.Servers = nil // match any host: the tests listen on random ports
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &contract{router: router}, nil
})

func (c *contract) check(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	if err := c.validate(req, status, header, body); err != nil {
		t.Errorf("%s %s -> %d does not match the contract: %v\nbody: %s", req.Method, req.URL.Path, status, err, body)
	}
}

func (c *contract) validate(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		return err
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	in.SetBodyBytes(bytes.Clone(body))
	return openapi3filter.ValidateResponse(context.Background(), in)
}

// countCharges counts rows in the charges table.
func countCharges(t testing.TB, st store.Store) int {
	t.Helper()
	cs, err := st.AllCharges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

func processorCharges(t testing.TB, l *processor.Ledger) int {
	t.Helper()
	recs, _ := l.Records(context.Background())
	return processor.Succeeded(recs)
}

func newClientWithTimeout(d time.Duration) *http.Client {
	return &http.Client{Timeout: d}
}
