package probe

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// flaw is the one thing a test server gets wrong.
type flaw int

const (
	correct flaw = iota
	// checkThenAct looks the key up, then inserts it after a window, with no
	// unique claim: concurrent duplicates all find nothing and all charge.
	checkThenAct
	// ignoresFingerprint replays the stored answer whatever the body.
	ignoresFingerprint
	// noRetryAfter answers a request in progress 409 without Retry-After.
	noRetryAfter
	// noReplayHeader replays without Idempotent-Replay: true.
	noReplayHeader
	// freshEachRetry mints a new answer (a new charge id) for every retry.
	freshEachRetry
	// acceptsMissingKey charges a request that has no key.
	acceptsMissingKey
	// rawFingerprint fingerprints the raw bytes, not the canonical JSON.
	rawFingerprint
	// noDelayControl ignores X-Probe-Delay, like a production server.
	noDelayControl
)

// work is how long a fresh charge takes, so concurrent duplicates meet one
// in progress; window is check-then-act's gap between SELECT and INSERT.
const (
	work   = 30 * time.Millisecond
	window = 60 * time.Millisecond
)

type entry struct {
	fingerprint string
	done        bool
	status      int
	body        []byte
}

// fakeServer is a charge endpoint on an in-memory key table, correct except
// for its flaw.
type fakeServer struct {
	flaw     flaw
	requests atomic.Int64

	mu      sync.Mutex
	keys    map[string]*entry
	charges int
}

func newFake(f flaw) *fakeServer { return &fakeServer{flaw: f, keys: map[string]*entry{}} }

func (s *fakeServer) chargeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charges
}

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/charges" {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		problem(w, 400, "invalid_json")
		return
	}
	canonical, _ := json.Marshal(v) // map keys come out sorted
	fp := sha256.Sum256(canonical)
	if s.flaw == rawFingerprint {
		fp = sha256.Sum256(raw)
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		if s.flaw != acceptsMissingKey {
			problem(w, 400, "idempotency_key_missing")
			return
		}
		s.finish(w, &entry{}, v, work)
		return
	}
	delay := work
	if d, err := time.ParseDuration(r.Header.Get(DelayHeader)); err == nil && s.flaw != noDelayControl {
		delay = d
		w.Header().Set(DelayHeader, d.String())
	}
	mine := &entry{fingerprint: hex.EncodeToString(fp[:])}
	if s.flaw == checkThenAct {
		s.mu.Lock()
		e, found := s.keys[key]
		var seen entry
		if found {
			seen = *e
		}
		s.mu.Unlock()
		if found {
			s.answerExisting(w, &seen, mine, v)
			return
		}
		time.Sleep(window) // SELECT found nothing; INSERT comes later
		s.mu.Lock()
		s.keys[key] = mine
		s.mu.Unlock()
		s.finish(w, mine, v, delay)
		return
	}
	s.mu.Lock()
	e, found := s.keys[key]
	var seen entry
	if found {
		seen = *e
	} else {
		s.keys[key] = mine
	}
	s.mu.Unlock()
	if found {
		s.answerExisting(w, &seen, mine, v)
		return
	}
	s.finish(w, mine, v, delay)
}

// finish does the work, stores the answer with the key and sends it.
func (s *fakeServer) finish(w http.ResponseWriter, e *entry, req map[string]any, delay time.Duration) {
	time.Sleep(delay)
	body := newCharge(req)
	s.mu.Lock()
	s.charges++
	e.done, e.status, e.body = true, 201, body
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(201)
	_, _ = w.Write(body)
}

func (s *fakeServer) answerExisting(w http.ResponseWriter, seen, mine *entry, req map[string]any) {
	switch {
	case seen.fingerprint != mine.fingerprint && s.flaw != ignoresFingerprint:
		problem(w, 422, "idempotency_key_reused")
	case !seen.done:
		if s.flaw != noRetryAfter {
			w.Header().Set("Retry-After", "1")
		}
		problem(w, 409, "request_in_progress")
	default:
		body := seen.body
		if s.flaw == freshEachRetry {
			body = newCharge(req)
		}
		if s.flaw != noReplayHeader {
			w.Header().Set("Idempotent-Replay", "true")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(seen.status)
		_, _ = w.Write(body)
	}
}

func newCharge(req map[string]any) []byte {
	var id [8]byte
	_, _ = rand.Read(id[:])
	b, _ := json.Marshal(map[string]any{"id": "ch_" + hex.EncodeToString(id[:]), "amount_cents": req["amount_cents"], "status": "succeeded"})
	return b
}

func problem(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"status": %d, "code": %q}`, status, code)
}
