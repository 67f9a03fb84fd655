package chargeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// TestProbeDelayHoldsTheClaim: with AllowProbeDelay a request asking for
// X-Probe-Delay is held after its claim and echoes the header, so a retry
// meanwhile gets 409 + Retry-After and the one after it the replay; without
// the switch the header is ignored and not echoed.
func TestProbeDelayHoldsTheClaim(t *testing.T) {
	t.Parallel() // it waits more than it computes (servers starting, leases running out)
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		cfg.AllowProbeDelay = true
		h := newHarness(t, cfg, nil)
		slow := http.Header{"Idempotency-Key": {"held"}, probeDelayHeader: {"800ms"}}
		done := make(chan reply, 1)
		start := time.Now()
		go func() {
			r, err := h.do(t, http.MethodPost, "/v1/charges", keyA, slow, okBody)
			if err != nil {
				t.Error(err)
			}
			done <- r
		}()
		time.Sleep(200 * time.Millisecond)
		during := h.mustPost(t, keyA, "held", okBody)
		first := <-done
		if held := time.Since(start); held < 800*time.Millisecond {
			t.Fatalf("the request was held %s, asked 800ms", held)
		}
		after := h.mustPost(t, keyA, "held", okBody)
		if first.Status != 201 || first.Header.Get(probeDelayHeader) != "800ms" {
			t.Fatalf("held request: %d, echo %q", first.Status, first.Header.Get(probeDelayHeader))
		}
		if during.Status != 409 || during.Header.Get("Retry-After") == "" {
			t.Fatalf("retry while held: %d %v", during.Status, during.Header)
		}
		if after.Status != 201 || !after.replayed() || after.charge(t).ID != first.charge(t).ID {
			t.Fatalf("retry after: %d replay=%v", after.Status, after.replayed())
		}
		if processorCharges(t, h.ledger) != 1 {
			t.Fatal("charged more than once")
		}

		// A request for more than the cap is held only up to it.
		capped := h.do2(t, keyA, http.Header{"Idempotency-Key": {"capped"}, probeDelayHeader: {"1h"}})
		if d, err := time.ParseDuration(capped.Header.Get(probeDelayHeader)); err != nil || d > maxProbeDelay || d > cfg.StaleAfter-cfg.ProcessorTimeout {
			t.Fatalf("1h was not capped: echo %q", capped.Header.Get(probeDelayHeader))
		}
	})
	t.Run("off", func(t *testing.T) {
		h := newHarness(t, testConfig(sqliteDSN(t)), nil)
		// The server echoes the header exactly when it holds the request
		// (server.go), so its absence says the delay was ignored.
		r := h.do2(t, keyA, http.Header{"Idempotency-Key": {"ignored"}, probeDelayHeader: {"2s"}})
		if r.Status != 201 || r.Header.Get(probeDelayHeader) != "" {
			t.Fatalf("without the switch the delay was honoured: %d echo %q", r.Status, r.Header.Get(probeDelayHeader))
		}
	})
}

