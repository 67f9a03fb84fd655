package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/internal/cli"
)

// replayCLI runs `contractlint replay` against a fresh charge server with
// the fixture that gives createCharge a body the server accepts.
func replayCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	base, _ := chargetest.Start(t, map[string]string{"sk_cli": "acct_cli"})
	fx := filepath.Join("..", "..", "..", "testdata", "replay", "fixtures.yaml")
	all := append([]string{"replay", "--allow-side-effects", "--fixtures", fx, "-H", "Authorization: Bearer sk_cli"}, args...)
	var out, errOut bytes.Buffer
	code = cli.Run(append(all, base), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestReplayOwnContract: the server's own contract, replayed through the
// CLI, is clean: exit 0, every planned request sent.
func TestReplayOwnContract(t *testing.T) {
	code, out, errOut := replayCLI(t, "--contract", filepath.Join("..", "chargeserver", "api", "openapi.yaml"))
	if code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"1. POST /v1/charges (createCharge): examples, fixture body", "replay: sent 6 of 6 requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestReplayOldContractJSON: v0's clients read `captured`; the JSON report
// alone is on stdout (the plan on stderr) and names the rule, the contract
// line and the operations; exit 1.
func TestReplayOldContractJSON(t *testing.T) {
	code, out, errOut := replayCLI(t, "--format", "json", "--contract", filepath.Join("..", "..", "..", "testdata", "replay", "charges-v0.yaml"))
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, cli.ExitFindings, errOut)
	}
	if !strings.Contains(errOut, "replay: sent 4 of 4 requests") {
		t.Errorf("stderr lacks the count:\n%s", errOut)
	}
	var rep struct {
		Findings []struct {
			Rule, File, Message string
			Line                int
			Operations          []string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, out)
	}
	ops := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Rule != "replay-response-invalid" || !strings.HasSuffix(f.File, "charges-v0.yaml") || f.Line != 107 ||
			!strings.Contains(f.Message, "captured") {
			t.Errorf("unexpected finding %+v", f)
		}
		ops[strings.Join(f.Operations, ",")] = true
	}
	if len(ops) != 3 {
		t.Errorf("findings for %v, want the 3 operations that return a charge", ops)
	}
}

// TestReplayNoFixtures: with no fixtures the bundled contract's examples
// make every request; it replays clean (exit 0), and the same contract
// requiring a field the server does not send, legacy_receipt_url, exits 1.
func TestReplayNoFixtures(t *testing.T) {
	base, _ := chargetest.Start(t, map[string]string{"sk_cli": "acct_cli"})
	contract, err := os.ReadFile(filepath.Join("..", "chargeserver", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const required = "required: [id, amount_cents, currency, status, created_at]"
	dir := t.TempDir()
	legacy := strings.Replace(string(contract), required, "required: [id, amount_cents, currency, status, created_at, legacy_receipt_url]", 1)
	for name, text := range map[string]string{"own.yaml": string(contract), "legacy.yaml": legacy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]int{"own.yaml": cli.ExitOK, "legacy.yaml": cli.ExitFindings} {
		var out, errOut bytes.Buffer
		code := cli.Run([]string{"replay", "--allow-side-effects", "-H", "Authorization: Bearer sk_cli", "--contract", filepath.Join(dir, name), base},
			strings.NewReader(""), &out, &errOut)
		if code != want {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, want, out.String(), errOut.String())
		}
	}
}
