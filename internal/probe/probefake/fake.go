// Package probefake is a charge endpoint that gets exactly one thing wrong
// (its Flaw): the servers the probe's tests run against, here and beside the
// charge server's gRPC translation (which lives in its own module).
package probefake

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Flaw is the one thing a test server gets wrong.
type Flaw int

// DelayHeader is probe.DelayHeader (this package cannot import the probe,
// whose own tests import it; a probe test holds the two equal).
const DelayHeader = "X-Probe-Delay"

const (
	Correct Flaw = iota
	// CheckThenAct looks the key up, then inserts it after a window, with no
	// unique claim: concurrent duplicates all find nothing and all charge.
	CheckThenAct
	// IgnoresFingerprint replays the stored answer whatever the body.
	IgnoresFingerprint
	// NoRetryAfter answers a request in progress 409 without Retry-After.
	NoRetryAfter
	// NoReplayHeader replays without Idempotent-Replay: true.
	NoReplayHeader
	// FreshEachRetry mints a new answer (a new charge id) for every retry.
	FreshEachRetry
	// AcceptsMissingKey charges a request that has no key.
	AcceptsMissingKey
	// RawFingerprint fingerprints the raw bytes, not the canonical JSON.
	RawFingerprint
	// NoDelayControl ignores X-Probe-Delay, like a production server.
	NoDelayControl
	// KeyDerivedAnswer is check-then-act, but every answer's id is derived
	// from the key: each concurrent duplicate charges, and all get one
	// identical answer.
	KeyDerivedAnswer
	// ChargeThen500 charges each concurrent duplicate, then fails the insert
	// of the key for all but the first: those are answered 500, charged.
	ChargeThen500
	// PartialFingerprint fingerprints amount_cents alone.
	PartialFingerprint
	// ShortRetention forgets a completed key after keyLife.
	ShortRetention
	// UnscopedKey keeps keys per server, not per account (Authorization).
	UnscopedKey
	// HugeFreshRetry answers with a body over 1 MiB whose first MiB is
	// always alike, and mints a new one (a new id at the end) for every retry.
	HugeFreshRetry
)

// racy reports the flaws that look the key up and insert it later.
func (f Flaw) racy() bool { return f == CheckThenAct || f == KeyDerivedAnswer || f == ChargeThen500 }

// keyLife is how long ShortRetention keeps a completed key: just short of
// the delayed retry's wait (RetryAfter in the tests, 1s), which always comes
// after it, and long enough that no immediate retry on a loaded machine is
// late enough to be forgotten.
const keyLife = 950 * time.Millisecond

// work is how long a fresh charge takes, so concurrent duplicates meet one
// in progress. window is check-then-act's gap between SELECT and INSERT. For
// the first key the server sees (the probe's concurrent burst) the gap lasts
// until a second request for it is in the gap too and no other joins for
// rivalQuiet, up to rivalWait, so the
// race happens however slowly a loaded machine schedules the burst.
const (
	work      = 30 * time.Millisecond
	window    = 60 * time.Millisecond
	rivalWait = 2 * time.Second
	// rivalQuiet is how long the first key's gap stays open after the last
	// rival joined it.
	rivalQuiet = 250 * time.Millisecond
)

type entry struct {
	fingerprint string
	done        bool
	status      int
	body        []byte
	doneAt      time.Time
}

// Server is a charge endpoint on an in-memory key table, Correct except
// for its flaw.
type Server struct {
	flaw     Flaw
	Requests atomic.Int64

	mu   sync.Mutex
	keys map[string]*entry
	// inGap counts, per scope, the racy requests between SELECT and INSERT.
	inGap   map[string]int
	charges int
	// made is every charge's JSON, newest last: what GET /v1/charges lists.
	made []json.RawMessage
}

// New is a server with flaw f (Correct for none).
func New(f Flaw) *Server {
	return &Server{flaw: f, keys: map[string]*entry{}, inGap: map[string]int{}}
}

// ChargeCount is how many charges the server made.
func (s *Server) ChargeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charges
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	switch {
	case r.URL.Path != "/v1/charges":
		http.NotFound(w, r)
		return
	case r.Method == http.MethodGet:
		s.list(w)
		return
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		problem(w, 400, "invalid_json")
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		if s.flaw != AcceptsMissingKey {
			problem(w, 400, "idempotency_key_missing")
			return
		}
		s.finish(w, &entry{}, key, v, work)
		return
	}
	delay := work
	if d, err := time.ParseDuration(r.Header.Get(DelayHeader)); err == nil && s.flaw != NoDelayControl {
		delay = d
		w.Header().Set(DelayHeader, d.String())
	}
	mine := &entry{fingerprint: s.fingerprint(raw, v)}
	scope := r.Header.Get("Authorization") + "\x00" + key
	if s.flaw == UnscopedKey {
		scope = key
	}
	if s.flaw.racy() {
		s.racyCharge(w, scope, key, mine, v, delay)
		return
	}
	s.mu.Lock()
	seen, found := s.lookup(scope)
	if !found {
		s.keys[scope] = mine
	}
	s.mu.Unlock()
	if found {
		s.answerExisting(w, &seen, mine, v)
		return
	}
	s.finish(w, mine, key, v, delay)
}

