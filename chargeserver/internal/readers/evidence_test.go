package readers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/cli"
)

// finding is what these tests read of a finding in contractlint's JSON report.
type finding struct {
	Rule, Severity, Message string
	Usage                   *usage
}

// usage is the evidence on a finding.
type usage struct {
	Calls     int64
	Consumers []string
	Requests  int64
	Clients   int
	Covered   bool
}

// evidence is contractlint's verdict on the workspace's change of one
// format ("openapi.yaml" or "charges.proto") given one traffic file.
type evidence struct {
	code int
	// window is the readers window, as the messages write it.
	window   string
	findings []finding
}

// byRule is the findings of rule.
func (e evidence) byRule(rule string) []finding {
	var out []finding
	for _, f := range e.findings {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// contractlint runs the linter in dir, as a user there would, and returns
// its exit code and standard output.
func contractlint(t *testing.T, dir string, args ...string) (int, []byte) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" },
		Now: time.Now, Getwd: func() (string, error) { return dir, nil }}
	code := cli.Main(args, env)
	t.Logf("contractlint %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	return code, out.Bytes()
}

// shown is what `contractlint readers --format json` says a traffic file
// shows: its span, and each consumer's operations with the fields their
// bodies carried.
type shown struct {
	Files []struct {
		File        string
		First, Last time.Time
		Requests    int64
		Consumers   []string
	}
	Consumers []struct {
		Name       string
		Operations []struct {
			Operation string
			Calls     int64
			Fields    []struct {
				Field, Side string
				Count       int64
			}
		}
	}
}

// readersShow checks the evidence before trusting it, as a team would:
// `contractlint readers --format json FILE`.
func readersShow(t *testing.T, dir, traffic string) shown {
	t.Helper()
	code, out := contractlint(t, dir, "readers", "--format", "json", traffic)
	var s shown
	if err := json.Unmarshal(out, &s); code != cli.ExitOK || err != nil || len(s.Files) != 1 {
		t.Fatalf("contractlint readers %s: exit %d, %v:\n%s", traffic, code, err, out)
	}
	return s
}

// sent is how many exchanges of consumer's calls of op carried the
// request field, as `contractlint readers` shows it.
func (s shown) sent(consumer, op, field string) int64 {
	for _, c := range s.Consumers {
		for _, o := range c.Operations {
			if c.Name != consumer || o.Operation != op {
				continue
			}
			for _, f := range o.Fields {
				if f.Field == field && f.Side == "request" {
					return f.Count
				}
			}
		}
	}
	return 0
}

// diff runs `contractlint diff --readers FILE` in dir on old/NAME and
// new/NAME. Recorded traffic covers a window only when it starts at or
// before the window's start, and these recordings span seconds: the
// window is made whole seconds that start at the file's first exchange
// (as contractlint readers shows it) and end after its last
// (--readers-until), so the evidence covers the window exactly and every
// exchange falls within it.
func diff(t *testing.T, dir, name, traffic string) evidence {
	t.Helper()
	f := readersShow(t, dir, traffic).Files[0]
	window := time.Duration(math.Ceil(f.Last.Sub(f.First).Seconds())+1) * time.Second
	code, out := contractlint(t, dir, "diff", "--format", "json", "--readers", traffic, "--readers-window", window.String(),
		"--readers-until", f.First.Add(window).Format(time.RFC3339Nano), filepath.Join("old", name), filepath.Join("new", name))
	var rep struct{ Findings []finding }
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("exit %d, not a JSON report: %v\n%s", code, err, out)
	}
	for _, f := range rep.Findings {
		t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
	}
	return evidence{code: code, window: window.String(), findings: rep.Findings}
}

