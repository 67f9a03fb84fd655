// Package processor is the payment processor the charge server talks to. It
// is a separate component with its own idempotency table keyed by the key the
// server derives, so asking it twice with one key returns the first answer
// and never charges twice. Latency, declines and failures are injectable so
// tests can slow it, break it and crash around it.
package processor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Outcome statuses the processor reports.
const (
	StatusSucceeded = "succeeded"
	StatusDeclined  = "declined"
)

// DeclineToken is the card token that is always declined.
const DeclineToken = "tok_decline"

// ErrUnavailable is a failure whose outcome the caller cannot know: the charge
// may or may not have happened, so the caller must ask again with the same key.
var ErrUnavailable = errors.New("processor unavailable")

// ErrRejected is a definite "not charged": the processor refused the request
// without charging, so asking again with the same key gets the same refusal.
// The caller stores it as the final answer; it is never retried.
var ErrRejected = errors.New("processor rejected the request; nothing was charged")

// ErrKeyMismatch refuses a key already used for a different request (another
// amount, currency or account): replaying the first charge's answer would tell
// the caller a charge was made that never was.
var ErrKeyMismatch = fmt.Errorf("%w: the key was already used for a different amount, currency or account", ErrRejected)

// Request asks for one charge; Key is the idempotency key.
type Request struct {
	Key         string `json:"key"`
	Account     string `json:"account"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	CardToken   string `json:"card_token"`
	Description string `json:"description"`
}

// Result is the processor's answer; it is the same for every ask with one key.
type Result struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	DeclineCode string `json:"decline_code,omitempty"`
}

// Record is one row of the processor's own table, for reconciliation.
type Record struct {
	Key         string `json:"key"`
	ID          string `json:"id"`
	Status      string `json:"status"`
	Account     string `json:"account"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
}

// Processor is what the server needs from a processor, in-process or remote.
type Processor interface {
	Charge(ctx context.Context, req Request) (Result, error)
	Records(ctx context.Context) ([]Record, error)
}

// Faults are the injectable misbehaviours.
type Faults struct {
	// Latency delays every new charge (replays of a known key answer at once).
	Latency time.Duration `json:"latency_ns"`
	// FailBefore makes the next N calls fail without charging.
	FailBefore int `json:"fail_before"`
	// FailAfter makes the next N calls charge and then fail, the ambiguous
	// case where only asking again reveals the outcome.
	FailAfter int `json:"fail_after"`
	// Reject makes the next N calls refuse with ErrRejected without
	// charging: the definite "not done" a caller stores as final.
	Reject int `json:"reject"`
}

// Ledger is the in-memory processor. Its table lives as long as the process:
// for a processor that outlives server crashes, run it as its own service
// (see Handler).
type Ledger struct {
	mu      sync.Mutex
	records map[string]Record
	order   []string
	faults  Faults
	calls   int
}

// NewLedger returns an empty processor.
func NewLedger() *Ledger {
	return &Ledger{records: map[string]Record{}}
}

// SetFaults replaces the injected faults.
func (l *Ledger) SetFaults(f Faults) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.faults = f
}

// Calls counts Charge calls, replays included.
func (l *Ledger) Calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

// Charge charges once per key, and only for the request the key was first
// used with. The latency is spent before the table is consulted so two
// concurrent asks with one key still meet under the lock and only the first
// creates a record.
func (l *Ledger) Charge(ctx context.Context, req Request) (Result, error) {
	failBefore, failAfter, reject, latency := l.takeFaults()
	if r, ok := l.lookup(req.Key); ok {
		return answer(r, req)
	}
	if reject {
		return Result{}, ErrRejected
	}
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	if failBefore {
		return Result{}, ErrUnavailable
	}
	res, err := answer(l.record(req), req)
	if failAfter && err == nil {
		return Result{}, ErrUnavailable
	}
	return res, err
}

// answer is a record's result for req, or ErrKeyMismatch when req is not the
// request the record was made for.
func answer(r Record, req Request) (Result, error) {
	if r.AmountCents != req.AmountCents || r.Currency != req.Currency || r.Account != req.Account {
		return Result{}, ErrKeyMismatch
	}
	return resultOf(r), nil
}

// takeFaults consumes one of each counted fault for this call.
func (l *Ledger) takeFaults() (failBefore, failAfter, reject bool, latency time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.faults.Reject > 0 {
		l.faults.Reject--
		reject = true
	} else if l.faults.FailBefore > 0 {
		l.faults.FailBefore--
		failBefore = true
	} else if l.faults.FailAfter > 0 {
		l.faults.FailAfter--
		failAfter = true
	}
	return failBefore, failAfter, reject, l.faults.Latency
}

func (l *Ledger) lookup(key string) (Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.records[key]
	return r, ok
}

// record stores req's charge, or returns the record a concurrent ask with the
// same key made first.
func (l *Ledger) record(req Request) Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.records[req.Key]; ok {
		return r
	}
	r := Record{Key: req.Key, ID: newID(), Status: StatusSucceeded, Account: req.Account, AmountCents: req.AmountCents, Currency: req.Currency}
	if req.CardToken == DeclineToken {
		r.Status = StatusDeclined
	}
	l.records[req.Key] = r
	l.order = append(l.order, req.Key)
	return r
}

func resultOf(r Record) Result {
	res := Result{ID: r.ID, Status: r.Status}
	if r.Status == StatusDeclined {
		res.DeclineCode = "card_declined"
	}
	return res
}

// Records lists the table, oldest first.
func (l *Ledger) Records(context.Context) ([]Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Record, 0, len(l.order))
	for _, k := range l.order {
		out = append(out, l.records[k])
	}
	return out, nil
}

// Succeeded counts successful charges, the number tests compare against.
func Succeeded(recs []Record) int {
	n := 0
	for _, r := range recs {
		if r.Status == StatusSucceeded {
			n++
		}
	}
	return n
}

// SortByID orders records for stable comparison.
func SortByID(recs []Record) {
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "ch_" + hex.EncodeToString(b[:])
}
