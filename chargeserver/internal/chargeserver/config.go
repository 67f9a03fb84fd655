// Package chargeserver is the reference charge server: POST /v1/charges
// charges a card exactly once per Idempotency-Key, however often, however
// concurrently and across however many crashes the client retries.
package chargeserver

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
)

// currencyCode is the shape of a currency the served contract can list.
var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// Config is everything the server, reaper and pruner are told.
type Config struct {
	Addr     string
	Database string // sqlite:PATH or postgres://…
	// APIKeys maps API key to account; empty means "generate a development key".
	APIKeys map[string]string
	// RequireIdempotencyKey false accepts keyless POSTs during a rollout.
	RequireIdempotencyKey bool
	MaxAmountCents        int64
	Currencies            []string
	// ProcessorURL selects a remote processor; empty runs one in-process.
	ProcessorURL     string
	ProcessorTimeout time.Duration
	// StaleAfter is the claim lease: an attempt in progress longer than this
	// is presumed dead and re-driven. It must exceed ProcessorTimeout so the
	// reaper never races a live attempt that is still waiting on the processor.
	StaleAfter time.Duration
	Retention  time.Duration
	// MaxAttempts and MaxUnresolvedAge bound a claim the processor keeps
	// answering "unknown" for: after that many drives, or that long after
	// the claim, "unresolved" (502 charge_outcome_unknown) is stored as its
	// final answer instead of another re-drive.
	MaxAttempts      int
	MaxUnresolvedAge time.Duration
	// ReplayCache is how many final answers each instance keeps in memory
	// to answer replays without a database read (0 turns it off).
	// MaxClockSkew bounds how far the clocks of the instances sharing a
	// database may differ: a cached answer is dropped that long before any
	// instance's pruner could delete its claim. Every instance, and every
	// one-off prune, must run with the same --retention.
	ReplayCache   int
	MaxClockSkew  time.Duration
	ReapInterval  time.Duration
	PruneInterval time.Duration
	PruneBatch    int
	// RateLimit is requests per second per account (0 turns it off).
	RateLimit float64
	RateBurst int
	// AllowProbeDelay honours the X-Probe-Delay test header (see probeDelay):
	// off unless the server is started with --allow-probe-delay.
	AllowProbeDelay bool
	// TraceFile, when set, is where every request's OpenTelemetry span is
	// appended as OTLP JSON (--trace-file); empty: no tracing.
	TraceFile string
	// ReadHeaderTimeout cuts off a client that sends its headers too slowly
	// (slowloris); 0 means the default of 5 s.
	ReadHeaderTimeout time.Duration
	// MaxConnections bounds the open connections (keep it well below the
	// process's open-file limit); at the bound the oldest idle one is
	// closed to admit a new one. MaxIdlePerClient bounds the idle
	// connections of one client address. PreAuthIdleTimeout is how long a
	// connection that has sent no authenticated request may stay idle;
	// IdleTimeout is the same for one that has.
	MaxConnections     int
	MaxIdlePerClient   int
	PreAuthIdleTimeout time.Duration
	IdleTimeout        time.Duration
}

// seams are what a test changes in a server, a reaper or a pruner beyond
// what an operator configures: never in Config, which is the operator's.
// Production runs on realSeams.
type seams struct {
	// now is the one clock of the request handler, the driver of its
	// attempts, the reaper and the pruner (leases, retention, the replay
	// cache, the rate limiter, an unresolved claim's age).
	now func() time.Time
	// afterCharge, when set, runs after the processor answered and before
	// the answer is recorded: the crash window. Only a request's drive runs
	// it, never the reaper's.
	afterCharge func()
}

// realSeams is production's: the wall clock and no crash window.
func realSeams() seams { return seams{now: time.Now} }

