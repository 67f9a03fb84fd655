package replay

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// shopServer serves the shop contract's paths: it knows one order, o_42,
// which creating an order returns, and records what it was sent.
type shopServer struct {
	mu   sync.Mutex
	seen []string // "METHOD path key"
	// listStatus is what GET /orders answers, with pageCount (if set) as
	// its X-Page-Count header.
	listStatus int
	pageCount  string
	// hangUpOnDelete closes the connection instead of answering a DELETE.
	hangUpOnDelete bool
}

// requests is what the server was sent so far.
func (s *shopServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *shopServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Idempotency-Key"))
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id": "o_42"}`))
	case r.URL.Path == "/orders":
		if s.pageCount != "" {
			w.Header().Set("X-Page-Count", s.pageCount)
		}
		w.WriteHeader(s.listStatus)
	case r.URL.Path != "/orders/o_42":
		http.NotFound(w, r)
	case r.Method == http.MethodDelete && s.hangUpOnDelete:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// startShop starts a shop server, set up by configure before it serves.
func startShop(t *testing.T, configure ...func(*shopServer)) (*shopServer, *url.URL) {
	t.Helper()
	s := &shopServer{listStatus: http.StatusOK}
	for _, f := range configure {
		f(s)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	u, _ := url.Parse(hs.URL)
	return s, u
}

func runShop(t *testing.T, u *url.URL, c Config) *Report {
	t.Helper()
	doc := loadText(t, shop)
	c.Base = u
	if c.MaxRequests == 0 {
		c.MaxRequests = 100
	}
	if c.MaxTime == 0 {
		c.MaxTime = time.Minute
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return Run(context.Background(), doc, NewPlan(doc, Options{SideEffects: true}), &c)
}

// TestRunFeedsAndKeys: each POST carries its own fresh Idempotency-Key,
// nothing else carries one, and the id the create returned is the one every
// later request on the order uses (not the example's, not a made-up one).
func TestRunFeedsAndKeys(t *testing.T) {
	s, u := startShop(t)
	rep := runShop(t, u, Config{})
	if fs := rep.Findings(rules.Default()); len(fs) != 1 || fs[0].Rule != rules.ReplayNotSent {
		t.Errorf("want only the upload not sent, got %v", fs)
	}
	keys := map[string]bool{}
	for _, line := range s.requests() {
		f := strings.Fields(line)
		switch {
		case f[0] == http.MethodPost && len(f) == 3 && !keys[f[2]]:
			keys[f[2]] = true
		case f[0] == http.MethodPost:
			t.Errorf("a POST without a fresh key: %q", line)
		case len(f) != 2:
			t.Errorf("a key on %q", line)
		}
		if strings.HasPrefix(f[1], "/orders/") && f[1] != "/orders/o_42" {
			t.Errorf("%s: not the id the create returned", line)
		}
	}
	if rep.Sent != len(s.requests()) || rep.Sent != 9 {
		t.Errorf("sent %d, the server saw %d, want 9", rep.Sent, len(s.requests()))
	}
}

// TestRunStatusUndocumented: an answer whose status the operation does not
// list is reported at the operation's responses.
func TestRunStatusUndocumented(t *testing.T) {
	_, u := startShop(t, func(s *shopServer) { s.listStatus = http.StatusTeapot })
	var got []rules.Finding
	for _, f := range runShop(t, u, Config{}).Findings(rules.Default()) {
		if f.Rule == rules.ReplayStatusUndocumented {
			got = append(got, f)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0].Message, "GET /orders (required fields) was answered 418") ||
		got[0].Where.Line != 27 {
		t.Fatalf("want one finding for 418 at the responses of listOrders (line 27), got %v", got)
	}
}

// TestRunRequestCap: the cap stops the run; what it left out is reported.
func TestRunRequestCap(t *testing.T) {
	s, u := startShop(t)
	rep := runShop(t, u, Config{MaxRequests: 3})
	if rep.Sent != 3 || len(s.requests()) != 3 {
		t.Errorf("sent %d, the server saw %d, want 3", rep.Sent, len(s.requests()))
	}
	n := 0
	for _, f := range rep.Findings(rules.Default()) {
		if f.Rule == rules.ReplayNotSent && strings.Contains(f.Message, "--max-requests 3") {
			n++
		}
	}
	// Both creates and the first replace went out; the rest of putOrder,
	// listOrders, getOrder and deleteOrder did not: one finding each.
	if n != 4 {
		t.Errorf("%d operations reported as cut by the cap, want 4", n)
	}
}

// TestRunTimeCap: at one request every 5 seconds, a 1-second cap lets
// exactly the first request out.
func TestRunTimeCap(t *testing.T) {
	s, u := startShop(t)
	rep := runShop(t, u, Config{MaxTime: time.Second, Rate: 0.2})
	if rep.Sent != 1 || len(s.requests()) != 1 {
		t.Errorf("sent %d, the server saw %d, want 1", rep.Sent, len(s.requests()))
	}
	if len(rep.NotSent) == 0 || !strings.Contains(rep.NotSent[len(rep.NotSent)-1].Reason, "--max-time 1s") {
		t.Errorf("the time cap is not reported: %v", rep.NotSent)
	}
}

// TestRunRate: 9 requests at 40 a second wait 8 intervals of 25 ms, counted
// on a clock the test keeps, so a slow machine changes nothing.
func TestRunRate(t *testing.T) {
	_, u := startShop(t)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var waited time.Duration
	c := Config{Rate: 40, now: func() time.Time { return clock },
		after: func(d time.Duration) <-chan time.Time {
			waited += d
			clock = clock.Add(d)
			ch := make(chan time.Time, 1)
			ch <- clock
			return ch
		}}
	rep := runShop(t, u, c)
	if want := 8 * 25 * time.Millisecond; rep.Sent != 9 || waited != want {
		t.Errorf("sent %d after waiting %s, want 9 after %s", rep.Sent, waited, want)
	}
}

// TestRunUnreachable: nothing listening ends the run at the first request.
func TestRunUnreachable(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	dead, _ := url.Parse(hs.URL)
	hs.Close()
	rep := runShop(t, dead, Config{})
	if rep.Unreachable == nil || rep.Sent != 1 {
		t.Errorf("unreachable %v after %d requests, want an error after 1", rep.Unreachable, rep.Sent)
	}
}

// TestRunHeaders: a response header the contract requires and the server
// does not send, or sends with a value its schema rejects, is reported at
// the header, named in the message.
func TestRunHeaders(t *testing.T) {
	contract := strings.Replace(shop, "      responses: {'200': {description: a page}}",
		"      responses:\n        '200':\n          description: a page\n          headers:\n"+
			"            X-Page-Count: {required: true, schema: {type: integer}}\n", 1)
	doc := loadText(t, contract)
	for sent, want := range map[string]string{
		"":     `header X-Page-Count does not match the contract: response header "X-Page-Count" missing`,
		"many": `header X-Page-Count does not match the contract: unable to decode header "X-Page-Count" value`,
	} {
		_, u := startShop(t, func(s *shopServer) { s.pageCount = sent })
		c := &Config{Base: u, MaxRequests: 100, MaxTime: time.Minute}
		var got []string
		for _, f := range Run(context.Background(), doc, NewPlan(doc, Options{}), c).Findings(rules.Default()) {
			if f.Rule == rules.ReplayResponseInvalid {
				got = append(got, f.Where.String()+" "+f.Message)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "shop.yaml:31:13 ") || !strings.Contains(got[0], want) {
			t.Errorf("X-Page-Count %q: want one finding at the header (line 31) saying %q, got %q", sent, want, got)
		}
	}
}

// TestBuildStaysOnTarget: whatever a contract's paths and values say, a
// request goes to the host it was pointed at, under its base path.
func TestBuildStaysOnTarget(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:9/api")
	r := &runner{cfg: &Config{Base: base}, mem: memory{}}
	for _, c := range []struct{ tmpl, id, want string }{
		{"//evil.example/x/{id}", "1", "/api//evil.example/x/1"},
		{"/v1/{id}", "../../admin", "/api/v1/..%2F..%2Fadmin"},
		{"/v1/{id}", "http://evil.example/", "/api/v1/http:%2F%2Fevil.example%2F"},
	} {
		op := &Operation{ID: "GET " + c.tmpl, Name: "x", Method: http.MethodGet, Template: c.tmpl,
			Item: &openapi3.PathItem{}, Op: &openapi3.Operation{}}
		hr, err := r.build(context.Background(), &Request{Op: op, Path: map[string]string{"id": c.id}})
		if err != nil {
			t.Fatal(err)
		}
		if hr.URL.Host != "127.0.0.1:9" || hr.URL.EscapedPath() != c.want {
			t.Errorf("%s with id %q: sent to %s%s, want 127.0.0.1:9%s", c.tmpl, c.id, hr.URL.Host, hr.URL.EscapedPath(), c.want)
		}
	}
}

// TestRunNoAnswer: a request the server hangs up on, after it answered
// others, is a finding at the operation; the run goes on.
func TestRunNoAnswer(t *testing.T) {
	shop, u := startShop(t, func(s *shopServer) { s.hangUpOnDelete = true })
	rep := runShop(t, u, Config{})
	var got []string
	for _, f := range rep.Findings(rules.Default()) {
		if f.Rule == rules.ReplayNoAnswer {
			got = append(got, f.Where.String()+" "+f.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "shop.yaml:5:5 deleteOrder (DELETE /orders/{id}): DELETE /orders/o_42 got no answer: ") {
		t.Errorf("want one no-answer finding at deleteOrder, got %q", got)
	}
	// net/http resends an idempotent request whose pooled connection
	// broke; a request that changes state must go out exactly once.
	if rep.Sent != 9 || len(shop.requests()) != 9 {
		t.Errorf("sent %d, the server saw %d, want 9", rep.Sent, len(shop.requests()))
	}
}

// TestRunTimeCapInFlight: a request the time cap cuts while the server
// still works on it is not sent to the end, not unanswered.
func TestRunTimeCapInFlight(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(release) })
	u, _ := url.Parse(hs.URL)
	rep := runShop(t, u, Config{MaxTime: 200 * time.Millisecond, Rate: 0})
	if rep.Unreachable != nil {
		t.Fatalf("unreachable: %v", rep.Unreachable)
	}
	for _, f := range rep.Findings(rules.Default()) {
		if f.Rule != rules.ReplayNotSent {
			t.Errorf("unexpected %s: %s", f.Rule, f.Message)
		}
	}
	if len(rep.NotSent) < 2 || !strings.Contains(rep.NotSent[1].Reason, "ran out while it was in flight") {
		t.Errorf("the cut request is not reported: %v", rep.NotSent)
	}
}

// TestRunBadHeaderValue: a header value from the contract that cannot go on
// the wire (a line break would start a header of the contract's choosing)
// is not sent, and says why.
func TestRunBadHeaderValue(t *testing.T) {
	server, u := startShop(t)
	contract := strings.Replace(shop, "      operationId: listOrders\n",
		"      operationId: listOrders\n      parameters:\n        - {name: X-Tenant, in: header, required: true, schema: {type: string}, example: \"a\\r\\nX-Admin: 1\"}\n", 1)
	doc := loadText(t, contract)
	c := &Config{Base: u, MaxRequests: 100, MaxTime: time.Minute}
	rep := Run(context.Background(), doc, NewPlan(doc, Options{}), c)
	for _, line := range server.requests() {
		if strings.HasPrefix(line, "GET /orders ") {
			t.Errorf("sent %q", line)
		}
	}
	var reasons []string
	for _, s := range rep.NotSent {
		reasons = append(reasons, s.Op.Name+": "+s.Reason)
	}
	want := "listOrders: the contract's values make no valid HTTP request: header X-Tenant: a value with a line break or NUL"
	if !slices.Contains(reasons, want) {
		t.Errorf("not sent: %q, want %q", reasons, want)
	}
}
