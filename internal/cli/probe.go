package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/rules"
)

// probeOptions are the flags of `contractlint probe`.
type probeOptions struct {
	common
	contract    string
	headers     []string
	second      []string
	charges     string
	body        string
	concurrency int
	timeout     time.Duration
	retryAfter  time.Duration
	maxResponse int64
	allow       bool
}

func newProbeCmd(e *Env) *cobra.Command {
	var pf probeOptions
	cmd := &cobra.Command{
		Use:   "probe URL",
		Short: "Send duplicate, concurrent and mismatched requests to a live POST endpoint and judge its idempotency",
		Long: "probe runs a fixed sequence against one POST endpoint, each step with fresh random Idempotency-Keys:\n" +
			"concurrent duplicates (counted at --charges-endpoint when given), a retry after completion, a key\n" +
			"reused with two different bodies, a missing key, a reordered JSON body, a retry while the first\n" +
			"request is in flight (needs the server's " + probe.DelayHeader + " test control; skipped otherwise),\n" +
			"another account's request with the same key (--second-header), and a retry --retry-after later.\n" +
			"It creates real resources, so it refuses a host that is not this machine unless --allow-side-effects\n" +
			"is given, and prints up front how many requests it will send. With --contract it also checks the\n" +
			"answers against the documented responses and runs the idempotency lint rules on the operation.\n" +
			"URL may name an RPC method instead, grpc://HOST:PORT/package.Service/Method (grpcs://, connect://,\n" +
			"connects:// alike): the same steps, the method found by server reflection, the key in the request's\n" +
			"idempotency_key field or the idempotency-key metadata, --header sent as metadata.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProbe(cmd, e, &pf, args[0])
		},
	}
	registerLive(cmd, &pf.common, &pf.headers)
	f := cmd.Flags()
	f.StringVar(&pf.contract, "contract", "", "the endpoint's OpenAPI contract: check answers against it and lint the operation")
	f.StringArrayVar(&pf.second, "second-header", nil, "another account's credential header 'Name: value' (repeatable): "+
		"step 7 sends the first account's key and body with it and expects a new request, never the first account's answer")
	f.StringVar(&pf.charges, "charges-endpoint", "", "a GET URL (or path) on the probed host that lists the newest charges first, "+
		"such as /v1/charges?limit=100: step 1 counts the charges it created there instead of trusting the answers")
	f.DurationVar(&pf.retryAfter, "retry-after", 2*time.Second, "step 8 retries step 2's request this long after it (0 skips the step)")
	f.Int64Var(&pf.maxResponse, "max-response", probe.DefaultMaxResponse, "largest answer body in bytes; answers are compared whole, and a larger one fails its step")
	f.StringVar(&pf.body, "body", "", "request body, a JSON object, or @FILE to read it (default: a charge the bundled charge server accepts)")
	f.IntVar(&pf.concurrency, "concurrency", 8, fmt.Sprintf("concurrent duplicates in step 1 (2 to %d)", probe.MaxConcurrency))
	f.DurationVar(&pf.timeout, "timeout", 5*time.Second, "timeout of each request")
	f.BoolVar(&pf.allow, "allow-side-effects", false, "allow a host that is not this machine (the probe creates real resources there)")
	return cmd
}

func runProbe(cmd *cobra.Command, e *Env, pf *probeOptions, rawURL string) error {
	o, _, err := pf.options(e)
	if err != nil {
		return err
	}
	u, err := probeURL(rawURL)
	if err != nil {
		return err
	}
	if err := probe.CheckHost(u, pf.allow); err != nil {
		return usageErr("%v", err)
	}
	cfg := &probe.Config{URL: u, Concurrency: pf.concurrency, Timeout: pf.timeout, RetryAfter: pf.retryAfter,
		MaxResponse: pf.maxResponse, Where: rules.Location{File: u.Redacted()}}
	if cfg.Header, err = parseHeaders(pf.headers); err != nil {
		return err
	}
	if cfg.SecondHeader, err = parseHeaders(pf.second); err != nil {
		return err
	}
	if pf.charges != "" {
		if cfg.ChargesURL, err = u.Parse(pf.charges); err != nil {
			return usageErr("--charges-endpoint %q is not a URL or path", pf.charges)
		}
	}
	if cfg.Body, err = readBody(e, pf.body); err != nil {
		return err
	}
	var lint []rules.Finding
	if probe.IsRPC(u) {
		if pf.contract != "" || pf.charges != "" {
			return usageErr("probe: --contract and --charges-endpoint are for HTTP endpoints; an RPC method is found by server reflection")
		}
		if cfg.RPC, err = probe.ResolveRPC(cmd.Context(), probe.NewRPCClient(cfg.Timeout, cfg.Concurrency), u, cfg.Header); err != nil {
			return usageErr("probe: %v", err)
		}
	} else if pf.contract != "" {
		side, err := openSide(e, pf.contract)
		if err != nil {
			return err
		}
		if cfg.Op, lint, err = probe.Target(side, o, u); err != nil {
			return inputErr(err)
		}
		cfg.Where = cfg.Op.Loc
	}
	if err := cfg.Validate(); err != nil {
		return usageErr("probe: %v", err)
	}
	info := pf.progress(e)
	verb := "POST"
	if cfg.RPC != nil {
		verb = "call"
	}
	fmt.Fprintf(info, "probe: %s %s: %d steps, %d requests (concurrency %d, timeout %s)\n",
		verb, report.Clean(u.Redacted()), probe.Steps(), cfg.Requests(), cfg.Concurrency, cfg.Timeout)
	rep := probe.Run(cmd.Context(), cfg)
	if rep.Unreachable != nil {
		return usageErr("probe: %s did not answer: %v", u.Redacted(), rep.Unreachable)
	}
	var passes []report.Pass
	for _, r := range rep.Results {
		if r.Outcome == probe.Pass {
			passes = append(passes, report.Pass{Where: cfg.Where, Rule: r.Rule, Message: r.Message})
		}
	}
	if rep.Sent != rep.Planned {
		fmt.Fprintf(info, "probe: sent %d of the %d requests\n", rep.Sent, rep.Planned)
	}
	fs := append(rep.Findings(cfg, o.Registry), lint...)
	rules.SortFindings(fs)
	return pf.emit(e, &report.Report{Findings: fs, Passes: passes}, o)
}

// parseHeaders reads --header 'Name: value' flags.
func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, s := range hs {
		name, value, ok := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
			return nil, usageErr("--header %q: want 'Name: value'", s)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// readBody reads --body: literal JSON, @FILE, or the default charge.
func readBody(e *Env, arg string) ([]byte, error) {
	switch {
	case arg == "":
		return []byte(probe.DefaultBody), nil
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(e.abs(arg[1:]))
		if err != nil {
			return nil, usageErr("--body: %s: %v", arg[1:], unwrapPath(err))
		}
		return b, nil
	}
	return []byte(arg), nil
}

// probeURL is an http(s) endpoint or an RPC method (grpc://, connect://).
func probeURL(raw string) (*url.URL, error) {
	if u, err := url.Parse(raw); err == nil && probe.IsRPC(u) {
		return u, nil
	}
	return liveURL("probe", raw)
}
