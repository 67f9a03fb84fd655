package readers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/readers"
)

// finding is what these tests read of a finding in contractlint's JSON report.
type finding struct {
	Rule, Severity, Message string
}

// evidence is contractlint's verdict on the workspace's change of one
// format ("openapi.yaml" or "charges.proto") given one traffic file.
type evidence struct {
	code int
	// window is the readers window, as the messages write it.
	window   string
	findings []finding
	stderr   string
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

// diff runs `contractlint diff --readers FILE` in dir on old/NAME and
// new/NAME. Recorded traffic covers a window only when it starts at or
// before the window's start, and these recordings span seconds: the clock
// is set whole seconds after the file's first exchange (as contractlint
// reads it) and the window to those seconds, so the evidence covers the
// window exactly and every exchange falls within it.
func diff(t *testing.T, dir, name, traffic string) evidence {
	t.Helper()
	first, last := span(t, filepath.Join(dir, traffic))
	window := time.Duration(math.Ceil(last.Sub(first).Seconds())+1) * time.Second
	now := first.Add(window)
	var out, errOut bytes.Buffer
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" },
		Now: func() time.Time { return now }, Getwd: func() (string, error) { return dir, nil }}
	args := []string{"diff", "--format", "json", "--readers", traffic, "--readers-window", window.String(),
		filepath.Join("old", name), filepath.Join("new", name)}
	code := cli.Main(args, env)
	var rep struct{ Findings []finding }
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("contractlint %s: exit %d, not a JSON report: %v\n%s\n%s", strings.Join(args, " "), code, err, out.String(), errOut.String())
	}
	t.Logf("contractlint %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	for _, f := range rep.Findings {
		t.Logf("%s %s: %s", f.Severity, f.Rule, f.Message)
	}
	return evidence{code: code, window: window.String(), findings: rep.Findings, stderr: errOut.String()}
}

// span is the first and last exchange of a traffic file as contractlint's
// reader sees it.
func span(t *testing.T, file string) (first, last time.Time) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	format := readers.Sniff(file, head[:n])
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	_, cov, err := readers.ReadTraffic(file, format, f, readers.Mapping{}, time.Time{}, nil, func(w string) { t.Log(w) })
	if err != nil {
		t.Fatal(err)
	}
	if cov.First.IsZero() {
		t.Fatalf("%s (%s): no exchange with a time", file, format)
	}
	return cov.First, cov.Last
}

// wantRemovals checks the verdict on removing one operation the traffic
// shows called (an error whose message counts the calls and names who made
// them) and one it never shows called (a warning that says how much traffic
// shows no call, the window being covered). Evidence on the two removals
// leaves no plain removal finding in force.
func wantRemovals(t *testing.T, e evidence, called, calledBy, uncalled, noCall string) {
	t.Helper()
	if e.code != cli.ExitFindings {
		t.Errorf("exit %d, want %d: the called operation's removal is an error", e.code, cli.ExitFindings)
	}
	hit := e.byRule("operation-removed-while-called")
	if len(hit) != 1 || hit[0].Severity != "error" || !strings.Contains(hit[0].Message, called+" removed while "+calledBy) {
		t.Errorf("want one error operation-removed-while-called: %q removed while %q; got %+v", called, calledBy, hit)
	}
	miss := e.byRule("operation-removed-unread")
	if len(miss) != 1 || miss[0].Severity != "warning" || !strings.Contains(miss[0].Message, uncalled+" removed with "+noCall) {
		t.Errorf("want one warning operation-removed-unread: %q removed with %q; got %+v", uncalled, noCall, miss)
	}
	for _, f := range e.findings {
		if f.Rule == "path-removed" || f.Rule == "operation-removed" || f.Rule == "proto-rpc-removed" {
			t.Errorf("the evidence left %s in force: %s", f.Rule, f.Message)
		}
	}
}

// calledBy is how a removal's message counts calls within the window.
func calledBy(calls int, window string, consumers ...string) string {
	times := fmt.Sprintf("%d times", calls)
	if calls == 1 {
		times = "once"
	}
	return fmt.Sprintf("called %s by %d %s (%s) in the last %s", times, len(consumers),
		map[bool]string{true: "client", false: "clients"}[len(consumers) == 1], strings.Join(consumers, ", "), window)
}
