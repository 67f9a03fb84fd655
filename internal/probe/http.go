package probe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// kept is how much of an answer's body a reply holds for messages and
// fields; the comparison uses the digest of the whole body.
const kept = 64 << 10

// NewClient returns the probe's HTTP client: every phase bounded by timeout,
// no proxy (a proxy would carry loopback-checked requests elsewhere), and no
// redirects followed: a 3xx is an answer to judge, and following it would
// send the POST again, possibly to another host.
func NewClient(timeout time.Duration, conns int) *http.Client {
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: timeout}).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// CheckHost refuses a host that is not this machine unless side effects are
// allowed: the probe creates real resources (real charges) wherever it points.
func CheckHost(u *url.URL, allowSideEffects bool) error {
	if allowSideEffects || IsLoopback(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("refusing to probe %s: the probe sends real requests that create real resources "+
		"(%s is not a loopback address); pass --allow-side-effects to probe it anyway", u.Redacted(), u.Hostname())
}

// IsLoopback reports whether host is localhost or a loopback IP literal.
// Other names are not resolved: what a name resolves to can change between
// the check and the requests.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newKey returns a fresh random idempotency key, so no step can meet a key
// an earlier step (or an earlier run) left behind.
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "probe-" + hex.EncodeToString(b[:])
}

// reply is one answer, or the error that stood in for it.
type reply struct {
	Status int
	Header http.Header
	// Body is the body's first kept bytes; Digest covers all of it.
	Body   []byte
	Digest [32]byte
	Err    error
}

func (r reply) ok() bool { return r.Err == nil && r.Status >= 200 && r.Status < 300 }

// same reports whether two answers carry the same content, judged on their
// whole bodies (see digest).
func (r reply) same(o reply) bool { return r.Err == nil && o.Err == nil && r.Digest == o.Digest }

// answered reports whether the server answered at all: an answer over the
// size cap is an answer the probe could not compare, not a dead server.
func (r reply) answered() bool {
	var big *tooLarge
	return r.Err == nil || errors.As(r.Err, &big)
}

// tooLarge is an answer whose body is over the cap: comparing only its
// beginning would let two different answers pass as one.
type tooLarge struct{ limit int64 }

func (e *tooLarge) Error() string {
	return fmt.Sprintf("a body over the %d-byte cap (--max-response), which the probe cannot compare whole", e.limit)
}

// replayed reports whether the server marked the answer as a stored one.
func (r reply) replayed() bool { return strings.EqualFold(r.Header.Get("Idempotent-Replay"), "true") }

func (r reply) retryAfter() bool { return r.Err == nil && r.Header.Get("Retry-After") != "" }

// describe names the answer for a message: status and a short body excerpt.
func (r reply) describe() string {
	var big *tooLarge
	switch {
	case errors.As(r.Err, &big):
		return fmt.Sprintf("%d with %s", r.Status, big)
	case r.Err != nil:
		return "no answer (" + r.Err.Error() + ")"
	}
	return fmt.Sprintf("%d %s", r.Status, excerpt(r.Body))
}

// excerpt is a body shortened for a one-line message.
func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	const max = 100
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// sender sends the sequence's requests, counts them and refuses to go past
// the budget computed up front.
type sender struct {
	client *http.Client
	cfg    *Config

	mu      sync.Mutex
	budget  int
	n       int
	replies []reply
}

func newSender(c *http.Client, cfg *Config, budget int) *sender {
	return &sender{client: c, cfg: cfg, budget: budget}
}

var errBudget = errors.New("request budget exhausted")

// do sends one POST with key ("" sends none), body and extra headers.
func (s *sender) do(ctx context.Context, key string, body []byte, extra http.Header) reply {
	if !s.take() {
		return reply{Err: errBudget}
	}
	var r reply
	if s.cfg.RPC != nil {
		r = s.cfg.RPC.call(ctx, s.cfg, key, body, extra)
	} else {
		r = s.roundTrip(ctx, key, body, extra)
	}
	s.mu.Lock()
	s.replies = append(s.replies, r)
	s.mu.Unlock()
	return r
}

func (s *sender) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n >= s.budget {
		return false
	}
	s.n++
	return true
}

func (s *sender) roundTrip(ctx context.Context, key string, body []byte, extra http.Header) reply {
	// The body is wrapped so the request has no GetBody: net/http replays a
	// request carrying an Idempotency-Key on a broken pooled connection when it
	// can rewind the body, and the probe must send exactly what it counted.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL.String(), io.NopCloser(bytes.NewReader(body)))
	if err != nil {
		return reply{Err: err}
	}
	req.ContentLength = int64(len(body))
	req.Header = s.cfg.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	} else {
		req.Header.Del("Idempotency-Key")
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return reply{Err: trimURLError(err)}
	}
	defer resp.Body.Close()
	b, err := s.readCapped(resp.Body)
	r := reply{Status: resp.StatusCode, Header: resp.Header, Body: b[:min(len(b), kept)], Err: err}
	if err == nil {
		r.Digest = digest(b)
	}
	return r
}

// readCapped reads a whole body of at most the configured cap.
func (s *sender) readCapped(body io.Reader) ([]byte, error) {
	limit := s.cfg.maxResponse()
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	switch {
	case err != nil:
		return b, fmt.Errorf("reading the response: %w", err)
	case int64(len(b)) > limit:
		return b, &tooLarge{limit: limit}
	}
	return b, nil
}

// get fetches u with the probe's headers (its credentials) and returns a
// 2xx body; it counts against the same budget as the POSTs.
func (s *sender) get(ctx context.Context, u *url.URL) ([]byte, error) {
	if !s.take() {
		return nil, errBudget
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header = s.cfg.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Del("Idempotency-Key")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, trimURLError(err)
	}
	defer resp.Body.Close()
	b, err := s.readCapped(resp.Body)
	switch {
	case err != nil:
		return nil, err
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, fmt.Errorf("GET %s answered %d %s", u.Redacted(), resp.StatusCode, excerpt(b))
	}
	return b, nil
}

// trimURLError drops the method and URL net/http prefixes: every message is
// already about that URL.
func trimURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (s *sender) sent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *sender) log() []reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]reply(nil), s.replies...)
}