// do2 posts okBody with hdr.
func (h *harness) do2(t testing.TB, apiKey string, hdr http.Header) reply {
	t.Helper()
	r, err := h.do(t, http.MethodPost, "/v1/charges", apiKey, hdr, okBody)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSlowlorisCutOff: a client that sends its headers a byte at a time is
// disconnected once the read-header timeout passes, instead of holding a
// connection (and a goroutine) for as long as it likes.
func TestSlowlorisCutOff(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.ReadHeaderTimeout = 300 * time.Millisecond
	h := newHarness(t, cfg, nil)
	u, _ := url.Parse(h.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() {
		// Never finishes the headers: 10 s of bytes, one every 20 ms.
		msg := "POST /v1/charges HTTP/1.1\r\nHost: x\r\nX-Slow: " + strings.Repeat("a", 500)
		for i := range len(msg) {
			if _, err := conn.Write([]byte{msg[i]}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// Cut off, the read ends at the server's close; not cut off, it ends at
	// the 5s deadline with a timeout (the client writes for 10s).
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the slow client was still connected after 5s")
	}
}

// TestOversizedHeaders: headers beyond the limit are answered 431 before any
// handler runs.
func TestOversizedHeaders(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	req, _ := http.NewRequest(http.MethodPost, h.url+"/v1/charges", strings.NewReader(okBody))
	req.Header.Set("Authorization", "Bearer "+keyA)
	req.Header.Set("Idempotency-Key", "big")
	req.Header.Set("X-Padding", strings.Repeat("a", 2*maxHeaderBytes))
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("got %d, want 431", resp.StatusCode)
	}
	if h.ledger.Calls() != 0 {
		t.Fatal("an oversized request reached the processor")
	}
}

// sqlPayloads are SQL metacharacters and injection attempts.
var sqlPayloads = []string{
	`'; DROP TABLE charges; --`,
	`" OR "1"="1`,
	`x' OR '1'='1' /*`,
	`$1; DELETE FROM idempotency_keys WHERE true; --`,
	`\'; TRUNCATE charges; \`,
	`%_?*;`,
}

// TestSQLMetacharactersAreData: SQL in every string field (description,
// card token, idempotency key, API key and the account it maps to) is stored
// and returned verbatim or rejected, never executed; a currency that is SQL is
// rejected by the allow-list. Every statement is parameterised, so the tables
// are intact afterwards.
func TestSQLMetacharactersAreData(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		cfg := testConfig(db)
		evilKey, evilAcct := `sk_'; DROP TABLE charges; --`, `acct_'); DELETE FROM charges; --`
		cfg.APIKeys[evilKey] = evilAcct
		h := newHarness(t, cfg, nil)
		var ids []string
		for i, p := range sqlPayloads {
			body, _ := json.Marshal(map[string]any{"amount_cents": 100 + i, "currency": "GBP", "card_token": "tok_" + p, "description": p})
			for _, apiKey := range []string{keyA, evilKey} {
				r := h.mustPost(t, apiKey, p, string(body))
				if r.Status != 201 {
					t.Fatalf("payload %q: %d %s", p, r.Status, r.Body)
				}
				c := r.charge(t)
				if c.Description != p {
					t.Fatalf("description came back as %q, sent %q", c.Description, p)
				}
				if got := h.get(t, apiKey, "/v1/charges/"+url.PathEscape(c.ID)); got.charge(t).Description != p {
					t.Fatalf("GET returned %q", got.charge(t).Description)
				}
				if again := h.mustPost(t, apiKey, p, string(body)); !again.replayed() || again.charge(t).ID != c.ID {
					t.Fatalf("the key %q did not replay: %d", p, again.Status)
				}
				ids = append(ids, c.ID)
			}
		}
		rec, err := h.store.Get(context.Background(), store.Scope{Account: evilAcct, Route: RouteCreateCharge, Key: sqlPayloads[0]})
		if err != nil || rec.Key != sqlPayloads[0] || rec.Account != evilAcct {
			t.Fatalf("the claim was not stored verbatim: %+v %v", rec.Scope, err)
		}
		bad := h.mustPost(t, keyA, "cur", `{"amount_cents": 1, "currency": "GBP'; DROP TABLE charges; --", "card_token": "t"}`)
		if bad.Status != 400 || bad.code() != "unsupported_currency" {
			t.Fatalf("SQL as a currency: %d %s", bad.Status, bad.Body)
		}
		nul := h.mustPost(t, keyA, "nul", `{"amount_cents": 1, "currency": "GBP", "card_token": "t", "description": "a\u0000b"}`)
		if nul.Status != 400 {
			t.Fatalf("a NUL in the description, which PostgreSQL cannot store: %d", nul.Status)
		}
		cs, err := h.store.AllCharges(context.Background())
		if err != nil || len(cs) != len(ids) {
			t.Fatalf("charges table after the payloads: %d rows (want %d), %v", len(cs), len(ids), err)
		}
		if list := h.get(t, evilKey, "/v1/charges?limit=100"); strings.Count(string(list.Body), `"id"`) != len(sqlPayloads) {
			t.Fatalf("the SQL account sees the wrong charges: %s", list.Body)
		}
	})
}

// syncBuffer is a log sink several goroutines write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSecretsNeverLogged captures everything the server, the HTTP server and
// the reaper log at debug level through successes, replays, key reuse, a
// decline, bad input, a wrong API key and an ambiguous processor failure
// resolved by the reaper, and checks that no API key, idempotency key, card
// token or body appears in it.
func TestSecretsNeverLogged(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		const (
			apiKey  = "sk_live_SECRET_api_key_4242"
			idemKey = "idem-SECRET-key-9f8e7d"
			card    = "tok_SECRET_card_1234"
			desc    = "desc SECRET body 5678"
		)
		var logs syncBuffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		cfg := testConfig(db)
		cfg.APIKeys[apiKey] = "acct_secret"
		ledger := processor.NewLedger()
		h := startHarness(t, cfg, ledger, ledger, log, realSeams())
		body := `{"amount_cents": 4000, "currency": "GBP", "card_token": "` + card + `", "description": "` + desc + `"}`
		h.mustPost(t, apiKey, idemKey, body)
		h.mustPost(t, apiKey, idemKey, body)
		h.mustPost(t, apiKey, idemKey, strings.Replace(body, "4000", "4001", 1))
		h.mustPost(t, apiKey, idemKey+"-decline", strings.Replace(body, card, processor.DeclineToken, 1))
		h.mustPost(t, apiKey, idemKey+"-bad", body+`{"`+desc+`"`)
		h.mustPost(t, apiKey+"x", idemKey+"-wrong", body)
		ledger.SetFaults(processor.Faults{FailAfter: 1})
		if r := h.mustPost(t, apiKey, idemKey+"-amb", body); r.Status != 503 {
			t.Fatalf("ambiguous failure: %d", r.Status)
		}
		if n, err := NewReaper(cfg, h.store, ledger, nil, log).RunOnce(context.Background()); n != 1 || err != nil {
			t.Fatalf("reaper: %d %v", n, err)
		}
		out := logs.String()
		if !strings.Contains(out, "msg=charge") || !strings.Contains(out, "reaper: resolved") || !strings.Contains(out, "charge not completed") {
			t.Fatalf("the run logged too little to prove anything:\n%s", out)
		}
		for _, secret := range []string{apiKey, idemKey, card, desc, "SECRET"} {
			if strings.Contains(out, secret) {
				t.Errorf("the log contains %q:\n%s", secret, out)
			}
		}
		if m := h.get(t, "", "/metrics"); strings.Contains(string(m.Body), "SECRET") {
			t.Errorf("/metrics shows a secret:\n%s", m.Body)
		}
	})
}

// TestAccountsNeverSeeEachOther: account B cannot read A's charge by id, does
// not find it in its list, and posting A's key with A's body gets B its own
// new charge, never A's stored answer.
func TestAccountsNeverSeeEachOther(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		h := newHarness(t, testConfig(db), nil)
		a := h.mustPost(t, keyA, "mine", okBody).charge(t)
		if r := h.get(t, keyB, "/v1/charges/"+a.ID); r.Status != 404 || strings.Contains(string(r.Body), a.ID) {
			t.Fatalf("B read A's charge: %d %s", r.Status, r.Body)
		}
		if r := h.get(t, keyB, "/v1/charges?limit=100"); strings.Contains(string(r.Body), a.ID) {
			t.Fatalf("B's list shows A's charge: %s", r.Body)
		}
		b := h.mustPost(t, keyB, "mine", okBody)
		if b.replayed() || b.charge(t).ID == a.ID {
			t.Fatalf("B was replayed A's answer: %s", b.Body)
		}
		if r := h.get(t, keyA, "/v1/charges/"+b.charge(t).ID); r.Status != 404 {
			t.Fatalf("A read B's charge: %d", r.Status)
		}
	})
}
