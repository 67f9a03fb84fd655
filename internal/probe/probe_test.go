package probe

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// config targets u with the default body; contract loads testdata/openapi.yaml.
func config(t *testing.T, u string, contract bool) *Config {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	c := &Config{URL: pu, Body: []byte(DefaultBody), Concurrency: 8, Timeout: 5 * time.Second,
		Where: rules.Location{File: u}}
	if contract {
		op, _ := target(t, "openapi.yaml", pu)
		c.Op, c.Where = op, op.Loc
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

func target(t *testing.T, file string, u *url.URL) (*rules.Operation, []rules.Finding) {
	t.Helper()
	src, err := source.OpenDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
	op, fs, err := Target(pipeline.Side{Src: src, Files: []string{file}}, o, u)
	if err != nil {
		t.Fatal(err)
	}
	return op, fs
}

// serve starts s on loopback and returns the charge URL.
func serve(t *testing.T, s *fakeServer) string {
	t.Helper()
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return hs.URL + "/v1/charges"
}

func outcomes(rep *Report) map[string]Result {
	m := map[string]Result{}
	for _, r := range rep.Results {
		m[r.Rule] = r
	}
	return m
}

func TestCorrectServerPassesEveryStep(t *testing.T) {
	for _, contract := range []bool{false, true} {
		t.Run(map[bool]string{false: "without contract", true: "with contract"}[contract], func(t *testing.T) {
			s := newFake(correct)
			c := config(t, serve(t, s), contract)
			rep := Run(context.Background(), c)
			for _, r := range rep.Results {
				if r.Outcome != Pass {
					t.Errorf("%s: %s: %s", r.Rule, r.Outcome, r.Message)
				}
			}
			if want := Steps() + map[bool]int{false: 0, true: 1}[contract]; len(rep.Results) != want {
				t.Errorf("%d results, want %d", len(rep.Results), want)
			}
			if got := s.requests.Load(); got != int64(c.Requests()) || rep.Sent != c.Requests() || c.Requests() != 8+10 {
				t.Errorf("server saw %d requests, probe sent %d, planned %d; want 18", got, rep.Sent, c.Requests())
			}
			// One charge per key: steps 1, 2, 3, 5 and 6; step 4 is refused.
			if n := s.chargeCount(); n != 5 {
				t.Errorf("%d charges, want 5", n)
			}
			if fs := rep.Findings(c, rules.Default()); len(fs) != 0 {
				t.Errorf("findings for a correct server: %v", fs)
			}
		})
	}
}

// TestBrokenServers: each flawed server fails its step with a message that
// names the bug, and passes the steps its flaw cannot affect.
func TestBrokenServers(t *testing.T) {
	cases := []struct {
		name     string
		flaw     flaw
		contract bool
		fails    string
		message  string
		// mayFail lists other steps the flaw can also fail, depending on timing.
		mayFail []string
		skipped string
	}{
		{"check-then-act", checkThenAct, false, rules.ProbeConcurrentDuplicates, "check-then-act", nil, ""},
		{"ignores the body fingerprint", ignoresFingerprint, false, rules.ProbeKeyReuseMismatch, "ignores the body's fingerprint", nil, ""},
		{"409 without Retry-After", noRetryAfter, false, rules.ProbeInFlightConflict, "409 without a Retry-After", []string{rules.ProbeConcurrentDuplicates}, ""},
		{"409 without Retry-After, against the contract", noRetryAfter, true, rules.ProbeContractMismatch, "no Retry-After header, which the contract documents",
			[]string{rules.ProbeConcurrentDuplicates, rules.ProbeInFlightConflict}, ""},
		{"replays without Idempotent-Replay", noReplayHeader, true, rules.ProbeRetryReplay, "without Idempotent-Replay: true", nil, ""},
		{"a fresh answer for each retry", freshEachRetry, false, rules.ProbeRetryReplay, "made a new response instead of replaying", nil, ""},
		{"accepts a missing key", acceptsMissingKey, false, rules.ProbeMissingKey, "was applied", nil, ""},
		{"fingerprints raw bytes", rawFingerprint, false, rules.ProbeReorderedBody, "fingerprints the raw bytes", nil, ""},
		{"no delay control", noDelayControl, false, "", "", nil, rules.ProbeInFlightConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := config(t, serve(t, newFake(tc.flaw)), tc.contract)
			rep := Run(context.Background(), c)
			got := outcomes(rep)
			for _, r := range rep.Results {
				switch {
				case r.Rule == tc.fails:
					t.Logf("%s: %s: %s", r.Rule, r.Outcome, r.Message)
					if r.Outcome != Fail || !strings.Contains(r.Message, tc.message) {
						t.Errorf("%s: %s %q, want a failure saying %q", r.Rule, r.Outcome, r.Message, tc.message)
					}
				case r.Rule == tc.skipped:
					if r.Outcome != Skip || !strings.Contains(r.Message, DelayHeader) {
						t.Errorf("%s: %s %q, want skipped naming %s", r.Rule, r.Outcome, r.Message, DelayHeader)
					}
				case r.Outcome != Pass && !contains(tc.mayFail, r.Rule):
					t.Errorf("%s: %s: %s (only %s should fail)", r.Rule, r.Outcome, r.Message, tc.fails)
				}
			}
			if _, ok := got[tc.fails]; tc.fails != "" && !ok {
				t.Errorf("no result for %s", tc.fails)
			}
			for _, f := range rep.Findings(c, rules.Default()) {
				if f.Where != c.Where && f.Rule != rules.ProbeContractMismatch {
					t.Errorf("%s points at %v, want %v", f.Rule, f.Where, c.Where)
				}
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
