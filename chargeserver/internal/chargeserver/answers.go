package chargeserver

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// answers is a bounded in-process cache of final answers, so a replay (the
// common retry) costs no database round trip. It is safe because a stored
// answer never changes: Complete, TakeOver and ExpireLease all require a claim
// in progress, so a completed claim only ever goes away, when the pruner
// deletes it past retention. An entry therefore lives only while no pruner can
// have deleted its claim: until created + retention - maxSkew on this
// instance's clock. The pruner of any instance deletes a claim once its own
// clock passes created + retention; when clocks differ by at most maxSkew,
// that is never before this instance's clock passes created + retention -
// maxSkew. After that the key is read from the database again, where it is
// either still there or free for a new charge.
type answers struct {
	retention, maxSkew time.Duration
	size               int

	mu      sync.Mutex
	entries map[store.Scope]answer
	// ring holds the cached scopes in insertion order; the oldest is evicted
	// when it is full. Each entry has exactly one slot.
	ring []store.Scope
	next int
}

// bodySum is the SHA-256 of a request body's bytes.
type bodySum = [sha256.Size]byte

// answer is one final answer and the request it answered.
type answer struct {
	fingerprint string
	// raw is the sum of a body seen to have this fingerprint, so a retry
	// with the same bytes is answered without parsing; zero until one is.
	raw    bodySum
	status int
	body   []byte
	until  time.Time
}

// newAnswers caches up to size answers; size 0 turns the cache off. The
// cache grows with the keys answered, up to size: made at full size, it
// cost every server start megabytes zeroed for keys it may never see.
func newAnswers(size int, retention, maxSkew time.Duration) *answers {
	return &answers{retention: retention, maxSkew: maxSkew, size: size, entries: map[store.Scope]answer{}}
}

// get returns the cached answer for sc while it is still safe to use at now.
func (a *answers) get(sc store.Scope, now time.Time) (answer, bool) {
	if a.size == 0 {
		return answer{}, false
	}
	a.mu.Lock()
	e, ok := a.entries[sc]
	a.mu.Unlock()
	return e, ok && now.Before(e.until)
}

// put caches rec's final answer, unless it could already have been pruned.
func (a *answers) put(rec store.Record, now time.Time) {
	until := rec.CreatedAt.Add(a.retention - a.maxSkew)
	if a.size == 0 || rec.Status != store.StatusCompleted || !now.Before(until) {
		return
	}
	e := answer{fingerprint: rec.Fingerprint, status: rec.ResponseStatus, body: rec.ResponseBody, until: until}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.entries[rec.Scope]; !ok {
		if len(a.ring) < a.size {
			a.ring = append(a.ring, rec.Scope)
		} else {
			delete(a.entries, a.ring[a.next])
			a.ring[a.next] = rec.Scope
			a.next = (a.next + 1) % len(a.ring)
		}
	}
	a.entries[rec.Scope] = e
}

// remember records sum as the bytes of a body whose fingerprint matched sc's
// answer.
func (a *answers) remember(sc store.Scope, sum bodySum) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.entries[sc]; ok {
		e.raw = sum
		a.entries[sc] = e
	}
}
