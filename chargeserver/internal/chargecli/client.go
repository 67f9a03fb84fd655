package chargecli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
)

// apiKeyEnv holds the API key when --api-key is not given, so it need not
// appear in a process listing.
const apiKeyEnv = "CHARGE_API_KEY"

type chargeClientOptions struct {
	opts   chargeclient.Options
	intent chargeclient.Intent
}

func newChargeClientCmd(e *env) *cobra.Command {
	o := &chargeClientOptions{opts: chargeclient.DefaultOptions()}
	o.opts.URL = "http://127.0.0.1:8080/v1/charges"
	cmd := &cobra.Command{
		Use:   "charge-client",
		Short: "Send one charge intent the way a client should: one key, safe retries",
		Long: "charge-client sends one purchase intent to a charge server. It mints one Idempotency-Key (a random UUID) " +
			"for the intent and reuses it on every attempt; it retries timeouts, dropped connections, 409, 429 and 5xx " +
			"with capped exponential backoff and jitter, honouring Retry-After, never retries another 4xx, and stops at " +
			"--deadline. It prints one of three outcomes and the attempts it took: charged; not charged, only when the server's " +
			"answer proves it; or unknown (then retry with --key, never with a new key). A key already used for a different " +
			"request is reported as such: nothing new was charged, and the earlier charge stands. Exit 0: charged; 1: not " +
			"charged or unknown; 2: usage.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runChargeClient(cmd.Context(), e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.URL, "url", o.opts.URL, "the charges endpoint")
	f.StringVar(&o.opts.APIKey, "api-key", "", "API key (default: $"+apiKeyEnv+")")
	f.Int64Var(&o.intent.AmountCents, "amount-cents", 0, "amount in minor units (required)")
	f.StringVar(&o.intent.Currency, "currency", "GBP", "ISO 4217 currency")
	f.StringVar(&o.intent.CardToken, "card-token", "tok_visa", "card token")
	f.StringVar(&o.intent.Description, "description", "", "description")
	f.StringVar(&o.intent.Key, "key", "", "the intent's Idempotency-Key, to resume an intent whose outcome was unknown (default: a new random UUID)")
	f.DurationVar(&o.opts.Deadline, "deadline", o.opts.Deadline, "give up after this long, every attempt and wait included")
	f.DurationVar(&o.opts.AttemptTimeout, "attempt-timeout", o.opts.AttemptTimeout, "longest wait for one attempt's answer")
	f.DurationVar(&o.opts.BaseDelay, "base-delay", o.opts.BaseDelay, "first backoff step")
	f.DurationVar(&o.opts.MaxDelay, "max-delay", o.opts.MaxDelay, "backoff cap")
	return cmd
}

func runChargeClient(ctx context.Context, e *env, o *chargeClientOptions) error {
	if o.opts.APIKey == "" {
		o.opts.APIKey = e.Getenv(apiKeyEnv)
	}
	u, err := url.Parse(o.opts.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return usageErr("--url must be an http:// or https:// URL of the charges endpoint")
	case o.opts.APIKey == "":
		return usageErr("an API key is needed: --api-key or $%s", apiKeyEnv)
	case o.intent.AmountCents <= 0:
		return usageErr("--amount-cents must be a positive integer")
	case o.opts.Deadline <= 0 || o.opts.AttemptTimeout <= 0 || o.opts.BaseDelay <= 0 || o.opts.MaxDelay < o.opts.BaseDelay:
		return usageErr("--deadline, --attempt-timeout and --base-delay must be positive and --max-delay at least --base-delay")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := chargeclient.New(o.opts).Charge(ctx, o.intent)
	if err != nil && !errors.Is(err, chargeclient.ErrDeadline) {
		return usageErr("%v", err)
	}
	fmt.Fprintln(e.Stdout, describe(res, o.opts.Deadline))
	if !res.Charged() {
		return &exitError{code: exitNo}
	}
	return nil
}

// describe is the one line the command prints.
func describe(r chargeclient.Result, deadline time.Duration) string {
	tries := fmt.Sprintf("%d attempt", r.Attempts)
	if r.Attempts != 1 {
		tries += "s"
	}
	last := "no answer"
	if r.Status != 0 {
		last = fmt.Sprint(r.Status)
		if r.Code != "" {
			last += " " + r.Code
		}
	}
	switch {
	case !r.Final:
		return fmt.Sprintf("outcome unknown: no final answer within %s after %s (last: %s); retry later with --key %s, never with a new key", deadline, tries, last, r.Key)
	case r.Outcome() == chargeclient.Charged:
		var c struct {
			ID          string `json:"id"`
			AmountCents int64  `json:"amount_cents"`
			Currency    string `json:"currency"`
		}
		_ = json.Unmarshal(r.Body, &c)
		return fmt.Sprintf("charged: %s for %d %s after %s (replayed: %v, key %s)", c.ID, c.AmountCents, c.Currency, tries, r.Replayed, r.Key)
	case r.Outcome() == chargeclient.NotCharged:
		return fmt.Sprintf("not charged: %s after %s (key %s)", last, tries, r.Key)
	case r.KeyReused():
		// The key did charge, for the request that first used it: a retry
		// under a fresh key would charge the customer again.
		return fmt.Sprintf("this key was already used for a different request; nothing new was charged; look up the earlier charge "+
			"(server: %s %q; after %s, key %s)", last, r.Detail, tries, r.Key)
	case r.Code == "charge_outcome_unknown":
		return fmt.Sprintf("outcome unknown: the server answered %s after %s: it could not learn from the processor whether the charge "+
			"was made, and reconciliation settles it; do not retry, never with a new key (key %s)", last, tries, r.Key)
	}
	return fmt.Sprintf("outcome unknown: %s after %s does not say whether the charge was made; check the --url, then retry with --key %s, never with a new key",
		last, tries, r.Key)
}
