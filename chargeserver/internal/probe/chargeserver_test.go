package probe_test

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// chargeServer starts the reference charge server and returns its charge
// URL and processor.
func chargeServer(t *testing.T) (string, *processor.Ledger) {
	base, ledger := chargetest.Start(t, map[string]string{"sk_probe": "acct_probe", "sk_other": "acct_other"})
	return base + "/v1/charges", ledger
}

// TestReferenceChargeServer: the bundled server passes every step (its
// charges counted through GET /v1/charges, keys scoped to the account, a
// retry a second later replayed), charges once per key and account, and its contract agrees with every answer. A slow processor
// holds the in-flight step's first request open; without it that step is
// skipped, never failed.
func TestReferenceChargeServer(t *testing.T) {
	t.Parallel()
	for _, slow := range []bool{true, false} {
		t.Run(map[bool]string{true: "slow processor", false: "fast processor"}[slow], func(t *testing.T) {
			t.Parallel()
			raw, ledger := chargeServer(t)
			if slow {
				ledger.SetFaults(processor.Faults{Latency: time.Second})
			}
			u, _ := url.Parse(raw)
			src, err := source.OpenDir(filepath.Join("..", "chargeserver", "api"))
			if err != nil {
				t.Fatal(err)
			}
			o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
			op, lint, err := probe.Target(pipeline.Side{Src: src, Files: []string{"openapi.yaml"}}, o, u)
			if err != nil {
				t.Fatal(err)
			}
			if op.ID != "POST /v1/charges" {
				t.Fatalf("matched %s", op.ID)
			}
			for _, f := range lint {
				if f.Severity == rules.Error {
					t.Errorf("the server's contract fails idempotency lint: %s %s", f.Rule, f.Message)
				}
			}
			charges, _ := u.Parse("/v1/charges?limit=100")
			c := &probe.Config{URL: u, Header: http.Header{"Authorization": {"Bearer sk_probe"}}, Body: []byte(probe.DefaultBody),
				SecondHeader: http.Header{"Authorization": {"Bearer sk_other"}}, ChargesURL: charges, RetryAfter: time.Second,
				Concurrency: 8, Timeout: 5 * time.Second, Op: op, Where: op.Loc}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			rep := probe.Run(context.Background(), c)
			for _, r := range rep.Results {
				want := probe.Pass
				if !slow && r.Rule == rules.ProbeInFlightConflict {
					want = probe.Skip
				}
				if r.Outcome != want {
					t.Errorf("%s: %s, want %s: %s", r.Rule, r.Outcome, want, r.Message)
				} else {
					t.Logf("%s: %s: %s", r.Rule, r.Outcome, r.Message)
				}
			}
			recs, err := ledger.Records(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// Steps 1, 2, 3, 5 and 6 each charge once, step 7 once per
			// account; step 4 is refused.
			if n := processor.Succeeded(recs); n != 7 {
				t.Errorf("the processor charged %d times, want 7", n)
			}
		})
	}
}
