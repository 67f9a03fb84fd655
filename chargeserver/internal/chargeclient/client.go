// Package chargeclient is the reference client of the charge server: it
// sends one charge intent and retries it the way the contract asks. The key
// is per operation, not per attempt: it is minted once for the intent and
// sent unchanged on every retry, so however many attempts it takes, and
// whichever of them the server saw, the intent charges at most once.
package chargeclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// UserAgent names the client on every request, so the server's traces and
// a proxy's access log can tell its calls from other clients'.
const UserAgent = "contractlint-charge-client/1"

// Intent is one purchase: what to charge. Key is the intent's
// Idempotency-Key; empty means "mint one" (NewKey).
type Intent struct {
	Key         string
	AmountCents int64
	Currency    string
	CardToken   string
	Description string
}

// Options say where to send and how long to keep trying.
type Options struct {
	// URL is the charges endpoint, e.g. http://127.0.0.1:8080/v1/charges.
	URL    string
	APIKey string
	// Deadline bounds the whole intent, every attempt and wait included.
	Deadline time.Duration
	// AttemptTimeout bounds one attempt; a timed-out attempt is retried.
	AttemptTimeout time.Duration
	// BaseDelay and MaxDelay shape the backoff: attempt n waits a random
	// time in [d/2, d] with d = min(MaxDelay, BaseDelay·2^(n-1)).
	BaseDelay, MaxDelay time.Duration
	// Transport carries the requests; nil means a fresh clone of the
	// default transport.
	Transport http.RoundTripper
}

// DefaultOptions are the options the command starts from.
func DefaultOptions() Options {
	return Options{Deadline: time.Minute, AttemptTimeout: 15 * time.Second, BaseDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Second}
}

// Result is how the intent ended.
type Result struct {
	Key string
	// Status, Body and Replayed are the last answer (Status 0: no answer,
	// only transport errors).
	Status   int
	Body     []byte
	Replayed bool
	// Code and Detail are the problem code and detail of an error answer.
	Code     string
	Detail   string
	Attempts int
	// Final is true when Status is the intent's settled outcome; false when
	// the deadline ran out first, and the outcome is unknown: retry later
	// with the same Key, never with a new one.
	Final bool
}

// Charged reports whether the final answer is a charge.
func (r Result) Charged() bool { return r.Final && r.Status == http.StatusCreated }

// Outcome is what an intent's answers prove about its money.
type Outcome int

const (
	// Unknown: no answer proves either way. Retry later with the same key,
	// never with a new one (a new key is a new charge).
	Unknown Outcome = iota
	// Charged: the answer is the charge.
	Charged
	// NotCharged: the server said nothing was charged for this request.
	NotCharged
)

func (o Outcome) String() string {
	return [...]string{"unknown", "charged", "not charged"}[o]
}

// notCharged are the problem codes the contract gives only when nothing was
// charged, with their status: a decline or a refusal by the processor, and
// requests refused before anything was stored. Any other answer, a bare
// status from a proxy included, proves nothing about the charge.
var notCharged = map[string]int{
	"card_declined": 402, "charge_rejected": 402,
	"idempotency_key_missing": 400, "idempotency_key_invalid": 400, "invalid_json": 400, "unknown_field": 400,
	"invalid_request": 400, "invalid_amount": 400, "unsupported_currency": 400, "duplicate_field": 400,
	"unauthorized": 401, "body_too_large": 413, "unsupported_media_type": 415, "header_too_large": 431,
}

// Outcome classifies the result. A reused key (KeyReused) is Unknown: the
// key did charge, for the request that first used it, and that charge may
// be this intent's.
func (r Result) Outcome() Outcome {
	switch {
	case r.Charged():
		return Charged
	case r.Final && r.Code != "" && notCharged[r.Code] == r.Status:
		return NotCharged
	}
	return Unknown
}

// KeyReused reports the 422 idempotency_key_reused answer: the key already
// belongs to a different request, whose answer stands; nothing new was
// charged.
func (r Result) KeyReused() bool {
	return r.Final && r.Status == http.StatusUnprocessableEntity && r.Code == "idempotency_key_reused"
}

// ErrDeadline is returned when the deadline passed before a final answer.
var ErrDeadline = errors.New("deadline reached before a final answer")

