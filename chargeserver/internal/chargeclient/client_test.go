package chargeclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// script is a server that answers attempt i with steps[i] and records the
// key of every attempt; the last step repeats.
type script struct {
	mu    sync.Mutex
	steps []func(w http.ResponseWriter)
	keys  []string
	at    []time.Time // when each attempt arrived
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.at = append(s.at, time.Now())
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

// run sends one intent to the script in memory, on a test clock that
// advances by each wait it is asked for: nothing sleeps.
func run(t *testing.T, o Options, steps ...func(w http.ResponseWriter)) outcome {
	t.Helper()
	s := &script{steps: steps}
	o.URL, o.Transport = "http://charges.test/v1/charges", inMemory{s}
	c := New(o)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var waits []time.Duration
	c.clock = clock{
		now: func() time.Time { return now },
		sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			now = now.Add(d)
			return nil
		},
	}
	res, err := c.Charge(context.Background(), Intent{AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa"})
	return outcome{res, err, s, waits}
}

// inMemory serves requests with a handler in the same process, no socket:
// the client's own timeouts still apply (an answer not given before the
// request's context ends is no answer), and a handler that aborts is a
// connection closed without a word. Inside a synctest bubble every wait in
// it is on the bubble's clock.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		m.h.ServeHTTP(rec, r)
	}()
	select {
	case p := <-done:
		if p != nil {
			return nil, fmt.Errorf("connection closed: %v", p)
		}
		return rec.Result(), nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
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
// the next wait would pass the deadline; the result is not final. On the
// test clock the waits add up to the deadline less less than one wait.
func TestStopsAtTheDeadline(t *testing.T) {
	o := fast()
	o.Deadline = 300 * time.Millisecond
	out := run(t, o, status(503))
	res, err := out.res, out.err
	if !errors.Is(err, ErrDeadline) || res.Final || res.Status != 503 || res.Attempts != len(out.waits)+1 || len(out.srv.keys) != res.Attempts {
		t.Fatalf("%+v, %v, %d waits, %d requests; want ErrDeadline after one more attempt than waits", res, err, len(out.waits), len(out.srv.keys))
	}
	var waited time.Duration
	for _, w := range out.waits {
		waited += w
	}
	if left := o.Deadline - waited; left < 0 || left >= o.MaxDelay {
		t.Fatalf("waited %s of a %s deadline: gave up with %s left, want less than one capped wait (%s) and never past it", waited, o.Deadline, left, o.MaxDelay)
	}
}

// TestDeadlineOnTheBubbleClock: the same on the real clock, faked by
// testing/synctest: with every attempt answered 503 the intent ends with
// ErrDeadline no later than the deadline, having tried again and again.
func TestDeadlineOnTheBubbleClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := fast()
		o.Deadline = 300 * time.Millisecond
		s := &script{steps: []func(http.ResponseWriter){status(503)}}
		o.URL, o.Transport = "http://charges.test/v1/charges", inMemory{s}
		start := time.Now()
		res, err := New(o).Charge(context.Background(), Intent{AmountCents: 1, Currency: "GBP", CardToken: "t"})
		took := time.Since(start) // the bubble's clock: exact, not a budget
		if !errors.Is(err, ErrDeadline) || res.Final || res.Status != 503 || res.Attempts < 300/40 || took > o.Deadline {
			t.Fatalf("%+v, %v after %s; want ErrDeadline within %s after at least %d attempts", res, err, took, o.Deadline, 300/40)
		}
	})
}

// TestAttemptTimeoutIsRetried: an attempt that gets no answer within
// AttemptTimeout is abandoned at exactly that time and retried, after one
// backoff wait, with the same key; the retry's replayed charge is the
// answer. Run in a synctest bubble, so the 300 ms handler and the 50 ms
// timeout cost no real time and the times seen are exact.
func TestAttemptTimeoutIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := fast()
		o.AttemptTimeout = 50 * time.Millisecond
		slow := func(w http.ResponseWriter) { time.Sleep(300 * time.Millisecond); status(201)(w) }
		s := &script{steps: []func(http.ResponseWriter){slow, status(201, "Idempotent-Replay", "true")}}
		o.URL, o.Transport = "http://charges.test/v1/charges", inMemory{s}
		res, err := New(o).Charge(context.Background(), Intent{AmountCents: 1, Currency: "GBP", CardToken: "t"})
		if err != nil || !res.Charged() || !res.Replayed || res.Attempts != 2 || len(s.keys) != 2 || s.keys[0] != s.keys[1] {
			t.Fatalf("%+v, %v, keys %q; want the replay on attempt 2 under one key", res, err, s.keys)
		}
		// The first backoff step is BaseDelay with jitter: [5ms, 10ms].
		if gap := s.at[1].Sub(s.at[0]); gap < 55*time.Millisecond || gap > 60*time.Millisecond {
			t.Fatalf("the retry came %s after the first attempt; want the 50ms timeout plus one wait of 5-10ms", gap)
		}
		time.Sleep(300 * time.Millisecond) // the abandoned handler finishes
	})
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
