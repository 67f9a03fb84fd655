package delivery

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreCommitHook installs this repository's hook with the real pre-commit
// framework in a throwaway repository: a clean commit passes, a breaking one
// is blocked.
func TestPreCommitHook(t *testing.T) {
	need(t, "pre-commit")
	need(t, "go")
	top := repoTop(t)
	head := strings.TrimSpace(must(t, top, nil, "git", "rev-parse", "HEAD"))
	tmp := t.TempDir()
	hookRepo := filepath.Join(tmp, "hook")
	must(t, tmp, gitEnv, "git", "clone", "-q", "--no-hardlinks", top, hookRepo)
	if out, err := run(t, hookRepo, gitEnv, "git", "cat-file", "-e", head+":.pre-commit-hooks.yaml"); err != nil {
		t.Fatalf("HEAD has no .pre-commit-hooks.yaml (commit it first): %s", out)
	}

	work := filepath.Join(tmp, "work")
	must(t, tmp, gitEnv, "git", "init", "-q", "-b", "main", work)
	write(t, filepath.Join(work, ".pre-commit-config.yaml"), fmt.Sprintf(
		"repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: contractlint\n", hookRepo, head))
	// pre-commit builds the hook with its own GOPATH; the module cache and
	// build cache of this machine are reused, and nothing is downloaded.
	gomodcache := strings.TrimSpace(must(t, top, nil, "go", "env", "GOMODCACHE"))
	env := append(gitEnv, "PRE_COMMIT_HOME="+filepath.Join(tmp, "pre-commit-home"),
		"GOMODCACHE="+gomodcache, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	must(t, work, env, "pre-commit", "install")

	write(t, filepath.Join(work, "api", "shop.proto"), shopV1)
	must(t, work, env, "git", "add", ".")
	if out, err := run(t, work, env, "git", "commit", "-q", "-m", "v1"); err != nil {
		t.Fatalf("the first commit was blocked: %v\n%s", err, out)
	}

	write(t, filepath.Join(work, "api", "shop.proto"), shopV2)
	must(t, work, env, "git", "add", "api/shop.proto")
	out, err := run(t, work, env, "git", "commit", "-q", "-m", "v2")
	if _, ok := err.(*exec.ExitError); !ok {
		t.Fatalf("the breaking commit was not blocked (err %v):\n%s", err, out)
	}
	if !strings.Contains(out, "proto-field-type-wire-json-incompatible") || !strings.Contains(out, "api/shop.proto:5:3") {
		t.Errorf("the hook's output does not name the finding:\n%s", out)
	}
	if log := must(t, work, env, "git", "log", "--format=%s"); strings.TrimSpace(log) != "v1" {
		t.Errorf("history after the blocked commit: %q, want only v1", log)
	}
}
