// Package chargecli holds the charge-server and charge-client commands. They
// are their own binaries (cmd/charge-server, cmd/charge-client) so the linter
// a CI job builds links no database driver.
package chargecli

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// traceFileEnv turns tracing on when --trace-file is not given.
const traceFileEnv = "CHARGE_SERVER_TRACE_FILE"

// chargeServerOptions are the flags of charge-server and its subcommands.
type chargeServerOptions struct {
	cfg         chargeserver.Config
	apiKeys     []string
	apiKeysFile string
}

func newChargeServerCmd(e *env) *cobra.Command {
	o := &chargeServerOptions{cfg: chargeserver.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   "charge-server",
		Short: "Run the reference charge server, which charges exactly once per Idempotency-Key",
		Long: "charge-server serves POST /v1/charges with idempotency done right: one claim per (account, route, key), " +
			"stored responses replayed with Idempotent-Replay, 409 while in flight, 422 for a reused key, a reaper " +
			"for crashed attempts and a pruner for keys past retention. Its contract is served at GET /openapi.yaml.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChargeServer(cmd.Context(), e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.cfg.Addr, "addr", o.cfg.Addr, "listen address")
	f.StringArrayVar(&o.apiKeys, "api-key", nil, "API key as KEY=ACCOUNT (repeatable); none given: a development key is generated and printed")
	f.StringVar(&o.apiKeysFile, "api-keys", "", "file of KEY=ACCOUNT lines (# comments)")
	f.BoolVar(&o.cfg.RequireIdempotencyKey, "require-idempotency-key", true, "refuse POSTs without Idempotency-Key (false during a rollout: they are accepted and counted)")
	f.Int64Var(&o.cfg.MaxAmountCents, "max-amount-cents", o.cfg.MaxAmountCents, "largest amount accepted, in minor units")
	f.StringSliceVar(&o.cfg.Currencies, "currencies", o.cfg.Currencies, "accepted ISO 4217 currencies")
	f.DurationVar(&o.cfg.ReapInterval, "reap-interval", o.cfg.ReapInterval, "how often the reaper runs")
	f.DurationVar(&o.cfg.PruneInterval, "prune-interval", o.cfg.PruneInterval, "how often the pruner runs")
	f.IntVar(&o.cfg.ReplayCache, "replay-cache", o.cfg.ReplayCache, "final answers kept in memory to answer replays without a database read (0: off)")
	f.DurationVar(&o.cfg.MaxClockSkew, "max-clock-skew", o.cfg.MaxClockSkew, "largest clock difference between instances sharing the database; a cached answer is dropped this long before its key may be pruned")
	f.Float64Var(&o.cfg.RateLimit, "rate-limit", o.cfg.RateLimit, "requests per second per account (0: unlimited)")
	f.IntVar(&o.cfg.RateBurst, "rate-burst", o.cfg.RateBurst, "burst allowed above --rate-limit")
	f.IntVar(&o.cfg.MaxConnections, "max-connections", o.cfg.MaxConnections, "open connections at most (keep it well below the open-file limit); at the bound the longest idle one is closed")
	f.IntVar(&o.cfg.MaxIdlePerClient, "max-idle-per-client", o.cfg.MaxIdlePerClient, "idle connections kept per client address")
	f.DurationVar(&o.cfg.PreAuthIdleTimeout, "pre-auth-idle-timeout", o.cfg.PreAuthIdleTimeout, "idle timeout of a connection that has sent no authenticated request")
	f.DurationVar(&o.cfg.IdleTimeout, "idle-timeout", o.cfg.IdleTimeout, "idle timeout of a connection that has")
	f.BoolVar(&o.cfg.AllowProbeDelay, "allow-probe-delay", false, "TESTING ONLY: honour the X-Probe-Delay request header "+
		"(hold a claimed charge up to 5s before the processor call, echoing the header) so contractlint probe can check a retry in flight")
	f.StringVar(&o.cfg.TraceFile, "trace-file", e.Getenv(traceFileEnv), "append an OpenTelemetry span of every request to this file as OTLP JSON, "+
		"one {\"resourceSpans\":[...]} document a line, as the collector's file exporter writes (default: $"+traceFileEnv+"; empty: off)")
	p := cmd.PersistentFlags()
	p.StringVar(&o.cfg.Database, "database", o.cfg.Database, "sqlite:PATH or postgres://… URL")
	p.StringVar(&o.cfg.ProcessorURL, "processor", "", "URL of a charge-server processor service (default: in-process)")
	p.DurationVar(&o.cfg.ProcessorTimeout, "processor-timeout", o.cfg.ProcessorTimeout, "longest wait for the processor")
	p.DurationVar(&o.cfg.StaleAfter, "stale-after", o.cfg.StaleAfter, "re-drive attempts in progress longer than this (must exceed --processor-timeout)")
	p.DurationVar(&o.cfg.Retention, "retention", o.cfg.Retention, "how long idempotency keys are kept")
	p.IntVar(&o.cfg.PruneBatch, "prune-batch", o.cfg.PruneBatch, "keys deleted per pruning statement")
	p.IntVar(&o.cfg.MaxAttempts, "max-attempts", o.cfg.MaxAttempts, "drives of one claim (first attempt plus re-drives) before an unknown processor outcome is stored as final (502 charge_outcome_unknown)")
	p.DurationVar(&o.cfg.MaxUnresolvedAge, "max-unresolved-age", o.cfg.MaxUnresolvedAge, "age after which a claim the processor still answers unknown for is stored as final (502 charge_outcome_unknown)")
	cmd.AddCommand(newProcessorCmd(e), newReapCmd(e, o), newPruneCmd(e, o), newReconcileCmd(e, o))
	return cmd
}

func runChargeServer(ctx context.Context, e *env, o *chargeServerOptions) error {
	keys, err := o.keys(e)
	if err != nil {
		return err
	}
	o.cfg.APIKeys = keys
	if err := o.cfg.Validate(); err != nil {
		return usageErr("%v", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := o.cfg
	cfg.Database, cfg.TraceFile = e.database(cfg.Database), e.path(cfg.TraceFile)
	// Never log keys: the logger only ever sees redacted values.
	return chargeserver.Run(ctx, cfg, e.Stdout, slog.New(slog.NewTextHandler(e.Stderr, nil)))
}

// keys merges --api-key and --api-keys into key -> account.
func (o *chargeServerOptions) keys(e *env) (map[string]string, error) {
	var entries []chargeserver.APIKeyEntry
	for i, l := range o.apiKeys {
		entries = append(entries, chargeserver.APIKeyEntry{Where: fmt.Sprintf("--api-key %d", i+1), Text: l})
	}
	if o.apiKeysFile != "" {
		f, err := os.Open(e.path(o.apiKeysFile))
		if err != nil {
			return nil, usageErr("--api-keys: %v", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
				entries = append(entries, chargeserver.APIKeyEntry{Where: fmt.Sprintf("%s:%d", o.apiKeysFile, n), Text: l})
			}
		}
		if err := sc.Err(); err != nil {
			return nil, usageErr("--api-keys: %v", err)
		}
	}
	// Errors say where an entry is, never what it holds: it is a secret.
	keys, err := chargeserver.ParseAPIKeys(entries)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return keys, nil
}

func newProcessorCmd(e *env) *cobra.Command {
	addr := "127.0.0.1:8081"
	var faults processor.Faults
	cmd := &cobra.Command{
		Use:   "processor",
		Short: "Run the payment processor as its own service (select it with --processor URL)",
		Long: "processor serves an idempotent test processor: POST /v1/processor/charges (idempotent on \"key\"), " +
			"GET /v1/processor/charges, and PUT /v1/processor/test/faults to inject latency and failures. " +
			"The card token tok_decline is always declined.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return chargeserver.RunProcessor(ctx, addr, faults, e.Stdout)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", addr, "listen address")
	cmd.Flags().DurationVar(&faults.Latency, "latency", 0, "delay every new charge by this much")
	cmd.Flags().IntVar(&faults.FailBefore, "fail-before", 0, "fail the next N calls without charging")
	cmd.Flags().IntVar(&faults.FailAfter, "fail-after", 0, "charge on the next N calls, then fail (the ambiguous case)")
	return cmd
}

func newReapCmd(e *env, o *chargeServerOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reap",
		Short: "Re-drive attempts stuck in progress past --stale-after, once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.cfg.ProcessorURL == "" {
				// A fresh in-process processor knows nothing of earlier charges:
				// re-driving against it would charge again.
				return usageErr("reap needs --processor URL: an in-process processor's table lives only inside its server")
			}
			return withStore(cmd.Context(), e, o, func(ctx context.Context, st store.Store) error {
				proc := chargeserver.OpenProcessor(o.cfg)
				n, err := chargeserver.NewReaper(o.cfg, st, proc, nil, slog.New(slog.NewTextHandler(e.Stderr, nil))).RunOnce(ctx)
				fmt.Fprintf(e.Stdout, "resolved %d stale attempt(s)\n", n)
				return err
			})
		},
	}
}

