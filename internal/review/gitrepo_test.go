package review

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/gittest"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// gitEnv isolates git, both the calls these tests make and the ones the
// code under test makes, from the user's configuration and from any
// repository the test process happens to run inside (a hook sets GIT_DIR).
func gitEnv(t testing.TB) {
	t.Helper()
	gittest.Isolate(t)
}

// testRepo is a throwaway git work tree.
type testRepo struct {
	t   testing.TB
	top string
}

// emptyRepo is the .git directory `git init` makes, made once for the
// package in templateDir and copied by every newRepo: a hundred test
// repositories then start no git init of their own, and each still has
// what git wrote for this machine's file system (core.ignorecase and the
// like, which git init probes).
var emptyRepo struct {
	once sync.Once
	git  string
	err  error
}

// templateDir holds emptyRepo; TestMain removes it.
var templateDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "review-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	templateDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newRepo makes an empty repository whose first branch is branch.
func newRepo(t testing.TB, branch string) *testRepo {
	t.Helper()
	gitEnv(t)
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return newRepoAt(t, top, branch)
}

// newRepoAt makes it in the directory top, which must be empty or absent.
func newRepoAt(t testing.TB, top, branch string) *testRepo {
	t.Helper()
	gitEnv(t)
	r := &testRepo{t: t, top: top}
	emptyRepo.once.Do(func() {
		// No template: a test repository needs no sample hooks.
		emptyRepo.git = filepath.Join(templateDir, ".git")
		_, emptyRepo.err = exec.Command("git", "init", "-q", "--template=", templateDir).CombinedOutput()
	})
	if emptyRepo.err != nil {
		t.Fatalf("git init: %v", emptyRepo.err)
	}
	git := filepath.Join(top, ".git")
	if err := os.CopyFS(git, os.DirFS(emptyRepo.git)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// git runs git in the work tree and returns its trimmed output.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return gitIn(r.t, r.top, args...)
}

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) write(name, text string) {
	r.t.Helper()
	writeFile(r.t, filepath.Join(r.top, filepath.FromSlash(name)), text)
}

func (r *testRepo) remove(name string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.top, filepath.FromSlash(name))); err != nil {
		r.t.Fatal(err)
	}
}

// commit records every change in the work tree and returns the commit id:
// written in this process where gittest.Commit models the repository (two
// git starts per commit were a fifth of this package's), else by git.
func (r *testRepo) commit(msg string) string {
	r.t.Helper()
	id, err := gittest.Commit(r.top, gittest.CommitOptions{Message: msg, Paths: []string{"."}, AllowEmpty: true})
	if err == nil {
		return id
	}
	if !errors.Is(err, gittest.ErrNotModelled) {
		r.t.Fatal(err)
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.head()
}

// newBranch starts branch at HEAD and checks it out, as `git checkout -b`
// does: written here when HEAD is a branch gittest models, the work tree
// and index left as they are.
func (r *testRepo) newBranch(branch string) {
	r.t.Helper()
	at, head, err := gittest.Head(r.top)
	if err != nil || head == "" || at == "HEAD" || strings.ContainsAny(branch, " ~^:?*[\\") || strings.HasPrefix(branch, "-") {
		r.git("checkout", "-q", "-b", branch)
		return
	}
	git := filepath.Join(r.top, ".git")
	ref := "refs/heads/" + branch
	if _, err := os.Lstat(filepath.Join(git, filepath.FromSlash(ref))); err == nil {
		r.git("checkout", "-q", "-b", branch) // git says the branch exists
		return
	}
	writeFile(r.t, filepath.Join(git, filepath.FromSlash(ref)), head+"\n")
	writeFile(r.t, filepath.Join(git, "HEAD"), "ref: "+ref+"\n")
}

// tag tags commit (HEAD when "") with a lightweight tag, as `git tag name
// commit` does: the ref written here when the repository is plain.
func (r *testRepo) tag(name, commit string) {
	r.t.Helper()
	_, head, err := gittest.Head(r.top)
	ref := filepath.Join(r.top, ".git", "refs", "tags", filepath.FromSlash(name))
	if _, taken := os.Lstat(ref); err != nil || taken == nil || strings.ContainsAny(name, " ~^:?*[\\") || strings.HasPrefix(name, "-") {
		r.git("tag", name, cmp.Or(commit, "HEAD"))
		return
	}
	writeFile(r.t, ref, cmp.Or(commit, head)+"\n")
}

// addAll stages every change in the work tree, as `git add -A` does.
func (r *testRepo) addAll() {
	r.t.Helper()
	err := gittest.Stage(r.top, ".")
	if err == nil {
		return
	}
	if !errors.Is(err, gittest.ErrNotModelled) {
		r.t.Fatal(err)
	}
	r.git("add", "-A")
}

// head is HEAD's commit, read from the files git keeps it in when it can
// be: a git run for it is a tenth of what a test repository costs.
func (r *testRepo) head() string {
	r.t.Helper()
	git := filepath.Join(r.top, ".git")
	b, err := os.ReadFile(filepath.Join(git, "HEAD"))
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); err == nil && ok {
		b, err = os.ReadFile(filepath.Join(git, filepath.FromSlash(ref)))
	}
	if id := strings.TrimSpace(string(b)); err == nil && len(id) == 40 {
		return id
	}
	return r.git("rev-parse", "HEAD") // a packed ref, or a .git file
}

func (r *testRepo) repo() *Repo {
	r.t.Helper()
	repo, err := OpenRepo(r.top)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}

func writeFile(t testing.TB, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// options are what `contractlint review` runs with when nothing is
// configured: the default rules and contract globs.
func options(dir string) Options {
	return Options{
		Dir:      dir,
		Globs:    config.DefaultContracts,
		Pipeline: pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}},
	}
}

// hasRule reports a finding of rule id, or one that stands for it (one
// edit, one finding: its Also).
func hasRule(fs []rules.Finding, id string) bool {
	return len(findingsOf(fs, id)) > 0
}

func findingsOf(fs []rules.Finding, id string) []rules.Finding {
	var out []rules.Finding
	for _, f := range fs {
		if f.Rule == id || slices.Contains(f.Also, id) {
			out = append(out, f)
		}
	}
	return out
}
