package review

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
)

func TestOpenRepo(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/keep", "")
	// Names in a review are repository-relative wherever it starts.
	repo, err := OpenRepo(filepath.Join(r.top, "api"))
	if err != nil {
		t.Fatal(err)
	}
	if repo.Top != r.top {
		t.Errorf("Top = %q, want %q", repo.Top, r.top)
	}

	_, err = OpenRepo(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "review needs a git work tree") {
		t.Errorf("outside a repository: err = %v, want one saying review needs a git work tree", err)
	}
}

func TestResolveBaseExplicit(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a", "1")
	c1 := r.commit("c1")
	r.write("a", "2")
	r.commit("c2")
	r.git("tag", "v1", c1)

	repo := r.repo()
	for _, ref := range []string{"HEAD~1", "v1", c1, c1[:10]} {
		b, err := repo.ResolveBase(ref)
		if err != nil {
			t.Fatalf("ResolveBase(%q): %v", ref, err)
		}
		if b.Commit != c1 || b.Ref != ref || b.Why != "" {
			t.Errorf("ResolveBase(%q) = %+v, want commit %s chosen as %q", ref, b, c1, ref)
		}
	}
	// An annotated tag names a tag object; the base must be its commit, the
	// only thing a tree can be read from.
	r.git("tag", "-a", "-m", "release", "v1a", c1)
	if b, err := repo.ResolveBase("v1a"); err != nil || b.Commit != c1 {
		t.Errorf("ResolveBase(annotated tag) = %+v, %v; want commit %s", b, err, c1)
	}
}

func TestResolveBaseMissing(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a", "1")
	r.commit("c1")
	repo := r.repo()

	for _, ref := range []string{"0123456789abcdef0123456789abcdef01234567", "no-such-branch"} {
		_, err := repo.ResolveBase(ref)
		var me *MissingError
		if !errors.As(err, &me) {
			t.Fatalf("ResolveBase(%q): err = %v (%T), want *MissingError", ref, err, err)
		}
		for _, want := range []string{"base " + ref, "no such commit", "git fetch origin " + ref} {
			if !strings.Contains(me.Msg, want) {
				t.Errorf("ResolveBase(%q): message %q does not say %q", ref, me.Msg, want)
			}
		}
		if strings.Contains(me.Msg, "shallow") {
			t.Errorf("ResolveBase(%q): a full clone was called shallow: %q", ref, me.Msg)
		}
	}
	// A base that looks like an option must never reach git as one: --all
	// would otherwise resolve, and --output= would write a file.
	for _, ref := range []string{"--all", "--output=" + filepath.Join(r.top, "x")} {
		_, err := repo.ResolveBase(ref)
		var me *MissingError
		if !errors.As(err, &me) {
			t.Errorf("ResolveBase(%q): err = %v (%T), want *MissingError", ref, err, err)
		}
	}
	if _, err := os.Stat(filepath.Join(r.top, "x")); err == nil {
		t.Error("a base of --output=FILE made git write FILE")
	}
}

func TestResolveBaseDefaultBranch(t *testing.T) {
	for _, branch := range []string{"main", "master"} {
		t.Run(branch, func(t *testing.T) {
			r := newRepo(t, branch)
			r.write("a", "1")
			r.commit("c1")
			r.write("a", "2")
			fork := r.commit("c2")
			r.newBranch("feature")
			r.write("a", "3")
			r.commit("f1")
			r.write("a", "4")
			r.commit("f2")
			// The default branch moving on must not move the base.
			r.git("checkout", "-q", branch)
			r.write("b", "1")
			r.commit("c3")
			r.git("checkout", "-q", "feature")

			b, err := r.repo().ResolveBase("")
			if err != nil {
				t.Fatal(err)
			}
			if want := (Base{Commit: fork, Ref: branch, Why: "merge base of HEAD"}); b != want {
				t.Errorf("ResolveBase = %+v, want %+v", b, want)
			}
		})
	}
}

// origin/HEAD is the remote's default branch and wins over a local main
// that may be stale or ahead.
func TestResolveBaseOriginHEADFirst(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a", "1")
	c1 := r.commit("c1")
	r.write("a", "2")
	r.commit("c2")
	r.git("update-ref", "refs/remotes/origin/main", c1)
	r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	r.newBranch("feature")
	r.write("a", "3")
	r.commit("f1")

	b, err := r.repo().ResolveBase("")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Base{Commit: c1, Ref: "origin/HEAD", Why: "merge base of HEAD"}); b != want {
		t.Errorf("ResolveBase = %+v, want %+v", b, want)
	}
}

