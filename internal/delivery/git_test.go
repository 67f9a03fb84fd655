package delivery

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// need skips when a tool is missing, except in CI, where a missing tool
// must fail the run rather than hide a broken delivery.
func need(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (CI=true, so this fails instead of skipping)", tool)
		}
		t.Skipf("%s is not installed", tool)
	}
	return p
}

// part is what .ci/parts built before the tests, named by the variable
// env, so that no test compiles a tool: without it a test skips, and fails
// when CI=true.
func part(t *testing.T, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set (CI=true, so this fails instead of skipping): .ci/run makes it with .ci/parts", env)
		}
		t.Skipf("%s is not set: eval \"$(.ci/parts DIR)\" builds it (.ci/run does)", env)
	}
	return v
}

// run runs a command in dir and returns its combined output and error.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func must(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := run(t, dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

var gitEnv = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
	"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null"}

// repoTop is the top of this repository's checkout, asked of git once per
// test process (toplevel): every test reads the same checkout.
func repoTop(t *testing.T) string {
	need(t, "git")
	top, err := toplevel()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	return top
}

var toplevel = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
})

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const shopV1 = `syntax = "proto3";
package shop;
message Charge {
  string id = 1;
  double price = 2;
}
`

// shopV2 turns price from dollars (double) into a string: a type change
// old binary and JSON readers misread (one finding at the default level, file).
const shopV2 = `syntax = "proto3";
package shop;
message Charge {
  string id = 1;
  string price = 2;
}
`
