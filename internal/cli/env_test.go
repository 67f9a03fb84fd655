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

// TestMainUsesEnv runs the CLI with an environment that differs from the
// process's: the working directory it is given, not the process's, is where
// init writes and where the config is found, and no variable of the process
// leaks in.
func TestMainUsesEnv(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		Getwd:  func() (string, error) { return dir, nil }}
	if code := cli.Main([]string{"init"}, e); code != cli.ExitOK {
		t.Fatalf("init exited %d: %s", code, errs.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".contractlint.yaml")); err != nil {
		t.Fatalf("init did not write into the injected working directory: %v", err)
	}
	if code := cli.Main([]string{"init"}, e); code != cli.ExitUsage || !strings.Contains(errs.String(), "already exists") {
		t.Errorf("second init: exit %d, stderr %q; want 2 and 'already exists'", code, errs.String())
	}
}
