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
	if !strings.Contains(out, "field-redefined") || !strings.Contains(out, "api/shop.proto:5:3") {
		t.Errorf("the hook's output does not name the finding:\n%s", out)
	}
	if log := must(t, work, env, "git", "log", "--format=%s"); strings.TrimSpace(log) != "v1" {
		t.Errorf("history after the blocked commit: %q, want only v1", log)
	}

	// The hook compares the index with HEAD: once a break is committed
	// on a branch (here past the hook), a later harmless commit to the
	// file passes.
	must(t, work, env, "git", "checkout", "-q", "-b", "feature")
	must(t, work, env, "git", "commit", "-q", "--no-verify", "-m", "v2")
	write(t, filepath.Join(work, "api", "shop.proto"), shopV2+"message Refund {\n  string id = 1;\n}\n")
	must(t, work, env, "git", "add", "api/shop.proto")
	if out, err := run(t, work, env, "git", "commit", "-q", "-m", "v3"); err != nil {
		t.Errorf("a harmless commit after a committed break was blocked: %v\n%s", err, out)
	}

	// pre-commit passes no deleted files to a hook: the hook must run
	// anyway, or a deleted contract slips through.
	must(t, work, env, "git", "rm", "-q", "-f", "api/shop.proto")
	out, err = run(t, work, env, "git", "commit", "-q", "-m", "delete")
	if _, ok := err.(*exec.ExitError); !ok || !strings.Contains(out, "contract-file-removed") {
		t.Errorf("a commit deleting a contract: err %v, want it blocked with contract-file-removed:\n%s", err, out)
	}
}
