package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// lintPacks are the single-contract packs the charge server must pass.
var lintPacks = []rules.Pack{rules.Idempotency, rules.Evolvability}

// TestChargeServerContractsLintClean holds the bundled server to its own
// rules: both contracts pass every rule of both packs, off-by-default ones
// included.
func TestChargeServerContractsLintClean(t *testing.T) {
	dir := writeContracts(t, api.OpenAPI())
	reg := rules.Default()
	s := &rules.Settings{Rules: map[string]bool{}}
	for _, r := range reg.All() {
		if slices.Contains(lintPacks, r.Pack) {
			s.Rules[r.ID] = true
		}
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"openapi.yaml", "charges.proto"} {
		fs, err := pipeline.Lint(pipeline.Side{Src: src, Files: []string{name}}, pipeline.Options{Registry: reg, Settings: s})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range fs {
			t.Errorf("%s: %s %s: %s", f.Where, f.Severity, f.Rule, f.Message)
		}
	}
}

// TestChargeServerWithoutKeyFails removes the Idempotency-Key parameter from
// the create-charge operation: lint must fail with exactly one finding on
// the operation's method line. Without that parameter no operation takes a
// key, so the API shows no key convention and the finding is the warning
// that says how to adopt one (idempotency-key-not-adopted), not the error
// for an operation that breaks its API's own convention.
func TestChargeServerWithoutKeyFails(t *testing.T) {
	doc := string(api.OpenAPI())
	lines := strings.Split(doc, "\n")
	keyAt := slices.IndexFunc(lines, func(l string) bool {
		return strings.TrimSpace(l) == "- $ref: '#/components/parameters/IdempotencyKey'"
	})
	if keyAt < 0 {
		t.Fatal("the charge server contract no longer references the IdempotencyKey parameter; update this test")
	}
	postAt := keyAt
	for postAt >= 0 && strings.TrimSpace(lines[postAt]) != "post:" {
		postAt--
	}
	if postAt < 0 {
		t.Fatal("no post: above the Idempotency-Key reference")
	}
	stripped := strings.Join(slices.Delete(slices.Clone(lines), keyAt, keyAt+1), "\n")
	dir := writeContracts(t, []byte(stripped))
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := cli.Run([]string{"lint", "--fail-on", "info", "openapi.yaml"}, nil, &stdout, &stderr)
	if code != cli.ExitFindings {
		t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, cli.ExitFindings, stdout.String(), stderr.String())
	}
	want := fmt.Sprintf("openapi.yaml:%d:", postAt+1)
	got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(got) < 2 || !strings.HasPrefix(got[1], "1 finding:") || !strings.HasPrefix(got[0], want) || !strings.Contains(got[0], " warning idempotency-key-not-adopted: POST /v1/charges ") {
		t.Fatalf("want exactly one idempotency-key-not-adopted at %s, got:\n%s", want, stdout.String())
	}
}

func writeContracts(t *testing.T, openAPI []byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range map[string][]byte{"openapi.yaml": openAPI, "charges.proto": api.Proto()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