// DefaultConfig is the configuration the CLI starts from.
func DefaultConfig() Config {
	return Config{
		Addr:                  "127.0.0.1:8080",
		Database:              "sqlite:charges.db",
		RequireIdempotencyKey: true,
		MaxAmountCents:        100_000_000,
		Currencies:            slices.Clone(api.DefaultCurrencies),
		ProcessorTimeout:      10 * time.Second,
		StaleAfter:            30 * time.Second,
		Retention:             24 * time.Hour,
		MaxAttempts:           20,
		MaxUnresolvedAge:      time.Hour,
		ReplayCache:           50_000,
		MaxClockSkew:          time.Minute,
		ReapInterval:          5 * time.Second,
		PruneInterval:         time.Minute,
		PruneBatch:            1000,
		RateLimit:             1000,
		RateBurst:             2000,
		MaxConnections:        10_000,
		MaxIdlePerClient:      100,
		PreAuthIdleTimeout:    5 * time.Second,
		IdleTimeout:           90 * time.Second,
	}
}

// Validate rejects configurations that would break exactly-once.
func (c Config) Validate() error {
	var errs []error
	if c.StaleAfter <= c.ProcessorTimeout {
		errs = append(errs, fmt.Errorf("--stale-after (%s) must exceed --processor-timeout (%s), or the reaper would race live attempts", c.StaleAfter, c.ProcessorTimeout))
	}
	if c.ProcessorTimeout <= 0 {
		errs = append(errs, errors.New("--processor-timeout must be positive"))
	}
	if c.Retention <= c.StaleAfter {
		errs = append(errs, errors.New("--retention must exceed --stale-after"))
	}
	if c.MaxAttempts < 1 {
		errs = append(errs, errors.New("--max-attempts must be at least 1"))
	}
	if c.MaxUnresolvedAge <= c.StaleAfter {
		errs = append(errs, errors.New("--max-unresolved-age must exceed --stale-after, or a claim would give up before its first re-drive"))
	}
	if c.ReplayCache < 0 || c.MaxClockSkew < 0 {
		errs = append(errs, errors.New("--replay-cache and --max-clock-skew must not be negative"))
	}
	if c.MaxAmountCents <= 0 {
		errs = append(errs, errors.New("--max-amount-cents must be positive"))
	}
	if len(c.Currencies) == 0 {
		errs = append(errs, errors.New("at least one currency is needed"))
	}
	for _, cur := range c.Currencies {
		if !currencyCode.MatchString(cur) {
			errs = append(errs, fmt.Errorf("--currencies: %q is not an ISO 4217 code (three capital letters)", cur))
		}
	}
	if c.PruneBatch <= 0 || c.ReapInterval <= 0 || c.PruneInterval <= 0 {
		errs = append(errs, errors.New("--prune-batch, --reap-interval and --prune-interval must be positive"))
	}
	if c.RateLimit < 0 || (c.RateLimit > 0 && c.RateBurst < 1) {
		errs = append(errs, errors.New("--rate-limit must be >= 0 and --rate-burst >= 1"))
	}
	if c.MaxConnections < 1 || c.MaxIdlePerClient < 1 || c.PreAuthIdleTimeout <= 0 || c.IdleTimeout <= 0 {
		errs = append(errs, errors.New("--max-connections, --max-idle-per-client, --pre-auth-idle-timeout and --idle-timeout must be positive"))
	}
	return errors.Join(errs...)
}

// APIKeyEntry is one KEY=ACCOUNT entry and where it was given ("--api-key 2",
// "keys.txt:7"), so an error can point at it without showing the key.
type APIKeyEntry struct {
	Where, Text string
}

// ParseAPIKeys turns entries into key -> account. A key given twice is an
// error even with the same account: with two accounts, which one it charges
// would depend on the order of the flags, and a repeated line is a sign the
// file is not what its owner thinks.
func ParseAPIKeys(entries []APIKeyEntry) (map[string]string, error) {
	keys := map[string]string{}
	where := map[string]string{}
	for _, e := range entries {
		k, acct, ok := strings.Cut(e.Text, "=")
		if !ok || k == "" || acct == "" {
			return nil, fmt.Errorf("%s: API key entry is not KEY=ACCOUNT", e.Where)
		}
		if first, dup := where[k]; dup {
			return nil, fmt.Errorf("%s: API key repeats the one at %s", e.Where, first)
		}
		keys[k], where[k] = acct, e.Where
	}
	return keys, nil
}
