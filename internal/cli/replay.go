package cli

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/internal/replay"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// replayOptions are the flags of `contractlint replay`.
type replayOptions struct {
	common
	contract    string
	fixtures    string
	headers     []string
	remote      bool
	sideEffects bool
	maxRequests int
	maxTime     time.Duration
	rate        float64
	timeout     time.Duration
}

func newReplayCmd(e *Env) *cobra.Command {
	var rf replayOptions
	cmd := &cobra.Command{
		Use:   "replay --contract SPEC URL",
		Short: "Send the requests a contract describes to a live server and check every answer against that contract",
		Long: "replay builds requests from an OpenAPI contract (its examples, then values derived from its schemas:\n" +
			"required fields only, then all fields), sends them to the server at URL and validates every answer\n" +
			"against the same contract: status documented, body and headers as the schemas say. Run an OLD\n" +
			"contract against a NEW server to see what breaks the clients already in users' hands, or a NEW\n" +
			"contract against an OLD server for the forward direction.\n\n" +
			"Path parameters come from --fixtures, from an earlier answer in the same run (a created resource's\n" +
			"id feeds the read of it: creates go first), or from examples. The plan is printed before anything\n" +
			"is sent. Only this machine is a target unless --allow-remote; only GET, HEAD and OPTIONS are sent\n" +
			"unless --allow-side-effects (then each POST carries a fresh Idempotency-Key).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, e, &rf, args[0])
		},
	}
	registerLive(cmd, &rf.common, &rf.headers)
	f := cmd.Flags()
	f.StringVar(&rf.contract, "contract", "", "the OpenAPI contract whose clients to play (required)")
	_ = cmd.MarkFlagRequired("contract")
	f.StringVar(&rf.fixtures, "fixtures", "", "YAML file: operationId -> {params: {name: value}, body: ...}")
	f.BoolVar(&rf.remote, "allow-remote", false, "allow a server that is not this machine")
	f.BoolVar(&rf.sideEffects, "allow-side-effects", false, "also send POST, PUT, PATCH and DELETE (they change state on the server)")
	f.IntVar(&rf.maxRequests, "max-requests", 100, "send at most this many requests")
	f.DurationVar(&rf.maxTime, "max-time", time.Minute, "stop sending after this long")
	f.Float64Var(&rf.rate, "rate", 10, "at most this many requests per second (0: no limit)")
	f.DurationVar(&rf.timeout, "timeout", 5*time.Second, "timeout of each request")
	return cmd
}

func runReplay(cmd *cobra.Command, e *Env, rf *replayOptions, rawURL string) error {
	o, _, err := rf.options(e)
	if err != nil {
		return err
	}
	if u, err := url.Parse(rawURL); err == nil && probe.IsRPC(u) {
		return runReplayRPC(cmd, e, rf, o, u)
	}
	u, err := liveURL("replay", rawURL)
	if err != nil {
		return err
	}
	if !rf.remote && !probe.IsLoopback(u.Hostname()) {
		return usageErr("refusing to replay against %s: %s is not a loopback address and replay sends real requests; "+
			"pass --allow-remote to send them anyway", u.Redacted(), u.Hostname())
	}
	cfg := &replay.Config{Base: u, MaxRequests: rf.maxRequests, MaxTime: rf.maxTime, Rate: rf.rate}
	if err := cfg.Validate(); err != nil {
		return usageErr("replay: %v", err)
	}
	if rf.timeout <= 0 {
		return usageErr("replay: --timeout must be positive")
	}
	cfg.Client = probe.NewClient(rf.timeout, 2)
	if cfg.Header, err = parseHeaders(rf.headers); err != nil {
		return err
	}
	doc, err := loadReplayContract(e, rf.contract, o)
	if err != nil {
		return err
	}
	fx, err := readFixtures(e, rf.fixtures, doc, o)
	if err != nil {
		return err
	}
	plan := replay.NewPlan(doc, replay.Options{Fixtures: fx, SideEffects: rf.sideEffects})
	info := rf.progress(e)
	fmt.Fprintf(info, "replay: %s against %s: %d requests planned (at most %d, for at most %s, %s)\n",
		report.Clean(rf.contract), report.Clean(u.Redacted()), len(plan.Requests), cfg.MaxRequests, cfg.MaxTime, rateText(cfg.Rate))
	plan.Write(info, report.Clean)
	rep := replay.Run(cmd.Context(), doc, plan, cfg)
	if rep.Unreachable != nil {
		return usageErr("replay: %s did not answer: %v", u.Redacted(), rep.Unreachable)
	}
	fmt.Fprintf(info, "replay: sent %d of %d requests\n", rep.Sent, len(plan.Requests))
	return rf.emit(e, &report.Report{Findings: rep.Findings(o.Registry)}, o)
}

func rateText(r float64) string {
	if r == 0 {
		return "no rate limit"
	}
	return fmt.Sprintf("%g requests a second", r)
}

// loadReplayContract reads --contract inside its repository, within the
// read limits, as diff and lint read contracts.
func loadReplayContract(e *Env, name string, o pipeline.Options) (*openapi.Doc, error) {
	side, err := openSide(e, name)
	if err != nil {
		return nil, err
	}
	if pipeline.FormatOf(side) != rules.OpenAPI {
		return nil, usageErr("%s: replay needs an OpenAPI document", name)
	}
	doc, err := openapi.Load(o.Limits.Guard(side.Src, side.Display), side.Files[0], side.Display)
	if err != nil {
		return nil, inputErr(err)
	}
	return doc, nil
}

// readFixtures reads --fixtures (nothing without it) and checks that it
// names only operations and parameters the contract has. The file is read
// as a contract is, through its repository's boundary and the read limits:
// it comes with the same change, so a link out, a device, a pipe or an
// alias bomb is refused before a byte of it is decoded.
func readFixtures(e *Env, name string, doc *openapi.Doc, o pipeline.Options) (replay.Fixtures, error) {
	if name == "" {
		return nil, nil
	}
	side, err := openSide(e, name)
	if err != nil {
		return nil, usageErr("--fixtures: %v", err)
	}
	b, err := o.Limits.Guard(side.Src, side.Display).ReadFile(side.Files[0])
	var limit source.Problems // a limit hit, already named with its flag
	switch {
	case errors.As(err, &limit):
		return nil, inputErr(err)
	case err != nil:
		return nil, usageErr("--fixtures: %v", err)
	}
	fx, err := replay.ParseFixtures(name, b)
	if err == nil {
		err = fx.Check(name, doc)
	}
	if err != nil {
		return nil, inputErr(err)
	}
	return fx, nil
}