// Without a default branch to fork from, the last commit is the change.
func TestResolveBaseWithoutDefaultBranch(t *testing.T) {
	r := newRepo(t, "trunk")
	b, err := r.repo().ResolveBase("")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Base{Commit: source.EmptyTree, Why: "no commits yet"}); b != want {
		t.Errorf("before the first commit: ResolveBase = %+v, want %+v", b, want)
	}

	r.write("a", "1")
	c1 := r.commit("c1")
	if b, err = r.repo().ResolveBase(""); err != nil {
		t.Fatal(err)
	}
	if want := (Base{Commit: source.EmptyTree, Why: "the first commit"}); b != want {
		t.Errorf("one commit: ResolveBase = %+v, want %+v", b, want)
	}

	r.write("a", "2")
	r.commit("c2")
	if b, err = r.repo().ResolveBase(""); err != nil {
		t.Fatal(err)
	}
	if want := (Base{Commit: c1, Ref: "HEAD~1", Why: "no default branch"}); b != want {
		t.Errorf("two commits: ResolveBase = %+v, want %+v", b, want)
	}
}

// On the default branch itself the merge base is HEAD: review then shows
// what is not committed yet, never the last commit again.
func TestResolveBaseOnDefaultBranch(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a", "1")
	r.commit("c1")
	r.write("a", "2")
	head := r.commit("c2")
	b, err := r.repo().ResolveBase("")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Base{Commit: head, Ref: "main", Why: "merge base of HEAD"}); b != want {
		t.Errorf("ResolveBase = %+v, want %+v", b, want)
	}
}

func TestResolveBaseShallow(t *testing.T) {
	origin := newRepo(t, "main")
	origin.write("a", "1")
	origin.commit("c1")
	origin.newBranch("feature")
	origin.write("a", "2")
	origin.commit("f1")
	origin.write("a", "3")
	origin.commit("f2")
	origin.git("checkout", "-q", "main")
	origin.write("b", "1")
	origin.commit("c2")

	clone := filepath.Join(t.TempDir(), "shallow")
	gitIn(t, origin.top, "clone", "-q", "--depth", "1", "--no-single-branch", "--branch", "feature",
		"file://"+filepath.ToSlash(origin.top), clone)
	repo, err := OpenRepo(clone)
	if err != nil {
		t.Fatal(err)
	}

	var me *MissingError
	_, err = repo.ResolveBase("HEAD~1")
	if !errors.As(err, &me) {
		t.Fatalf("ResolveBase(HEAD~1): err = %v, want *MissingError", err)
	}
	for _, want := range []string{"not in this shallow clone", "git fetch origin HEAD~1", "--deepen"} {
		if !strings.Contains(me.Msg, want) {
			t.Errorf("ResolveBase(HEAD~1): message %q does not say %q", me.Msg, want)
		}
	}

	// The fork point with main is below the clone's depth: the message must
	// ask for history, not pretend the branch has no base.
	_, err = repo.ResolveBase("")
	if !errors.As(err, &me) {
		t.Fatalf("ResolveBase(\"\"): err = %v, want *MissingError", err)
	}
	for _, want := range []string{"no merge base of HEAD with origin/", "shallow clone", "git fetch --deepen", "--base"} {
		if !strings.Contains(me.Msg, want) {
			t.Errorf("ResolveBase(\"\"): message %q does not say %q", me.Msg, want)
		}
	}

	gitIn(t, clone, "fetch", "-q", "--deepen=1")
	b, err := repo.ResolveBase("HEAD~1")
	if err != nil || b.Ref != "HEAD~1" {
		t.Errorf("after deepening: ResolveBase(HEAD~1) = %+v, %v", b, err)
	}
}

// A suggested command is pasted into a shell: the ref in it is quoted, and a
// ref that looks like an option is refused rather than suggested.
func TestResolveBaseSuggestionQuoted(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a", "1")
	r.commit("c1")
	repo := r.repo()

	_, err := repo.ResolveBase("--upload-pack=touch X")
	var me *MissingError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v (%T), want *MissingError", err, err)
	}
	if strings.Contains(me.Msg, "git fetch") || !strings.Contains(me.Msg, "begins with '-'") {
		t.Errorf("a ref beginning with '-': message %q, want a refusal that suggests no command", me.Msg)
	}

	// A line break would start a line of its own on standard error.
	_, err = repo.ResolveBase("main\n::error title=x::boom")
	if !errors.As(err, &me) || strings.Contains(me.Msg, "\n") {
		t.Errorf("a ref with a line break: %v, want a refusal on one line", err)
	}

	_, err = repo.ResolveBase("feature branch;touch X")
	if !errors.As(err, &me) {
		t.Fatalf("err = %v (%T), want *MissingError", err, err)
	}
	if want := "git fetch origin 'feature branch;touch X'"; !strings.Contains(me.Msg, want) {
		t.Errorf("message %q, want the ref quoted: %s", me.Msg, want)
	}
}

func TestBaseString(t *testing.T) {
	for _, c := range []struct {
		b    Base
		want string
	}{
		{Base{Commit: "3f2a1c9e0000", Ref: "main", Why: "merge base of HEAD"}, "main @ 3f2a1c9, merge base of HEAD"},
		{Base{Commit: "3f2a1c9e0000", Ref: "v1"}, "v1 @ 3f2a1c9"},
		{Base{Commit: source.EmptyTree, Why: "no commits yet"}, "the empty tree (no commits yet)"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.b, got, c.want)
		}
	}
}