// wantRemovals checks the verdict on removing one operation the traffic
// shows called (an error whose message counts the calls and names who made
// them, with the same evidence as data) and one it never shows called (a
// warning that says how much traffic shows no call, the window being
// covered). Evidence on the two removals leaves no plain removal finding
// in force.
func wantRemovals(t *testing.T, e evidence, called string, calls int, consumer, uncalled string, requests, clients int) {
	t.Helper()
	if e.code != cli.ExitFindings {
		t.Errorf("exit %d, want %d: the called operation's removal is an error", e.code, cli.ExitFindings)
	}
	hit := e.byRule("operation-removed-while-called")
	want := fmt.Sprintf("%s removed while called %s by 1 client (%s) in the last %s", called, times(calls), consumer, e.window)
	if len(hit) != 1 || hit[0].Severity != "error" || !strings.Contains(hit[0].Message, want) {
		t.Errorf("want one error operation-removed-while-called: %q; got %+v", want, hit)
	} else if u := hit[0].Usage; u == nil || u.Calls != int64(calls) || !slices.Equal(u.Consumers, []string{consumer}) {
		t.Errorf("the error's usage is %+v, want %d calls by %s", u, calls, consumer)
	}
	miss := e.byRule("operation-removed-unread")
	want = fmt.Sprintf("%s removed with no call in %s across %d requests from %d %s", uncalled, e.window, requests, clients,
		map[bool]string{true: "client", false: "clients"}[clients == 1])
	if len(miss) != 1 || miss[0].Severity != "warning" || !strings.Contains(miss[0].Message, want) {
		t.Errorf("want one warning operation-removed-unread: %q; got %+v", want, miss)
	} else if u := miss[0].Usage; u == nil || !u.Covered || u.Calls != 0 || u.Requests != int64(requests) || u.Clients != clients {
		t.Errorf("the warning's usage is %+v, want covered, no call, %d requests from %d clients", u, requests, clients)
	}
	for _, f := range e.findings {
		if f.Rule == "path-removed" || f.Rule == "operation-removed" || f.Rule == "proto-rpc-removed" {
			t.Errorf("the evidence left %s in force: %s", f.Rule, f.Message)
		}
	}
}

// wantSent checks the verdict on removing the request field description,
// which sender sent sent times over HTTP (0: the traffic has no bodies): an
// error that counts them, or without evidence the plain removal finding.
func wantSent(t *testing.T, e evidence, sent int, sender string) {
	t.Helper()
	got := e.byRule("request-field-removed-while-sent")
	if sent == 0 {
		if len(got) != 0 || len(e.byRule("field-removed-without-deprecation")) != 1 {
			t.Errorf("with no bodies in the traffic, want field-removed-without-deprecation alone; got %+v", e.findings)
		}
		return
	}
	want := fmt.Sprintf("description: removed while sent %s by 1 client (%s) in the last %s", times(sent), sender, e.window)
	if len(got) != 1 || got[0].Severity != "error" || !strings.HasPrefix(got[0].Message, want) {
		t.Errorf("want one error request-field-removed-while-sent: %q; got %+v", want, got)
	} else if u := got[0].Usage; u == nil || u.Calls != int64(sent) || !slices.Equal(u.Consumers, []string{sender}) {
		t.Errorf("the error's usage is %+v, want %d exchanges from %s", u, sent, sender)
	}
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// wantEvidence holds what the workspace's change gets from one traffic
// file, on the OpenAPI contract and on the proto: the removal of getCharge,
// which reader called reads times over HTTP, and of GetCharge, which
// rpcReader called rpcReads times, are errors that count them; the
// removals of listCharges and ListCharges, which nobody called, are
// warnings across the file's requests from its clients; the removal of
// the request field description is judged by wantSent.
func wantEvidence(t *testing.T, dir, traffic string, reads int, reader string, rpcReads int, rpcReader string, requests, clients, sent int, sender string) {
	t.Helper()
	t.Run("openapi", func(t *testing.T) {
		e := diff(t, dir, "openapi.yaml", traffic)
		wantRemovals(t, e, "path /v1/charges/{id}", reads, reader, "operation GET /v1/charges", requests, clients)
		wantSent(t, e, sent, sender)
	})
	t.Run("proto", func(t *testing.T) {
		e := diff(t, dir, "charges.proto", traffic)
		wantRemovals(t, e, "rpc contractlint.charges.v1.ChargeService.GetCharge", rpcReads, rpcReader,
			"rpc contractlint.charges.v1.ChargeService.ListCharges", requests, clients)
	})
}
