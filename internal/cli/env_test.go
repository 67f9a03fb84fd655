package cli_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
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

// spec is a one-operation contract whose name is at most maxLength long.
func spec(maxLength int) string {
	return fmt.Sprintf(`openapi: 3.0.3
info: {title: shop, version: "1"}
paths:
  /items:
    put:
      operationId: putItem
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string, maxLength: %d}
      responses:
        "204": {description: stored}
`, maxLength)
}

// TestFileArgumentsFromEnv: file arguments and --output files are named from
// the injected working directory, a temporary one the process is not in, and
// messages show them as written.
func TestFileArgumentsFromEnv(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"old.yaml": spec(100), "new.yaml": spec(50),
		"quiet.yaml": "rules:\n  request-max-decreased: off\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if wd, _ := os.Getwd(); wd == dir {
		t.Fatal("the test must run outside the injected working directory")
	}
	run := func(args ...string) (int, string, string) {
		var out, errs bytes.Buffer
		e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
			Getenv: func(string) string { return "" },
			Now:    func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
			Getwd:  func() (string, error) { return dir, nil }}
		code := cli.Main(args, e)
		return code, out.String(), errs.String()
	}

	code, out, errs := run("diff", "old.yaml", "new.yaml")
	if code != cli.ExitFindings || !strings.Contains(out, "new.yaml:") || !strings.Contains(out, "request-max-decreased") {
		t.Errorf("diff: exit %d, stdout %q, stderr %q; want 1 and request-max-decreased at new.yaml", code, out, errs)
	}
	if strings.Contains(out, dir) {
		t.Errorf("diff names the working directory: %q", out)
	}

	code, out, errs = run("diff", "--output", "report.txt", "--output-json", "report.json", "old.yaml", "new.yaml")
	if code != cli.ExitFindings || out != "" {
		t.Errorf("diff --output: exit %d, stdout %q, stderr %q; want 1 and nothing on stdout", code, out, errs)
	}
	for name, want := range map[string]string{"report.txt": "request-max-decreased", "report.json": `"rule": "request-max-decreased"`} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s in the injected working directory: %v, %q; want it to hold %q", name, err, b, want)
		}
	}

	code, out, errs = run("diff", "--config", "quiet.yaml", "old.yaml", "new.yaml")
	if code != cli.ExitOK || strings.Contains(out, "request-max-decreased") {
		t.Errorf("diff --config: exit %d, stdout %q, stderr %q; want 0 and the rule off", code, out, errs)
	}

	code, out, errs = run("lint", "--output", "lint.txt", "new.yaml")
	if code == cli.ExitUsage {
		t.Errorf("lint: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "lint.txt")); err != nil {
		t.Errorf("lint --output did not write into the injected working directory: %v", err)
	}

	if err := os.Mkdir(filepath.Join(dir, "evidence"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("diff", "--readers", "evidence", "old.yaml", "new.yaml")
	if code != cli.ExitFindings {
		t.Errorf("diff --readers: exit %d, stdout %q, stderr %q; want 1", code, out, errs)
	}

	// The body is read before any request: with it found, the probe goes on
	// to a closed port and says that instead.
	if err := os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"amount_cents": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, _, errs = run("probe", "--body", "@body.json", "--timeout", "1s", closed.URL+"/v1/charges")
	if strings.Contains(errs, "--body") || !strings.Contains(errs, "did not answer") {
		t.Errorf("probe --body @body.json: stderr %q; want the body read and the closed port named", errs)
	}

	code, _, errs = run("diff", "missing.yaml", "new.yaml")
	if code != cli.ExitUsage || !strings.HasPrefix(errs, "contractlint: missing.yaml: ") {
		t.Errorf("diff of a missing file: exit %d, stderr %q; want 2 naming missing.yaml as written", code, errs)
	}
}

// TestReviewFromEnv: review opens the repository the injected working
// directory is in, not the one the process runs in (the test's own checkout).
func TestReviewFromEnv(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is missing on CI")
		}
		t.Skip("no git on this machine")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(spec(100)), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "v1")
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(spec(50)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
		Getenv: func(string) string { return "" }, Now: time.Now,
		Getwd: func() (string, error) { return dir, nil }}
	code := cli.Main([]string{"review", "--base", "HEAD"}, e)
	if code != cli.ExitFindings || !strings.Contains(out.String(), "api.yaml:") || !strings.Contains(out.String(), "request-max-decreased") {
		t.Errorf("review: exit %d, stdout %q, stderr %q; want 1 and request-max-decreased in api.yaml", code, out.String(), errs.String())
	}
}
