// Package gittest makes throwaway git repositories for tests: git, the
// test's calls and the code's under test alike, kept away from the user's
// configuration and from any repository the test runs inside.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Isolate sets the environment git reads for the rest of the test: a
// throwaway HOME and global config, a fixed author, no GIT_DIR a hook may
// have set. Without git it skips, except in CI (CI=true), where a missing
// git must fail the run rather than leave the test unrun.
func Isolate(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true, so this fails instead of skipping)")
		}
		t.Skip("git is not installed")
	}
	IsolateEnv(t)
}

// IsolateEnv sets the environment Isolate sets, whether or not git is
// installed: for a test whose subtests decide for themselves (scripts that
// skip without git) while the code they run in-process starts git with
// this process's environment.
func IsolateEnv(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	// file:// clones make shallow repositories.
	if err := os.WriteFile(filepath.Join(home, "gitconfig"), []byte("[protocol \"file\"]\n\tallow = always\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
		"GIT_CONFIG_GLOBAL": filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1", "HOME": home,
		"GIT_CEILING_DIRECTORIES": filepath.Dir(home),
	} {
		t.Setenv(k, v)
	}
	for _, kv := range QuietEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"} {
		t.Setenv(k, "") // restores the old value after the test
		os.Unsetenv(k)
	}
}

// QuietEnv is the configuration every isolated git runs with, as
// GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n ("NAME=value"
// entries), for a caller that builds git's environment itself (a script's):
// no `git maintenance run --auto` after each commit, merge or fetch, a
// process each that a throwaway repository never needs.
func QuietEnv() []string {
	return []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=maintenance.auto", "GIT_CONFIG_VALUE_0=false"}
}

// Repo is a throwaway work tree.
type Repo struct{ Dir string }

// New isolates git and makes an empty repository whose branch is main
// (see Init).
func New(t testing.TB) *Repo {
	t.Helper()
	Isolate(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := Init(dir, "main"); err != nil {
		t.Fatal(err)
	}
	return &Repo{Dir: dir}
}

// Git runs git in the work tree and returns its trimmed output.
func (r *Repo) Git(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
