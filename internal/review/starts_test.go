package review

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitStarts runs f and lists the git commands it started, each as its
// subcommand (the first word after git's own -c options): git's trace2
// log records every git process's start, its children's too.
func gitStarts(t *testing.T, f func()) []string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "trace2")
	t.Setenv("GIT_TRACE2", log)
	f()
	os.Unsetenv("GIT_TRACE2") // the test's own git runs after f are not f's
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		_, argv, ok := strings.Cut(line, " start ")
		args := strings.Fields(argv)
		if !ok || len(args) == 0 {
			continue
		}
		args = args[1:] // git, by whatever path it was started
		for len(args) > 1 && args[0] == "-c" {
			args = args[2:]
		}
		if len(args) > 0 {
			out = append(out, args[0])
		}
	}
	return out
}

// A review asks git only what it uses: the remote's URL only when a report
// asks for it (most print none), HEAD and the path arguments' prefix with
// the top. The common reviews —
// the pre-commit hook's (the index) and a branch's working tree against
// origin's default branch — start these git processes and no more.
func TestRunGitStarts(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api.yaml", pets("name", "age"))
	r.commit("v1")
	r.git("remote", "add", "origin", "https://user:secret@example.com/acme/api.git")
	r.git("update-ref", "refs/remotes/origin/main", r.head())
	r.newBranch("feature")
	r.write("api.yaml", pets("name"))
	var res *Result
	run := func(staged bool, paths ...string) func() {
		return func() {
			o := options(r.top)
			o.Staged, o.Paths = staged, paths
			var err error
			if res, err = Run(o); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The working tree: the top, HEAD and the shallow file; the branches;
	// the base's tree; the work tree's files; the changes; the blobs.
	want := []string{"rev-parse", "for-each-ref", "ls-tree", "ls-files", "diff", "cat-file"}
	if got := gitStarts(t, run(false)); !slices.Equal(got, want) {
		t.Errorf("a branch's review started git %q, want %q", got, want)
	}
	if res.Compared != 1 {
		t.Fatalf("compared %d contracts, want 1", res.Compared)
	}
	// A path argument is named from the top by what opening read.
	if got := gitStarts(t, run(false, "api.yaml")); !slices.Equal(got, want) || res.Compared != 1 {
		t.Errorf("a review of one path started git %q, want %q, and compared %d contracts, want 1", got, want, res.Compared)
	}
	r.git("add", "-A")
	// The index: its base is HEAD, which opening the repository read.
	want = []string{"rev-parse", "ls-tree", "ls-files", "diff", "cat-file"}
	if got := gitStarts(t, run(true)); !slices.Equal(got, want) {
		t.Errorf("a staged review started git %q, want %q", got, want)
	}
	// Asked, the URL is read once, without the credentials.
	var uri string
	got := gitStarts(t, func() { uri = res.RemoteURI(); uri = res.RemoteURI() })
	if want := []string{"remote"}; !slices.Equal(got, want) {
		t.Errorf("RemoteURI twice started git %q, want %q", got, want)
	}
	if want := "https://example.com/acme/api.git"; uri != want {
		t.Errorf("RemoteURI = %q, want %q", uri, want)
	}
}

// RemoteURI names origin by its fetch URL without user name or password;
// an scp-like address becomes an ssh URL; no origin, or one that is no
// URL, is "".
func TestRemoteURI(t *testing.T) {
	r := newRepo(t, "main")
	// A Repo of the top alone: RemoteURI needs no more of OpenRepo.
	repo := func() *Repo { return &Repo{Top: r.top} }
	if got := repo().RemoteURI(); got != "" {
		t.Errorf("no remote: RemoteURI = %q, want \"\"", got)
	}
	r.git("remote", "add", "upstream", "https://example.com/other.git")
	if got := repo().RemoteURI(); got != "" {
		t.Errorf("no origin: RemoteURI = %q, want \"\"", got)
	}
	r.git("remote", "add", "origin", "x")
	for url, want := range map[string]string{
		"git@github.com:acme/api.git":             "ssh://github.com/acme/api.git",
		"https://tok:x-oauth@github.com/acme/api": "https://github.com/acme/api",
		"ssh://git@example.com:2222/acme/api.git": "ssh://example.com:2222/acme/api.git",
		"/srv/git/api.git":                        "",
		"user@host-without-path":                  "",
	} {
		r.git("remote", "set-url", "origin", url)
		if got := repo().RemoteURI(); got != want {
			t.Errorf("origin %s: RemoteURI = %q, want %q", url, got, want)
		}
	}
}
