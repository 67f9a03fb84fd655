package chargeclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"
)

// script is a server that answers attempt i with steps[i] and records the
// key of every attempt; the last step repeats.
type script struct {
	mu    sync.Mutex
	steps []func(w http.ResponseWriter)
	keys  []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	step := s.steps[min(len(s.keys), len(s.steps))-1]
	s.mu.Unlock()
	step(w)
}

func status(code int, hdr ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"code":"c` + strconv.Itoa(code) + `"}`))
	}
}

// hangUp drops the connection without an answer, as a crashed server does.
func hangUp(http.ResponseWriter) { panic(http.ErrAbortHandler) }

// outcome is one run of the client against a script.
type outcome struct {
	res   Result
	err   error
	srv   *script
	waits []time.Duration
}

func run(t *testing.T, o Options, steps ...func(w http.ResponseWriter)) outcome {
	t.Helper()
	s := &script{steps: steps}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	o.URL = srv.URL
	c := New(o)
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	res, err := c.Charge(context.Background(), Intent{AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"})
	return outcome{res, err, s, waits}
}

func fast() Options {
	o := DefaultOptions()
	o.BaseDelay, o.MaxDelay = 10*time.Millisecond, 40*time.Millisecond
	return o
}

// TestRetriesWithOneKey: every retryable answer is retried, with the one key
// minted for the intent, until the final answer.
func TestRetriesWithOneKey(t *testing.T) {
	o := run(t, fast(), hangUp, status(503), status(429), status(409, "Retry-After", "2"), status(502), status(201))
	res, err, s, waits := o.res, o.err, o.srv, o.waits
	if err != nil || !res.Charged() || res.Attempts != 6 {
		t.Fatalf("%+v, %v; want charged on attempt 6", res, err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, k := range s.keys {
		if k != res.Key || !uuid.MatchString(k) {
			t.Fatalf("keys sent %q; want one random UUID for every attempt", s.keys)
		}
	}
	if len(waits) != 5 || waits[3] != 2*time.Second {
		t.Fatalf("waits %v; want five, the fourth the 409's Retry-After", waits)
	}
	for i, w := range waits {
		step := min(40*time.Millisecond, 10*time.Millisecond<<i)
		if i != 3 && (w < step/2 || w > step) {
			t.Errorf("wait %d is %s; want capped exponential with jitter in [%s, %s]", i+1, w, step/2, step)
		}
	}
}

// TestFinalAnswersAreNotRetried: a 4xx other than 409/429 and a stored
// answer are final at once.
func TestFinalAnswersAreNotRetried(t *testing.T) {
	for name, step := range map[string]func(http.ResponseWriter){
		"400":          status(400),
		"402":          status(402),
		"422":          status(422),
		"replayed 503": status(503, "Idempotent-Replay", "true"),
		"stored-unknown": func(w http.ResponseWriter) {
			w.WriteHeader(502)
			_, _ = w.Write([]byte(`{"code":"charge_outcome_unknown"}`))
		},
		"replayed charge": status(201, "Idempotent-Replay", "true"),
	} {
		o := run(t, fast(), step)
		res, err, s := o.res, o.err, o.srv
		if err != nil || !res.Final || res.Attempts != 1 || len(s.keys) != 1 {
			t.Errorf("%s: %+v, %v after %d requests; want final after one", name, res, err, len(s.keys))
		}
	}
}

// TestStopsAtTheDeadline: a server that never settles is given up on when
// the next wait would pass the deadline; the result is not final.
func TestStopsAtTheDeadline(t *testing.T) {
	o := fast()
	o.Deadline = 300 * time.Millisecond
	s := &script{steps: []func(http.ResponseWriter){status(503)}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	o.URL = srv.URL
	res, err := New(o).Charge(context.Background(), Intent{AmountCents: 1, Currency: "GBP", CardToken: "t"})
	if !errors.Is(err, ErrDeadline) || res.Final || res.Status != 503 || res.Attempts < 2 {
		t.Fatalf("%+v, %v; want ErrDeadline after several attempts", res, err)
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	o := fast()
	o.AttemptTimeout = 50 * time.Millisecond
	slow := func(w http.ResponseWriter) { time.Sleep(300 * time.Millisecond); status(201)(w) }
	out := run(t, o, slow, status(201, "Idempotent-Replay", "true"))
	res, err, s := out.res, out.err, out.srv
	if err != nil || !res.Charged() || !res.Replayed || res.Attempts != 2 || s.keys[0] != s.keys[1] {
		t.Fatalf("%+v, %v, keys %q", res, err, s.keys)
	}
}

func problemStep(code int, problemCode string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"type":"urn:contractlint:problem:` + problemCode + `","title":"t","status":` + strconv.Itoa(code) +
			`,"code":"` + problemCode + `","detail":"said by the server"}`))
	}
}

// TestThreeOutcomes: an intent is charged, not charged only on an answer
// that proves nothing was charged, or unknown. A reused key is not "not
// charged": the key did charge, for the earlier request.
func TestThreeOutcomes(t *testing.T) {
	for name, c := range map[string]struct {
		step      func(http.ResponseWriter)
		want      Outcome
		keyReused bool
	}{
		"charge":          {status(201), Charged, false},
		"declined":        {problemStep(402, "card_declined"), NotCharged, false},
		"rejected":        {problemStep(402, "charge_rejected"), NotCharged, false},
		"bad amount":      {problemStep(400, "invalid_amount"), NotCharged, false},
		"unauthorized":    {problemStep(401, "unauthorized"), NotCharged, false},
		"headers too big": {problemStep(431, "header_too_large"), NotCharged, false},
		"key reused":      {problemStep(422, "idempotency_key_reused"), Unknown, true},
		"stored unknown":  {problemStep(502, "charge_outcome_unknown"), Unknown, false},
		"a proxy's 404":   {func(w http.ResponseWriter) { http.NotFound(w, nil) }, Unknown, false},
		"a bare 400":      {func(w http.ResponseWriter) { w.WriteHeader(400) }, Unknown, false},
	} {
		o := run(t, fast(), c.step)
		if got := o.res.Outcome(); got != c.want || o.res.KeyReused() != c.keyReused {
			t.Errorf("%s: outcome %v (key reused %v); want %v (%v)", name, got, o.res.KeyReused(), c.want, c.keyReused)
		}
	}
	o := run(t, fast(), problemStep(422, "idempotency_key_reused"))
	if o.res.Detail != "said by the server" {
		t.Errorf("detail %q; want what the server said", o.res.Detail)
	}
}
