// Package replay sends the requests an OpenAPI contract describes to a live
// server and checks every answer against that contract with kin-openapi's
// openapi3filter: an old contract against a new server shows what breaks the
// clients already in users' hands; a new contract against an old server, the
// forward direction.
//
// Requests come from the contract (examples, then values derived from the
// schemas: required fields only, then all fields), from a fixtures file, and
// from earlier responses of the same run (a created resource's id feeds the
// read of it). A run is bounded by a request cap, a time cap and a rate.
package replay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// maxResponse is how much of a response body replay reads and validates.
const maxResponse = 1 << 20

// Config is one run's target and budgets.
type Config struct {
	// Base is the server's URL; each request goes to Base's path followed
	// by the operation's path.
	Base   *url.URL
	Header http.Header
	// MaxRequests and MaxTime cap the run; Rate is requests per second
	// (0: no limit).
	MaxRequests int
	MaxTime     time.Duration
	Rate        float64
	// Client sends the requests; nil means probe.NewClient (no proxy, no
	// redirects followed).
	Client *http.Client
	// now and after are the clock the rate is kept by; nil means the
	// wall clock (tests pace without sleeping).
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// Validate rejects budgets a run cannot keep.
func (c *Config) Validate() error {
	switch {
	case c.Base == nil || (c.Base.Scheme != "http" && c.Base.Scheme != "https") || c.Base.Host == "":
		return errors.New("the URL must be an absolute http or https URL")
	case c.MaxRequests < 1:
		return fmt.Errorf("--max-requests must be at least 1, got %d", c.MaxRequests)
	case c.MaxTime <= 0:
		return errors.New("--max-time must be positive")
	case c.Rate < 0:
		return fmt.Errorf("--rate must not be negative, got %g", c.Rate)
	}
	return nil
}

// Result is one request and what its answer showed.
type Result struct {
	Request *Request
	// Sent is the request line as it went out ("GET /v1/charges/ch_1").
	Sent   string
	Status int
	// Problem is empty when the answer matched the contract.
	Problem *Problem
}

// Problem is one way an answer (or its absence) disagrees with the contract.
type Problem struct {
	Rule    string
	Message string
	// Pointer is the JSON pointer of the first mismatch in the body, or
	// "header NAME".
	Pointer string
	Where   rules.Location
}

// Report is a run's results and cost.
type Report struct {
	Results []Result
	NotSent []Skip
	Sent    int
	// Unreachable is why the first request got no answer; the run stops.
	Unreachable error
}

// runner is one run's state.
type runner struct {
	doc    *openapi.Doc
	cfg    *Config
	mem    memory
	next   time.Time
	client *http.Client
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time
}

// Run sends the plan in order within the budgets and validates each answer
// against doc. Requests the budgets leave out are reported as not sent.
func Run(ctx context.Context, doc *openapi.Doc, p *Plan, c *Config) *Report {
	ctx, cancel := context.WithTimeout(ctx, c.MaxTime)
	defer cancel()
	r := &runner{doc: doc, cfg: c, mem: memory{}, client: c.Client, now: c.now, after: c.after}
	if r.now == nil {
		r.now, r.after = time.Now, time.After
	}
	if r.client == nil {
		r.client = probe.NewClient(10*time.Second, 2)
	}
	rep := &Report{NotSent: append([]Skip(nil), p.Skipped...)}
	timeUp := fmt.Sprintf("the time cap (--max-time %s) ran out", c.MaxTime)
	for i, req := range p.Requests {
		if rep.Sent >= c.MaxRequests {
			rep.NotSent = append(rep.NotSent, Skip{req.Op, fmt.Sprintf("the request cap (--max-requests %d) was reached", c.MaxRequests)})
			continue
		}
		if !r.wait(ctx) {
			rep.NotSent = append(rep.NotSent, Skip{req.Op, timeUp})
			continue
		}
		hr, err := r.build(ctx, req)
		if err != nil {
			rep.NotSent = append(rep.NotSent, Skip{req.Op, "the contract's values make no valid HTTP request: " + trimURLError(err).Error()})
			continue
		}
		res, err := r.send(req, hr)
		rep.Sent++
		switch {
		case err != nil && ctx.Err() != nil:
			// Cut by the time cap, not unanswered by the server.
			rep.NotSent = append(rep.NotSent, Skip{req.Op, timeUp + " while it was in flight"})
		case err != nil && i == 0:
			rep.Unreachable = err
			return rep
		default:
			rep.Results = append(rep.Results, res)
		}
	}
	return rep
}

// wait keeps the rate; false when the time cap ends first.
func (r *runner) wait(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if r.cfg.Rate > 0 {
		now := r.now()
		d := r.next.Sub(now)
		r.next = now.Add(max(d, 0) + time.Duration(float64(time.Second)/r.cfg.Rate))
		if d > 0 {
			select {
			case <-r.after(d):
			case <-ctx.Done():
				return false
			}
		}
	}
	return true
}

// send sends one request and judges the answer; the error is set only
// when no answer came.
func (r *runner) send(req *Request, hr *http.Request) (Result, error) {
	res := Result{Request: req, Sent: hr.Method + " " + hr.URL.RequestURI()}
	resp, err := r.client.Do(hr)
	if err != nil {
		err = trimURLError(err)
		res.Problem = &Problem{Rule: rules.ReplayNoAnswer, Where: req.Op.Loc,
			Message: fmt.Sprintf("%s: %s got no answer: %v", opName(req.Op), res.Sent, err)}
		return res, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		res.Problem = &Problem{Rule: rules.ReplayNoAnswer, Where: req.Op.Loc,
			Message: fmt.Sprintf("%s: %s: reading the answer failed: %v", opName(req.Op), res.Sent, err)}
		return res, nil
	}
	res.Status = resp.StatusCode
	res.Problem = r.check(hr.Context(), req, hr, resp, body)
	if resp.StatusCode/100 == 2 {
		r.mem.learn(req.Op.Template, body)
	}
	return res, nil
}

// build makes the HTTP request: path values (fed from earlier answers
// where the plan says so), query, headers, body, and a fresh
// Idempotency-Key for every POST and every operation that declares one.
func (r *runner) build(ctx context.Context, req *Request) (*http.Request, error) {
	// Path is the decoded form, RawPath the escaped one: a value's "/" or
	// "?" stays inside its segment.
	plain, escaped := req.Op.Template, req.Op.Template
	for name, v := range req.Path {
		if from, ok := req.Feeds[name]; ok {
			if got, ok := r.mem.lookup(from, name); ok {
				v = got
			}
		}
		plain = strings.ReplaceAll(plain, "{"+name+"}", v)
		escaped = strings.ReplaceAll(escaped, "{"+name+"}", url.PathEscape(v))
	}
	u := *r.cfg.Base
	u.Path = strings.TrimRight(r.cfg.Base.Path, "/") + plain
	u.RawPath = strings.TrimRight(r.cfg.Base.EscapedPath(), "/") + escaped
	q := url.Values{}
	for _, kv := range req.Query {
		q.Add(kv[0], kv[1])
	}
	u.RawQuery = q.Encode()
	// The body is wrapped so the request has no GetBody: net/http would
	// resend a POST on a broken pooled connection, and replay sends exactly
	// what it counts.
	hr, err := http.NewRequestWithContext(ctx, req.Op.Method, u.String(), io.NopCloser(bytes.NewReader(req.Body)))
	if err != nil {
		return nil, err
	}
	hr.ContentLength = int64(len(req.Body))
	if req.Body == nil {
		hr.Body = http.NoBody
	}
	hr.Header = r.cfg.Header.Clone()
	if hr.Header == nil {
		hr.Header = http.Header{}
	}
	for k, v := range req.Header {
		for _, x := range v {
			if strings.ContainsAny(x, "\r\n\x00") {
				return nil, fmt.Errorf("header %s: a value with a line break or NUL", k)
			}
		}
		hr.Header[k] = v
	}
	if req.ContentType != "" {
		hr.Header.Set("Content-Type", req.ContentType)
	}
	if freshKey(req.Op) {
		hr.Header.Set("Idempotency-Key", "replay-"+rand.Text())
	}
	return hr, nil
}

func declares(op *Operation, header string) bool {
	for _, p := range allParams(op) {
		if p.In == "header" && strings.EqualFold(p.Name, header) {
			return true
		}
	}
	return false
}

// trimURLError drops the method and URL net/http puts in front: the
// message already names the request.
func trimURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// memory holds what earlier answers said: the id of the last resource an
// operation on each path returned, and every top-level scalar by name.
type memory map[string]string

func (m memory) learn(template string, body []byte) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, x := range obj {
		if s, ok := idString(x); ok {
			m["field "+k] = s
		}
	}
	if id, ok := idString(obj["id"]); ok {
		m["path "+template] = id
		return
	}
	// A list: the first item's id.
	for _, x := range obj {
		if list, ok := x.([]any); ok && len(list) > 0 {
			if item, ok := list[0].(map[string]any); ok {
				if id, ok := idString(item["id"]); ok {
					m["path "+template] = id
					return
				}
			}
		}
	}
}

// lookup is the value for parameter name under collection path from: the
// collection's last id, else a field of that name any answer carried.
func (m memory) lookup(from, name string) (string, bool) {
	if v, ok := m["path "+from]; ok {
		return v, true
	}
	v, ok := m["field "+name]
	return v, ok
}

func idString(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, v != ""
	case float64:
		return scalar(v), true
	}
	return "", false
}

func opName(op *Operation) string {
	if op.Name == op.ID {
		return op.ID
	}
	return op.Name + " (" + op.ID + ")"
}
