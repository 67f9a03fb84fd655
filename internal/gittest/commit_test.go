package gittest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/gittest"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCommitAsGitDoes holds Commit to git: the tree git itself writes for
// the same files, a clean status after, a history git's fsck accepts, and
// `git add PATHS` / `commit -a` staging (additions, changes, removals).
func TestCommitAsGitDoes(t *testing.T) {
	files := map[string]string{"api/openapi.yaml": "openapi: 3.0.3\n", "api/v1/a.proto": "syntax = \"proto3\";\n",
		"a.b": "1\n", "a-": "2\n", "a/c": "3\n", "é/x.yaml": "4\n", "run.sh": "#!/bin/sh\n"}
	r := gittest.New(t)
	write(t, r.Dir, files)
	if err := os.Chmod(filepath.Join(r.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("api", filepath.Join(r.Dir, "shared")); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	id, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "v1", Paths: []string{"."}, Tag: "v1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	// The same files staged by git make the same tree.
	g := gittest.New(t)
	write(t, g.Dir, files)
	if err := os.Chmod(filepath.Join(g.Dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("api", filepath.Join(g.Dir, "shared")); err != nil {
		t.Fatal(err)
	}
	g.Git(t, "add", "-A")
	if got, want := r.Git(t, "rev-parse", "HEAD^{tree}"), g.Git(t, "write-tree"); got != want {
		t.Errorf("tree %s, git writes %s", got, want)
	}
	if got := r.Git(t, "rev-parse", "v1.0.0", "main"); got != id+"\n"+id {
		t.Errorf("tag and branch name %q, want %s", got, id)
	}
	if st := r.Git(t, "status", "--porcelain"); st != "" {
		t.Errorf("status after the commit:\n%s", st)
	}

	// git add api: a change and an addition under api/, a removal too;
	// the file outside api/ stays unstaged.
	write(t, r.Dir, map[string]string{"api/openapi.yaml": "openapi: 3.1.0\n", "api/new.yaml": "5\n", "a.b": "changed\n"})
	if err := os.Remove(filepath.Join(r.Dir, "api", "v1", "a.proto")); err != nil {
		t.Fatal(err)
	}
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "v2", Paths: []string{"api"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Git(t, "show", "--name-status", "--format=%s %P"), "v2 "+id+"\n\nA\tapi/new.yaml\nM\tapi/openapi.yaml\nD\tapi/v1/a.proto"; got != want {
		t.Errorf("git show:\n%s\nwant:\n%s", got, want)
	}
	if st := r.Git(t, "status", "--porcelain"); st != "M a.b" {
		t.Errorf("status: %q, want only a.b changed", st)
	}

	// commit -a takes the tracked change and leaves a new file untracked.
	write(t, r.Dir, map[string]string{"untracked.yaml": "6\n"})
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "v3", All: true}); err != nil {
		t.Fatal(err)
	}
	if st := r.Git(t, "status", "--porcelain"); st != "?? untracked.yaml" {
		t.Errorf("status: %q, want only untracked.yaml", st)
	}
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "v4", All: true}); err == nil || !strings.Contains(err.Error(), "nothing to commit") {
		t.Errorf("a commit of nothing: %v", err)
	}
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "v4", Paths: []string{"nowhere"}}); err == nil {
		t.Error("a path that matches nothing is committed")
	}
	r.Git(t, "fsck", "--strict", "--no-dangling")
	if got := r.Git(t, "log", "--format=%s", "main"); got != "v3\nv2\nv1" {
		t.Errorf("log: %q", got)
	}
}

// TestCommitRefuses: what Commit does not model is an error, for the
// caller to run git instead, never a commit git would not have made.
func TestCommitRefuses(t *testing.T) {
	r := gittest.New(t)
	write(t, r.Dir, map[string]string{".gitignore": "*.log\n", "a.yaml": "1\n"})
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "m", Paths: []string{"."}}); err == nil {
		t.Error("a tree with a .gitignore is committed")
	}
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "m", Paths: []string{"a.yaml"},
		Getenv: func(string) string { return "" }}); err == nil {
		t.Error("a commit without an author is made")
	}
}

// TestCommitDates: a date a test fixes (RFC 3339 or a Unix time and zone)
// is the one git records for the same setting, and --allow-empty commits
// the parent's tree again; a date in another spelling is left to git.
func TestCommitDates(t *testing.T) {
	r := gittest.New(t)
	write(t, r.Dir, map[string]string{"a.yaml": "1\n"})
	r.Commit(t, "first", ".")
	for _, date := range []string{"2024-03-01T10:00:00+02:00", "1700000000 -0130"} {
		env := func(k string) string {
			if strings.HasSuffix(k, "_DATE") {
				return date
			}
			return os.Getenv(k)
		}
		if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "dated", AllowEmpty: true, Getenv: env}); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GIT_AUTHOR_DATE", date)
		t.Setenv("GIT_COMMITTER_DATE", date)
		r.Git(t, "commit", "-q", "--allow-empty", "-m", "dated by git")
		if got := strings.Split(r.Git(t, "log", "-2", "--date=raw", "--format=%ad %cd %T"), "\n"); len(got) != 2 || got[0] != got[1] {
			t.Errorf("%s: the dates written here and git's differ: %q", date, got)
		}
	}
	t.Setenv("GIT_AUTHOR_DATE", "yesterday")
	if _, err := gittest.Commit(r.Dir, gittest.CommitOptions{Message: "m", AllowEmpty: true}); !errors.Is(err, gittest.ErrNotModelled) {
		t.Errorf("a date git parses by its own rules: %v, want ErrNotModelled", err)
	}
}
