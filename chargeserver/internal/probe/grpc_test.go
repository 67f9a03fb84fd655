package probe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/rpc"
	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/internal/probe/probefake"
	"github.com/contractlint/contractlint/rules"
)

const createCharge = "/contractlint.charges.v1.ChargeService/CreateCharge"

// rpcConfig is a probe of base's CreateCharge over scheme, the method found
// by server reflection.
func rpcConfig(t *testing.T, scheme, base string) *probe.Config {
	t.Helper()
	u, err := url.Parse(scheme + "://" + strings.TrimPrefix(base, "http://") + createCharge)
	if err != nil {
		t.Fatal(err)
	}
	c := &probe.Config{URL: u, Header: http.Header{"Authorization": {"Bearer sk_probe"}}, Body: []byte(probe.DefaultBody),
		SecondHeader: http.Header{"Authorization": {"Bearer sk_other"}}, RetryAfter: time.Second,
		Concurrency: 8, Timeout: 5 * time.Second, Where: rules.Location{File: u.Redacted()}}
	hc := probe.NewRPCClient(c.Timeout, c.Concurrency)
	if c.RPC, err = probe.ResolveRPC(context.Background(), hc, u, c.Header); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReferenceChargeServerOverRPC: the bundled server passes every step
// over gRPC and over Connect, its method found by reflection, and charges
// once per key and account.
func TestReferenceChargeServerOverRPC(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"grpc", "connect"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			base, ledger := chargetest.Start(t, map[string]string{"sk_probe": "acct_probe", "sk_other": "acct_other"})
			ledger.SetFaults(processor.Faults{Latency: time.Second})
			rep := probe.Run(context.Background(), rpcConfig(t, scheme, base))
			if len(rep.Results) != probe.Steps() {
				t.Fatalf("%d results, want %d; unreachable: %v", len(rep.Results), probe.Steps(), rep.Unreachable)
			}
			for _, r := range rep.Results {
				if r.Outcome != probe.Pass {
					t.Errorf("%s: %s: %s", r.Rule, r.Outcome, r.Message)
				} else {
					t.Logf("%s: %s", r.Rule, r.Message)
				}
			}
			recs, _ := ledger.Records(context.Background())
			if n := processor.Succeeded(recs); n != 7 {
				t.Errorf("the processor charged %d times, want 7", n)
			}
		})
	}
}

// fakeRPC serves a flawed fake charge endpoint's semantics over gRPC and
// Connect: the charge server's own translation in front of the fake.
func fakeRPC(t *testing.T, f probefake.Flaw) (*probefake.Server, string) {
	s := probefake.New(f)
	mux := http.NewServeMux()
	rpc.Mount(mux, s)
	hs := httptest.NewUnstartedServer(mux)
	hs.Config.Protocols = chargetest.H2C()
	hs.Start()
	t.Cleanup(hs.Close)
	return s, hs.URL
}

// TestFlawedRPCServers: each flaw fails its step over gRPC, as over HTTP;
// check-then-act is caught by the duplicates' different answers.
func TestFlawedRPCServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flaw probefake.Flaw
		rule string
	}{
		{probefake.CheckThenAct, rules.ProbeConcurrentDuplicates},
		{probefake.IgnoresFingerprint, rules.ProbeKeyReuseMismatch},
		{probefake.NoRetryAfter, rules.ProbeInFlightConflict},
		{probefake.FreshEachRetry, rules.ProbeRetryReplay},
		{probefake.AcceptsMissingKey, rules.ProbeMissingKey},
		{probefake.UnscopedKey, rules.ProbeKeyAccountScope},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			t.Parallel()
			s, base := fakeRPC(t, tc.flaw)
			c := rpcConfig(t, "grpc", base)
			c.RetryAfter = 0
			rep := probe.Run(context.Background(), c)
			var got *probe.Result
			for i, r := range rep.Results {
				if r.Rule == tc.rule {
					got = &rep.Results[i]
				}
			}
			if got == nil || got.Outcome != probe.Fail {
				t.Fatalf("%s: %+v, want a failure; all: %+v", tc.rule, got, rep.Results)
			}
			t.Logf("%s (%d charges): %s", tc.rule, s.ChargeCount(), got.Message)
		})
	}
}
