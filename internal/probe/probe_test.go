package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/probe/probefake"
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
	charges, _ := pu.Parse("/v1/charges?limit=100")
	c := &Config{URL: pu, Body: []byte(DefaultBody), Concurrency: 8, Timeout: 5 * time.Second,
		Header: http.Header{"Authorization": {"Bearer sk_a"}}, SecondHeader: http.Header{"Authorization": {"Bearer sk_b"}},
		ChargesURL: charges, RetryAfter: time.Second, Where: rules.Location{File: u}}
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
func serve(t *testing.T, s *probefake.Server) string {
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
	t.Parallel()
	for _, contract := range []bool{false, true} {
		t.Run(map[bool]string{false: "without contract", true: "with contract"}[contract], func(t *testing.T) {
			t.Parallel()
			s := probefake.New(probefake.Correct)
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
			// Step 1: 8 and two listings; 2: 2; 3: 3; 4: 1; 5: 2; 6: 3; 7: 2; 8: 1.
			if got := s.Requests.Load(); got != int64(c.Requests()) || rep.Sent != c.Requests() || c.Requests() != 24 {
				t.Errorf("server saw %d requests, probe sent %d, planned %d; want 24", got, rep.Sent, c.Requests())
			}
			// One charge per key: steps 1, 2, 3, 5 and 6, two in step 7 (one
			// per account); step 4 is refused.
			if n := s.ChargeCount(); n != 7 {
				t.Errorf("%d charges, want 7", n)
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
	t.Parallel()
	cases := []struct {
		name     string
		flaw     probefake.Flaw
		contract bool
		fails    string
		message  string
		// mayFail lists other steps the flaw can also fail, depending on timing.
		mayFail []string
		skipped string
		// maxResponse is Config.MaxResponse; 0 keeps the default.
		maxResponse int64
		// unlisted runs without the charges endpoint.
		unlisted bool
	}{
		{"check-then-act", probefake.CheckThenAct, false, rules.ProbeConcurrentDuplicates, "check-then-act", nil, "", 0, false},
		{"ignores the body fingerprint", probefake.IgnoresFingerprint, false, rules.ProbeKeyReuseMismatch, "ignores the body's fingerprint", nil, "", 0, false},
		{"409 without Retry-After", probefake.NoRetryAfter, false, rules.ProbeInFlightConflict, "409 without a Retry-After", []string{rules.ProbeConcurrentDuplicates}, "", 0, false},
		{"409 without Retry-After, against the contract", probefake.NoRetryAfter, true, rules.ProbeContractMismatch, "no Retry-After header, which the contract documents",
			[]string{rules.ProbeConcurrentDuplicates, rules.ProbeInFlightConflict}, "", 0, false},
		{"replays without Idempotent-Replay", probefake.NoReplayHeader, true, rules.ProbeRetryReplay, "without Idempotent-Replay: true", nil, "", 0, false},
		{"a fresh answer for each retry", probefake.FreshEachRetry, false, rules.ProbeRetryReplay, "made a new response instead of replaying", []string{rules.ProbeDelayedRetry}, "", 0, false},
		{"accepts a missing key", probefake.AcceptsMissingKey, false, rules.ProbeMissingKey, "was applied", nil, "", 0, false},
		{"fingerprints raw bytes", probefake.RawFingerprint, false, rules.ProbeReorderedBody, "fingerprints the raw bytes", nil, "", 0, false},
		{"no delay control", probefake.NoDelayControl, false, "", "", nil, rules.ProbeInFlightConflict, 0, false},
		{"every duplicate charged, one identical answer", probefake.KeyDerivedAnswer, false, rules.ProbeConcurrentDuplicates,
			"8 charges appeared at the charges endpoint, so the request was applied 8 times, yet every success carried one identical answer",
			// Its answers carry the key's id for any account, too.
			[]string{rules.ProbeKeyAccountScope}, "", 0, false},
		{"duplicates charged, then answered 500", probefake.ChargeThen500, false, rules.ProbeConcurrentDuplicates,
			"answered 5xx: a server error after the money moved is a double charge", []string{rules.ProbeInFlightConflict}, "", 0, false},
		{"a fingerprint over the amount alone", probefake.PartialFingerprint, false, rules.ProbeKeyReuseMismatch,
			"(description changed) was answered with the first request's response (201): the server's fingerprint leaves out description", nil, "", 0, false},
		{"keys forgotten within a second", probefake.ShortRetention, false, rules.ProbeDelayedRetry, "forgot the key within 1s", nil, "", 0, false},
		{"keys not scoped to the account", probefake.UnscopedKey, false, rules.ProbeKeyAccountScope, "was given the first account's answer", nil, "", 0, false},
		{"bodies alike in their first MiB", probefake.HugeFreshRetry, false, rules.ProbeRetryReplay, "alike as far as shown and different further in: the server made a new response instead of replaying",
			[]string{rules.ProbeConcurrentDuplicates, rules.ProbeDelayedRetry}, "", 4 << 20, false},
		{"bodies over the size cap", probefake.HugeFreshRetry, false, rules.ProbeConcurrentDuplicates, "with a body over the 1048576-byte cap (--max-response)",
			[]string{rules.ProbeRetryReplay, rules.ProbeKeyReuseMismatch, rules.ProbeReorderedBody, rules.ProbeInFlightConflict,
				rules.ProbeKeyAccountScope, rules.ProbeDelayedRetry}, "", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := config(t, serve(t, probefake.New(tc.flaw)), tc.contract)
			c.MaxResponse = tc.maxResponse
			if tc.unlisted {
				c.ChargesURL = nil
			}
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
			fs := rep.Findings(c, rules.Default())
			for _, f := range fs {
				if f.Where != c.Where && f.Rule != rules.ProbeContractMismatch {
					t.Errorf("%s points at %v, want %v", f.Rule, f.Where, c.Where)
				}
			}
			declared(t, fs)
		})
	}
}

// declared fails for a finding whose severity is not the one its rule
// declares: `contractlint rules` must tell the truth about what the probe
// reports.
func declared(t *testing.T, fs []rules.Finding) {
	t.Helper()
	reg := rules.Default()
	for _, f := range fs {
		r, ok := reg.Get(f.Rule)
		if !ok {
			t.Errorf("%s: %q: no such rule", f.Rule, f.Message)
			continue
		}
		if f.Severity != r.Severity {
			t.Errorf("%s: %q reported as %s, the rule declares %s", f.Rule, f.Message, f.Severity, r.Severity)
		}
	}
}

// TestFindingsSeverity: every step's failure and skip is reported at the
// severity its rule declares, and a skip names the step it skipped.
func TestFindingsSeverity(t *testing.T) {
	c := &Config{Where: rules.Location{File: "charges.openapi.yaml", Line: 3}}
	rep := &Report{}
	for _, r := range rules.Default().All() {
		if r.Pack != rules.Probe || r.ID == rules.ProbeStepSkipped {
			continue
		}
		rep.Results = append(rep.Results,
			fail(r.ID, "step n, judged: failed"),
			skip(r.ID, "step n, judged: skipped, nothing to judge"))
	}
	fs := rep.Findings(c, rules.Default())
	if len(fs) != len(rep.Results) {
		t.Fatalf("%d findings from %d results", len(fs), len(rep.Results))
	}
	declared(t, fs)
	for i, f := range fs {
		res := rep.Results[i]
		if res.Outcome == Skip && (f.Rule != rules.ProbeStepSkipped || !strings.HasPrefix(f.Message, res.Rule+": step n")) {
			t.Errorf("skip of %s reported as %s %q, want %s naming the step", res.Rule, f.Rule, f.Message, rules.ProbeStepSkipped)
		}
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

// TestAnswersAloneCannotCount: without --charges-endpoint a server that
// charges every duplicate is judged on its answers alone, and step 1 says so:
// identical answers pass with a note that the probe could not see them, and
// 500s are named as possibly charged.
func TestAnswersAloneCannotCount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flaw    probefake.Flaw
		outcome Outcome
		message string
	}{
		{probefake.KeyDerivedAnswer, Pass, "applied once by the answers alone (without --charges-endpoint the probe cannot see a server that charges every duplicate and answers them all alike)"},
		{probefake.ChargeThen500, Fail, "a duplicate answered 5xx may have been charged all the same, and the probe cannot count charges without --charges-endpoint"},
	} {
		t.Run(tc.message[:20], func(t *testing.T) {
			t.Parallel()
			s := probefake.New(tc.flaw)
			c := config(t, serve(t, s), false)
			c.ChargesURL = nil
			r := outcomes(Run(context.Background(), c))[rules.ProbeConcurrentDuplicates]
			if r.Outcome != tc.outcome || !strings.Contains(r.Message, tc.message) {
				t.Errorf("%s %q, want %s saying %q", r.Outcome, r.Message, tc.outcome, tc.message)
			}
			if s.ChargeCount() < 5+2 {
				t.Errorf("the flawed server charged %d times: the duplicates were not all charged", s.ChargeCount())
			}
		})
	}
}
