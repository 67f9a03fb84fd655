// Package probe checks a live POST endpoint's idempotency from the outside:
// it sends a fixed sequence of real requests (concurrent duplicates, a retry,
// a key reused with two different bodies, a missing key, a reordered body, a
// retry while the first is in flight, another account's request with the
// same key, a retry after a delay), each with fresh random keys, and judges
// the answers, compared whole by digest. Where answers can hide an effect
// (duplicates each charged but answered alike, or answered 500), it counts
// the effects in a list of charges the server serves, when given one.
//
// The in-flight step needs the server's help to hold a request open. The
// probe sends DelayHeader (for example "X-Probe-Delay: 2s") on the first
// request of that step; a server that honours it (only ever behind a test
// switch) delays that request's work by the duration and echoes the header
// on its response. Without the echo the step is skipped with a note.
package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/contractlint/contractlint/rules"
)

// DelayHeader is the opt-in test control for the in-flight step.
const DelayHeader = "X-Probe-Delay"

// MaxConcurrency caps the concurrent duplicates of step 1, and so the
// requests one run can send.
const MaxConcurrency = 64

// maxDelay is the longest the in-flight step asks the server to wait.
const maxDelay = 2 * time.Second

// DefaultMaxResponse is the default cap on an answer's size: the probe
// compares whole bodies, and an answer over the cap fails its step.
const DefaultMaxResponse = 1 << 20

// MaxMaxResponse bounds --max-response: at most MaxConcurrency answers of
// this size are held at once.
const MaxMaxResponse = 16 << 20

// Config is one probe run.
type Config struct {
	URL    *url.URL
	Header http.Header
	// SecondHeader holds another account's credentials: the headers that
	// replace Header's of the same name on the account-scope step's second
	// request. Empty skips that step.
	SecondHeader http.Header
	// ChargesURL, on URL's host, lists the charges (newest first): step 1
	// counts what it created there instead of trusting the answers. Nil
	// judges the answers alone.
	ChargesURL *url.URL
	// RetryAfter is how long after its first request the delayed-retry step
	// retries; 0 skips that step.
	RetryAfter time.Duration
	// MaxResponse caps each answer's size in bytes; 0 means
	// DefaultMaxResponse.
	MaxResponse int64
	// Body is the request body, a JSON object.
	Body        []byte
	Concurrency int
	Timeout     time.Duration
	// Op is the contract's operation for URL; nil without a contract.
	Op *rules.Operation
	// Where is what findings point at: Op's line, or the URL.
	Where rules.Location
	// Client sends the requests; nil means NewClient(Timeout, Concurrency).
	Client *http.Client
	// RPC, for a grpc:// or connect:// URL, is the method the requests call
	// instead (see grpc.go).
	RPC *RPC
}

// Validate rejects a configuration the sequence cannot run with.
func (c *Config) Validate() error {
	if err := c.validateRPC(); err != nil {
		return err
	}
	switch {
	case c.RPC == nil && (c.URL == nil || (c.URL.Scheme != "http" && c.URL.Scheme != "https") || c.URL.Host == ""):
		return fmt.Errorf("the URL must be an absolute http or https URL")
	case c.Concurrency < 2 || c.Concurrency > MaxConcurrency:
		return fmt.Errorf("--concurrency must be from 2 to %d, got %d", MaxConcurrency, c.Concurrency)
	case c.Timeout <= 0:
		return fmt.Errorf("--timeout must be positive")
	case c.RetryAfter < 0 || c.RetryAfter > maxRetryAfter:
		return fmt.Errorf("--retry-after must be from 0 to %s, got %s", maxRetryAfter, c.RetryAfter)
	case c.MaxResponse < 0 || c.MaxResponse > MaxMaxResponse:
		return fmt.Errorf("--max-response must be from 1 to %d bytes, got %d", MaxMaxResponse, c.MaxResponse)
	}
	if err := c.validateSecond(); err != nil {
		return err
	}
	if u := c.ChargesURL; u != nil && (u.Scheme != c.URL.Scheme || u.Host != c.URL.Host) {
		// The list is fetched with the probe's credentials: never send them
		// to another origin.
		return fmt.Errorf("--charges-endpoint must be on %s://%s, the probed URL's origin", c.URL.Scheme, c.URL.Host)
	}
	if _, err := parseObject(c.Body); err != nil {
		return fmt.Errorf("--body: %v", err)
	}
	if _, err := mutate(c.Body); err != nil {
		return fmt.Errorf("--body: %v", err)
	}
	return nil
}

// maxRetryAfter bounds --retry-after: the run waits that long.
const maxRetryAfter = time.Hour

// validateSecond checks that SecondHeader really is another credential.
func (c *Config) validateSecond() error {
	if len(c.SecondHeader) == 0 {
		return nil
	}
	for name, vs := range c.SecondHeader {
		if !slices.Equal(c.Header.Values(name), vs) {
			return nil
		}
	}
	return fmt.Errorf("--second-header repeats the --header values: the account-scope step needs another account's credentials")
}