func newPruneCmd(e *env, o *chargeServerOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "prune",
		Short: "Delete idempotency keys older than --retention, once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), e, o, func(ctx context.Context, st store.Store) error {
				n, err := chargeserver.NewPruner(o.cfg, st, nil).RunOnce(ctx)
				fmt.Fprintf(e.Stdout, "pruned %d key(s)\n", n)
				return err
			})
		},
	}
}

func newReconcileCmd(e *env, o *chargeServerOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reconcile",
		Short: "Report every difference between the answers clients were told, the charges table and the processor's table (exit 1 if any)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.cfg.ProcessorURL == "" {
				return usageErr("reconcile needs --processor URL: an in-process processor's table lives only inside its server")
			}
			return withStore(cmd.Context(), e, o, func(ctx context.Context, st store.Store) error {
				diffs, err := chargeserver.Reconcile(ctx, st, chargeserver.OpenProcessor(o.cfg))
				if err != nil {
					return err
				}
				for _, d := range diffs {
					fmt.Fprintln(e.Stdout, d)
				}
				if len(diffs) > 0 {
					return &exitError{code: exitNo}
				}
				fmt.Fprintln(e.Stdout, "charges and processor agree")
				return nil
			})
		},
	}
}

// withStore validates the shared flags, opens the database, and runs f.
func withStore(ctx context.Context, e *env, o *chargeServerOptions, f func(context.Context, store.Store) error) error {
	if err := o.cfg.Validate(); err != nil {
		return usageErr("%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	st, err := store.Open(ctx, e.database(o.cfg.Database))
	if err != nil {
		return usageErr("%v", err)
	}
	defer st.Close()
	return f(ctx, st)
}