// fingerprint is the body's canonical JSON hash, or what the flaw makes it.
func (s *Server) fingerprint(raw []byte, v map[string]any) string {
	canonical, _ := json.Marshal(v) // map keys come out sorted
	switch s.flaw {
	case RawFingerprint:
		canonical = raw
	case PartialFingerprint:
		canonical, _ = json.Marshal(v["amount_cents"])
	}
	fp := sha256.Sum256(canonical)
	return hex.EncodeToString(fp[:])
}

// lookup returns a copy of scope's entry, forgetting it if it expired.
// s.mu must be held.
func (s *Server) lookup(scope string) (entry, bool) {
	e, found := s.keys[scope]
	if found && s.flaw == ShortRetention && e.done && time.Since(e.doneAt) > keyLife {
		delete(s.keys, scope)
		return entry{}, false
	}
	if !found {
		return entry{}, false
	}
	return *e, true
}

// racyCharge looks the key up and inserts it only after a window, so
// concurrent duplicates all find nothing.
func (s *Server) racyCharge(w http.ResponseWriter, scope, key string, mine *entry, v map[string]any, delay time.Duration) {
	s.mu.Lock()
	seen, found := s.lookup(scope)
	s.mu.Unlock()
	if found {
		s.answerExisting(w, &seen, mine, v)
		return
	}
	s.awaitRival(scope) // SELECT found nothing; INSERT comes later
	if s.flaw == ChargeThen500 {
		// Charge first, then insert: the unique index refuses every insert
		// but the first, after the money moved.
		time.Sleep(delay)
		body := s.charge(key, v)
		s.mu.Lock()
		_, taken := s.keys[scope]
		if !taken {
			mine.done, mine.status, mine.body = true, 201, body
			s.keys[scope] = mine
		}
		s.mu.Unlock()
		if taken {
			problem(w, 500, "internal_error")
			return
		}
		writeJSON(w, 201, body)
		return
	}
	s.mu.Lock()
	s.keys[scope] = mine
	s.mu.Unlock()
	s.finish(w, mine, key, v, delay)
}

// finish does the work, stores the answer with the key and sends it.
func (s *Server) finish(w http.ResponseWriter, e *entry, key string, req map[string]any, delay time.Duration) {
	time.Sleep(delay)
	body := s.charge(key, req)
	s.mu.Lock()
	e.done, e.status, e.body, e.doneAt = true, 201, body, time.Now()
	s.mu.Unlock()
	writeJSON(w, 201, body)
}

// charge records one charge and returns its answer.
func (s *Server) charge(key string, req map[string]any) []byte {
	body := s.newCharge(key, req)
	s.mu.Lock()
	s.charges++
	s.made = append(s.made, body)
	s.mu.Unlock()
	return body
}

// list answers GET /v1/charges: every charge, newest first.
func (s *Server) list(w http.ResponseWriter) {
	s.mu.Lock()
	data := make([]json.RawMessage, 0, len(s.made))
	for i := len(s.made) - 1; i >= 0; i-- {
		data = append(data, s.made[i])
	}
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"data": data, "has_more": false})
	writeJSON(w, 200, b)
}

func (s *Server) answerExisting(w http.ResponseWriter, seen, mine *entry, req map[string]any) {
	switch {
	case seen.fingerprint != mine.fingerprint && s.flaw != IgnoresFingerprint:
		problem(w, 422, "idempotency_key_reused")
	case !seen.done:
		if s.flaw != NoRetryAfter {
			w.Header().Set("Retry-After", "1")
		}
		problem(w, 409, "request_in_progress")
	default:
		body := seen.body
		if s.flaw == FreshEachRetry || s.flaw == HugeFreshRetry {
			body = s.newCharge("", req)
		}
		if s.flaw != NoReplayHeader {
			w.Header().Set("Idempotent-Replay", "true")
		}
		writeJSON(w, seen.status, body)
	}
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// newCharge is a charge's JSON with a fresh id, or with one derived from key
// for KeyDerivedAnswer; HugeFreshRetry puts 1.5 MiB of padding before the id.
func (s *Server) newCharge(key string, req map[string]any) []byte {
	var id [8]byte
	_, _ = rand.Read(id[:])
	if s.flaw == KeyDerivedAnswer {
		sum := sha256.Sum256([]byte(key))
		copy(id[:], sum[:])
	}
	c := map[string]any{"id": "ch_" + hex.EncodeToString(id[:]), "amount_cents": req["amount_cents"], "status": "succeeded"}
	b, _ := json.Marshal(c)
	if s.flaw == HugeFreshRetry {
		// encoding/json sorts keys, so "aa_padding" comes before "id".
		c["aa_padding"] = strings.Repeat("x", 3<<19)
		b, _ = json.Marshal(c)
	}
	return b
}

func problem(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"status": %d, "code": %q}`, status, code)
}

// awaitRival holds a racy request in its gap for window, or, for the first
// key the server sees, until another request for it joins it there.
func (s *Server) awaitRival(scope string) {
	s.mu.Lock()
	s.inGap[scope]++
	first := len(s.inGap) == 1
	s.mu.Unlock()
	if !first {
		time.Sleep(window)
		return
	}
	// Then let the rivals on their way in arrive too: the gap closes once
	// none has joined it for rivalQuiet, as a loaded machine (or many probe
	// runs at once) may schedule the burst's requests far apart.
	n, grew := 0, time.Now()
	for deadline := grew.Add(rivalWait); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		s.mu.Lock()
		now := s.inGap[scope]
		s.mu.Unlock()
		if now > n {
			n, grew = now, time.Now()
		}
		if n >= 2 && time.Since(grew) >= rivalQuiet {
			return
		}
	}
}