func (c *Config) maxResponse() int64 {
	if c.MaxResponse == 0 {
		return DefaultMaxResponse
	}
	return c.MaxResponse
}

// Outcome is how a step ended.
type Outcome uint8

const (
	Pass Outcome = iota + 1
	Fail
	Skip
)

func (o Outcome) String() string {
	return [...]string{"", "pass", "fail", "skip"}[o]
}

// Result is one judged step (or one contract discrepancy).
type Result struct {
	Rule    string
	Outcome Outcome
	Message string
	// Where overrides Config.Where (a documented response's line).
	Where *rules.Location
}

// Report is what a run found and what it cost.
type Report struct {
	Results []Result
	// Planned is Requests() of the config; Sent is what went out.
	Planned, Sent int
	// Unreachable is why no request of step 1 got an answer; the run stops
	// there, with no results.
	Unreachable error
}

// step is one stage of the sequence: its rule, how many requests it sends
// and how it runs.
type step struct {
	rule     string
	requests func(*Config) int
	run      func(*prober, context.Context) Result
}

func fixed(n int) func(*Config) int { return func(*Config) int { return n } }

// sequence is the fixed order of issue 7; nothing is sent outside it.
var sequence = []step{
	{rules.ProbeConcurrentDuplicates, concurrentRequests, (*prober).concurrent},
	{rules.ProbeRetryReplay, fixed(2), (*prober).retry},
	{rules.ProbeKeyReuseMismatch, reuseRequests, (*prober).reuse},
	{rules.ProbeMissingKey, missingKeyRequests, (*prober).missingKey},
	{rules.ProbeReorderedBody, fixed(2), (*prober).reordered},
	{rules.ProbeInFlightConflict, fixed(3), (*prober).inFlight},
	{rules.ProbeKeyAccountScope, accountScopeRequests, (*prober).accountScope},
	{rules.ProbeDelayedRetry, delayedRetryRequests, (*prober).delayedRetry},
}

// concurrentRequests is the duplicates, and the two listings of the
// charges endpoint around them when there is one.
func concurrentRequests(c *Config) int {
	if c.ChargesURL != nil {
		return c.Concurrency + 2
	}
	return c.Concurrency
}

// Steps is how many steps the sequence has.
func Steps() int { return len(sequence) }

// Requests is the exact number of requests a run of c sends.
func (c *Config) Requests() int {
	n := 0
	for _, s := range sequence {
		n += s.requests(c)
	}
	return n
}

// Run sends the sequence and judges every step, then (with a contract)
// compares every answer with the documented responses. It never sends more
// than c.Requests() requests, and stops after step 1 when the endpoint
// refuses every request (a wrong key or body) or does not answer at all.
func Run(ctx context.Context, c *Config) *Report {
	client := c.Client
	if client == nil {
		client = NewClient(c.Timeout, c.Concurrency)
	}
	p := &prober{cfg: c, send: newSender(client, c, c.Requests())}
	rep := &Report{Planned: c.Requests()}
	for _, s := range sequence {
		res := s.run(p, ctx)
		if p.unreachable != nil {
			rep.Unreachable = p.unreachable
			rep.Sent = p.send.sent()
			return rep
		}
		rep.Results = append(rep.Results, res)
		if p.stopped {
			break
		}
	}
	if c.Op != nil {
		rep.Results = append(rep.Results, checkContract(c.Op, p.send.log())...)
	}
	rep.Sent = p.send.sent()
	return rep
}

// Findings turns failed and skipped steps into findings: a failure under the
// step's rule, a skip under probe-step-skipped naming the step's rule, each at
// its rule's declared severity. Passed steps are not findings.
func (r *Report) Findings(c *Config, reg *rules.Registry) []rules.Finding {
	var out []rules.Finding
	for _, res := range r.Results {
		if res.Outcome == Pass {
			continue
		}
		f := rules.Finding{Rule: res.Rule, Severity: rules.Error, Message: res.Message, Where: c.Where}
		if res.Outcome == Skip {
			f.Rule, f.Severity, f.Message = rules.ProbeStepSkipped, rules.Info, res.Rule+": "+res.Message
		}
		if rule, ok := reg.Get(f.Rule); ok {
			f.Severity = rule.Severity
		}
		if res.Where != nil {
			f.Where = *res.Where
		}
		if c.Op != nil {
			f.Operations, f.Path, f.Format = []string{c.Op.ID}, c.Op.Path, rules.OpenAPI
		}
		out = append(out, f)
	}
	return out
}

// prober holds one run's state.
type prober struct {
	cfg  *Config
	send *sender
	// stopped is set when the endpoint refuses the probe's request outright.
	stopped bool
	// unreachable is set when no request of step 1 got any answer.
	unreachable error
	// earlier is step 2's first request, for step 8.
	earlier retried
}

// delay is how long the in-flight step asks the server to hold its first
// request: long enough to land a retry inside it, well inside the timeout.
func (c *Config) delay() time.Duration {
	return min(maxDelay, c.Timeout/2)
}