// Client sends charge intents.
type Client struct {
	opts  Options
	http  *http.Client
	clock clock
}

// clock is the client's one source of time, as the server's seams are its:
// the deadline is measured and the backoff waited on it. Tests of the retry
// policy replace it, so they count attempts and waits without sleeping.
type clock struct {
	now func() time.Time
	// sleep waits d or until ctx ends.
	sleep func(ctx context.Context, d time.Duration) error
}

// wallClock is production's.
func wallClock() clock { return clock{now: time.Now, sleep: sleepCtx} }

// New builds a client.
func New(opts Options) *Client {
	tr := opts.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &Client{opts: opts, http: &http.Client{Transport: tr}, clock: wallClock()}
}

// NewKey mints an intent's key: a random (version 4) UUID, which carries
// nothing about the buyer.
func NewKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Charge sends the intent until it gets a final answer or the deadline
// passes. It returns ErrDeadline (with the last answer in Result) when the
// outcome is still unknown.
func (c *Client) Charge(ctx context.Context, in Intent) (Result, error) {
	if in.Key == "" {
		in.Key = NewKey()
	}
	body, err := json.Marshal(map[string]any{"amount_cents": in.AmountCents, "currency": in.Currency,
		"card_token": in.CardToken, "description": in.Description})
	if err != nil {
		return Result{}, err
	}
	// The context bounds the attempts in flight; the clock decides whether
	// another wait still fits.
	deadline := c.clock.now().Add(c.opts.Deadline)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl // the caller's, when sooner
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Deadline)
	defer cancel()
	res := Result{Key: in.Key}
	for {
		res.Attempts++
		a := c.attempt(ctx, in.Key, body)
		res.Status, res.Body, res.Replayed, res.Code, res.Detail = a.status, a.body, a.replayed, a.code, a.detail
		wait, retry := a.decide(res.Attempts, c.opts)
		if !retry {
			res.Final = true
			return res, nil
		}
		if deadline.Sub(c.clock.now()) < wait {
			return res, ErrDeadline
		}
		if err := c.clock.sleep(ctx, wait); err != nil {
			return res, ErrDeadline
		}
	}
}

// answer is what one attempt got.
type answer struct {
	status     int
	body       []byte
	replayed   bool
	code       string
	detail     string
	retryAfter time.Duration
	err        error
}

func (c *Client) attempt(ctx context.Context, key string, body []byte) answer {
	actx, cancel := context.WithTimeout(ctx, c.opts.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.opts.URL, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		// The status arrived, the body did not: the answer is lost, ask again.
		return answer{err: err}
	}
	a := answer{status: resp.StatusCode, body: b, replayed: resp.Header.Get("Idempotent-Replay") == "true"}
	if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs > 0 {
		a.retryAfter = time.Duration(secs) * time.Second
	}
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	if resp.StatusCode >= 400 && json.Unmarshal(b, &p) == nil {
		a.code, a.detail = p.Code, p.Detail
	}
	return a
}

// decide says whether to retry after the n-th attempt, and after how long.
// Retried: no answer at all (a timeout, a reset, a dropped response: the
// charge may have happened, and only the same key can find out), 409 (in
// flight), 429 and 5xx. Final: 2xx, every other 4xx, and any answer the
// server marks as stored (Idempotent-Replay, or the stored 502
// charge_outcome_unknown): asking again only replays it.
func (a answer) decide(n int, o Options) (time.Duration, bool) {
	switch {
	case a.err != nil:
	case a.replayed || a.code == "charge_outcome_unknown":
		return 0, false
	case a.status == http.StatusConflict, a.status == http.StatusTooManyRequests, a.status >= 500:
	default:
		return 0, false
	}
	return max(backoff(n, o), a.retryAfter), true
}

// backoff is the capped exponential delay after attempt n with equal
// jitter: never less than half the step, so clients that failed together
// spread out without any of them hammering.
func backoff(n int, o Options) time.Duration {
	d := o.MaxDelay
	if n-1 < 30 {
		d = min(o.MaxDelay, o.BaseDelay<<(n-1))
	}
	half := d / 2
	j, err := rand.Int(rand.Reader, big.NewInt(int64(half)+1))
	if err != nil {
		return d
	}
	return half + time.Duration(j.Int64())
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
