package delivery

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreCommitHook installs this repository's hook with the real pre-commit
// framework in a throwaway repository and runs it in every mode pre-commit
// has: a commit (a clean one passes, a breaking one and a deletion are
// blocked), `run --all-files` and `run --from-ref --to-ref` on a branch that
// carries a break, and a pre-push hook pushing to a bare remote.
func TestPreCommitHook(t *testing.T) {
	need(t, "pre-commit")
	// .ci/parts installed the hook with pre-commit, from a clone of HEAD
	// into its own PRE_COMMIT_HOME: the configuration below names the same
	// repository and rev, so pre-commit finds it installed.
	parts := part(t, "CONTRACTLINT_PRECOMMIT")
	top := repoTop(t)
	head := strings.TrimSpace(must(t, top, nil, "git", "rev-parse", "HEAD"))
	hookRepo := filepath.Join(parts, "hook")
	if got := strings.TrimSpace(must(t, hookRepo, nil, "git", "rev-parse", "HEAD")); got != head {
		t.Fatalf("the hook .ci/parts installed is at %s, HEAD is %s: run .ci/parts again", got, head)
	}
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	must(t, tmp, gitEnv, "git", "init", "-q", "-b", "main", work)
	write(t, filepath.Join(work, ".pre-commit-config.yaml"), fmt.Sprintf(
		"repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: contractlint\n", hookRepo, head))
	// A go that refuses: were pre-commit to install the hook again, the
	// test would compile it.
	tools := filepath.Join(tmp, "tools")
	executable(t, filepath.Join(tools, "go"), "#!/bin/sh\necho \"go $*: pre-commit tried to build the hook; .ci/parts installs it\" >&2\nexit 1\n")
	env := append(gitEnv, "PRE_COMMIT_HOME="+filepath.Join(parts, "pre-commit-home"),
		"PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	must(t, work, env, "pre-commit", "install", "-t", "pre-commit", "-t", "pre-push")
	// Every run's output, checked at the end for pre-commit's warnings
	// (`[WARNING] repo ... uses deprecated stage names ...` and the like):
	// a team copying the README must see none.
	var outs []string
	run := func(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
		t.Helper()
		out, err := run(t, dir, env, name, args...)
		outs = append(outs, out)
		return out, err
	}
	defer func() {
		for _, out := range outs {
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "[WARNING]") {
					t.Errorf("pre-commit warned: %s", line)
				}
			}
		}
	}()

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

	// The break is committed on the branch: the modes that review the
	// branch or a range see it, on main they pass.
	allFiles := func(want bool) {
		t.Helper()
		out, err := run(t, work, env, "pre-commit", "run", "--all-files")
		if failed(err) != want || want && !strings.Contains(out, "field-redefined") {
			t.Errorf("pre-commit run --all-files: err %v, want failed %v with the break:\n%s", err, want, out)
		}
	}
	allFiles(true)
	out, err = run(t, work, env, "pre-commit", "run", "--from-ref", "main", "--to-ref", "HEAD")
	if !failed(err) || !strings.Contains(out, "field-redefined") {
		t.Errorf("pre-commit run --from-ref main --to-ref HEAD: err %v, want the break:\n%s", err, out)
	}
	// The last commit alone is harmless: the range is exactly what is reviewed.
	if out, err := run(t, work, env, "pre-commit", "run", "--from-ref", "HEAD~1", "--to-ref", "HEAD"); err != nil {
		t.Errorf("pre-commit run --from-ref HEAD~1 --to-ref HEAD (a harmless commit): %v\n%s", err, out)
	}
	must(t, work, env, "git", "checkout", "-q", "main")
	allFiles(false)

	// pre-push: main's first push is the whole tree (pre-commit's
	// --all-files), clean; the branch's first push names the range from
	// main, and is refused.
	remote := filepath.Join(tmp, "remote.git")
	must(t, tmp, gitEnv, "git", "init", "-q", "--bare", remote)
	must(t, work, env, "git", "remote", "add", "origin", remote)
	if out, err := run(t, work, env, "git", "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("pushing a clean main was refused: %v\n%s", err, out)
	}
	out, err = run(t, work, env, "git", "push", "-q", "origin", "feature")
	if !failed(err) || !strings.Contains(out, "field-redefined") {
		t.Errorf("pushing a branch that breaks the contract: err %v, want it refused naming the break:\n%s", err, out)
	}
	if out, _ := run(t, remote, gitEnv, "git", "rev-parse", "--verify", "--quiet", "refs/heads/feature"); out != "" {
		t.Errorf("the refused branch reached the remote at %s", out)
	}

	// pre-commit passes no deleted files to a hook: the hook must run
	// anyway, or a deleted contract slips through.
	must(t, work, env, "git", "rm", "-q", "-f", "api/shop.proto")
	out, err = run(t, work, env, "git", "commit", "-q", "-m", "delete")
	if !failed(err) || !strings.Contains(out, "contract-file-removed") {
		t.Errorf("a commit deleting a contract: err %v, want it blocked with contract-file-removed:\n%s", err, out)
	}
}

// failed reports whether a command ran and exited non-zero.
func failed(err error) bool {
	_, ok := err.(*exec.ExitError)
	return ok
}
