package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/cli"
)

// TestCustomRulesDoc keeps docs/custom-rules.md's examples true: the config
// it shows is the one under testdata/custom-rules, whose fixtures pass
// contractlint test.
func TestCustomRulesDoc(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "custom-rules"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, ".contractlint.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "custom-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, append([]byte("```yaml\n"), cfg...)) {
		t.Errorf("docs/custom-rules.md does not show testdata/custom-rules/.contractlint.yaml as it is")
	}
	var out, errs bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs, Getenv: func(string) string { return "" },
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, Getwd: func() (string, error) { return dir, nil }}
	if code := cli.Main([]string{"test", "--config", ".contractlint.yaml"}, e); code != cli.ExitOK {
		t.Fatalf("contractlint test exited %d:\n%s%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "5 cases, 0 failed") {
		t.Errorf("want the five example cases run, got:\n%s", out.String())
	}
}
