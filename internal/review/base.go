package review

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/contractlint/contractlint/internal/source"
)

// Repo is the git work tree a review runs in.
type Repo struct {
	// Top is the work tree's top directory; every name is relative to it.
	Top string
	// walks holds the history walks this review has made.
	walks walks
	// remoteList is `git remote -v`, read once (remotes).
	remoteOnce sync.Once
	remoteList string
	// listedTags are the tags branches listed with the branches, for the
	// review whose base that chose; OpenSides takes them.
	listedTags *tagList
	// shallowFile is where git lists a shallow clone's edge commits; a
	// repository is shallow while it holds any.
	shallowFile string
	// head is HEAD's commit when the repository was opened, "" before the
	// first commit: a Repo serves one command, during which HEAD stays.
	head string
	// dir is the directory the repository was opened from and prefix its
	// path from the top ("api/", "" at the top), which names path
	// arguments given from there (repoPaths).
	dir, prefix string
}

// OpenRepo finds the repository holding dir.
func OpenRepo(dir string) (*Repo, error) {
	// One git run finds the top, dir's place under it, the shallow file
	// and HEAD's commit: a review reads that file rather than asking git
	// again whether the clone is shallow, and its path arguments, the
	// staged review's base (HEAD) and a detached checkout's head cost no
	// git run of their own.
	out, err := source.RunGit(dir, "rev-parse", "--show-toplevel", "--show-prefix", "--git-path", "shallow",
		"--verify", "--quiet", "HEAD^{commit}")
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	switch {
	case len(lines) == 3 && err != nil:
		// --verify --quiet fails, saying nothing, when HEAD names no
		// commit yet; what the other options ask is printed first.
		lines = append(lines, "")
	case err != nil:
		return nil, fmt.Errorf("review needs a git work tree: %v", err)
	case len(lines) != 4:
		return nil, fmt.Errorf("review needs a git work tree: git rev-parse said %q", out)
	}
	file := lines[2]
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file) // git names it from dir
	}
	return &Repo{Top: lines[0], shallowFile: file, head: lines[3], dir: dir, prefix: lines[1]}, nil
}

func (r *Repo) git(args ...string) ([]byte, error) { return source.RunGit(r.Top, args...) }

// commit resolves rev to a commit id, or "" when the repository lacks it;
// HEAD was read when the repository was opened.
func (r *Repo) commit(rev string) string {
	if rev == "HEAD" {
		return r.head
	}
	if strings.HasPrefix(rev, "-") {
		return ""
	}
	out, err := r.git("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (r *Repo) shallow() bool { return len(r.shallowEdges()) > 0 }

// shallowEdges are the commits a shallow clone's history stops at, sorted
// (one answer, whatever order git wrote them in); none in a full clone.
func (r *Repo) shallowEdges() []string {
	b, err := os.ReadFile(r.shallowFile)
	if err != nil {
		return nil
	}
	edges := strings.Fields(string(b))
	slices.Sort(edges)
	return edges
}

// Base is the commit a review compares against and how it was chosen.
type Base struct {
	Commit string // a commit id, or source.EmptyTree before the first commit
	Ref    string // the name it was found by: --base's value, a branch, HEAD; "" for the empty tree
	Why    string // how Ref led to Commit, when not directly ("merge base of HEAD")
}

// String names the base as every report shows it:
// "main @ 3f2a1c9, merge base of HEAD".
func (b Base) String() string {
	if b.Commit == source.EmptyTree {
		return "the empty tree (" + b.Why + ")"
	}
	s := b.Ref + " @ " + b.Commit[:min(len(b.Commit), 7)]
	if b.Why != "" {
		s += ", " + b.Why
	}
	return s
}

// MissingError says which commit a shallow clone lacks and what to fetch.
type MissingError struct{ Msg string }

func (e *MissingError) Error() string { return e.Msg }

// ResolveBase picks the base: ref when given; else the merge base of HEAD
// with the default branch (origin/HEAD, then origin/main, origin/master,
// the current branch's upstream, then local main, master); else HEAD~1;
// else, in a repository with one commit or none, the empty tree. The base
// is never HEAD by accident: in a repository with a remote, the branch
// checked out is not its own base, and when no other is found on the
// default branch, review stops and says how to name one.
func (r *Repo) ResolveBase(ref string) (Base, error) {
	if strings.HasPrefix(ref, "-") {
		// Never echoed into a suggested command: git would read it as an option.
		return Base{}, &MissingError{fmt.Sprintf("base %q begins with '-': a ref name cannot, name a branch, tag or commit", ref)}
	}
	if strings.ContainsFunc(ref, unicode.IsControl) {
		// Quoted, never echoed raw: a line break would start a line of its
		// own on standard error (a workflow command in a CI log).
		return Base{}, &MissingError{fmt.Sprintf("base %q holds a control character: a ref name cannot, name a branch, tag or commit", ref)}
	}
	if ref == source.EmptyTree {
		// A push of new root commits: the remote holds none of it yet.
		return Base{Commit: source.EmptyTree, Why: "the push publishes new root commits"}, nil
	}
	if ref != "" {
		if c := r.commit(ref); c != "" {
			return Base{Commit: c, Ref: ref}, nil
		}
		if r.shallow() {
			return Base{}, &MissingError{fmt.Sprintf(
				"base %s is not in this shallow clone; fetch it with `git fetch origin %s` "+
					"(or deepen the clone: `git fetch --deepen=100`, or check out with fetch-depth: 0)", ref, ShellQuote(ref))}
		}
		return Base{}, &MissingError{fmt.Sprintf("base %s: no such commit in this repository; fetch it with `git fetch origin %s`", ref, ShellQuote(ref))}
	}
	refs := r.branches()
	head := refs.head
	if head == "" {
		head = r.commit("HEAD") // detached, or no commit yet
	}
	if head == "" {
		return Base{Commit: source.EmptyTree, Why: "no commits yet"}, nil
	}
	current := refs.current
	remote := sync.OnceValue(r.hasRemote)
	for _, branch := range defaultBranches(current, refs.upstream) {
		if current != "" && branch == current && remote() {
			continue // the branch itself: comparing it with HEAD reviews nothing committed
		}
		tip := refs.tip(r, branch)
		if tip == "" {
			continue
		}
		if tip == head {
			// A commit is its own merge base: no git run needed.
			return Base{Commit: head, Ref: shortRef(branch), Why: "merge base of HEAD"}, nil
		}
		out, err := r.git("merge-base", head, tip)
		if err == nil {
			return Base{Commit: strings.TrimSpace(string(out)), Ref: shortRef(branch), Why: "merge base of HEAD"}, nil
		}
		if r.shallow() {
			return Base{}, &MissingError{fmt.Sprintf(
				"no merge base of HEAD with %s in this shallow clone; fetch more history with `git fetch --deepen=100` "+
					"(or `git fetch --unshallow`), or name the base with --base", shortRef(branch))}
		}
	}
	if short := shortRef(current); (short == "main" || short == "master") && remote() {
		return Base{}, &MissingError{fmt.Sprintf(
			"cannot tell which commit to compare %s with: origin/HEAD is unset, %s has no upstream and there is no origin/main "+
				"or origin/master, and %s itself is HEAD. Name the base with --base (such as --base origin/main after "+
				"`git fetch origin`), or set the default once with `git remote set-head origin --auto`", short, short, short)}
	}
	if parent := r.commit("HEAD~1"); parent != "" {
		return Base{Commit: parent, Ref: "HEAD~1", Why: "no default branch"}, nil
	}
	if r.shallow() {
		return Base{}, &MissingError{"HEAD~1 is not in this shallow clone; fetch it with `git fetch --deepen=1`, or name the base with --base"}
	}
	return Base{Commit: source.EmptyTree, Why: "the first commit"}, nil
}

// defaultBranches are the refs a review without --base looks for its base
// in, in order: the remote's default, its main and master, the upstream of
// the current branch (a default branch named otherwise), then the local
// main and master of a repository that has no remote.
func defaultBranches(current, upstream string) []string {
	out := []string{"refs/remotes/origin/HEAD", "refs/remotes/origin/main", "refs/remotes/origin/master"}
	if current != "" && upstream != "" {
		out = append(out, upstream)
	}
	return append(out, "refs/heads/main", "refs/heads/master")
}

// branchRefs is what choosing a base reads of the branches, from one
// `git for-each-ref` rather than a git run per ref: the branch checked out
// ("refs/heads/main"; "" on a detached HEAD or before the first commit),
// its commit and upstream, and the commit of every local and origin branch.
type branchRefs struct {
	current, head, upstream string
	tips                    map[string]string
}

// listed are the ref namespaces branches lists: a ref under them that it
// did not list does not exist.
var listed = []string{"refs/heads/", "refs/remotes/origin/"}

// The same run lists the tags, which the review's released policy reads
// next (releaseTags): r.listedTags keeps them for OpenSides to hand on.
func (r *Repo) branches() branchRefs {
	b := branchRefs{tips: map[string]string{}}
	out, err := r.git(append([]string{"for-each-ref",
		"--format=%(HEAD)%00%(refname)%00%(objectname)%00%(objecttype)%00%(upstream)"}, slices.Concat(listed, []string{"refs/tags/"})...)...)
	if err != nil {
		return b
	}
	var tags []string
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) == 5 && strings.HasPrefix(f[1], "refs/tags/") {
			tags = append(tags, f[2]+"\x00"+f[1])
			continue
		}
		if len(f) != 5 || f[3] != "commit" {
			continue
		}
		b.tips[f[1]] = f[2]
		if f[0] == "*" {
			b.current, b.head, b.upstream = f[1], f[2], f[4]
		}
	}
	// Marked read: releaseTags answers from the list.
	r.listedTags = &tagList{}
	r.listedTags.once.Do(func() { r.listedTags.list = tags })
	return b
}

// tip is branch's commit, "" when there is none; an upstream outside the
// listed namespaces (another remote's branch) is asked of git.
func (b branchRefs) tip(r *Repo, branch string) string {
	for _, ns := range listed {
		if strings.HasPrefix(branch, ns) {
			return b.tips[branch]
		}
	}
	return r.commit(branch)
}

// hasRemote reports whether the repository has any remote: then what was
// committed locally may be unpublished, and HEAD is no base for it.
func (r *Repo) hasRemote() bool { return strings.TrimSpace(r.remotes()) != "" }

// remotes is `git remote -v`: every remote's URLs, origin's fetch URL as
// `git remote get-url origin` gives it (insteadOf applied). One git run
// answers both whether there is a remote and which repository this is.
func (r *Repo) remotes() string {
	r.remoteOnce.Do(func() {
		if out, err := r.git("remote", "-v"); err == nil {
			r.remoteList = string(out)
		}
	})
	return r.remoteList
}

// ResolveStaged picks the base of `review --staged`: HEAD, since a commit
// changes what the index holds relative to it; before the first commit, the
// empty tree.
func (r *Repo) ResolveStaged() Base {
	if head := r.commit("HEAD"); head != "" {
		return Base{Commit: head, Ref: "HEAD"}
	}
	return Base{Commit: source.EmptyTree, Why: "no commits yet"}
}

// resolveHead resolves --head to a commit ("" for none) and moves base to
// its merge base with it, as git diff BASE...HEAD does: a range reviews what
// the head's side changed since the two parted, not what the base gained.
func (r *Repo) resolveHead(ref string, base *Base) (string, error) {
	if ref == "" {
		return "", nil
	}
	head := r.commit(ref)
	if head == "" {
		return "", &MissingError{fmt.Sprintf("head %q: no such commit in this repository; fetch it with `git fetch origin %s`", ref, ShellQuote(ref))}
	}
	if head == base.Commit {
		return head, nil
	}
	if out, err := r.git("merge-base", base.Commit, head); err == nil {
		if mb := strings.TrimSpace(string(out)); mb != base.Commit {
			base.Commit, base.Why = mb, "merge base with "+ref
		}
	}
	return head, nil
}

// ShellQuote quotes s for a POSIX shell when it holds anything but the
// characters a ref or path usually has, so a suggested command pastes safely.
func ShellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:@+=^~", c))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shortRef(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/remotes/"} {
		if s, ok := strings.CutPrefix(ref, p); ok {
			return s
		}
	}
	return ref
}

// RemoteURI is origin's URL without user name or password, for reports
// that name the repository; "" when there is no origin or it cannot be
// read as a URL. An scp-like address (git@host:path) becomes ssh://host/path.
func (r *Repo) RemoteURI() string {
	raw := ""
	for line := range strings.SplitSeq(r.remotes(), "\n") {
		if name, addr, ok := strings.Cut(line, "\t"); ok && name == "origin" {
			if u, ok := strings.CutSuffix(addr, " (fetch)"); ok {
				raw = u
				break
			}
		}
	}
	if raw == "" {
		return ""
	}
	if at, rest, ok := strings.Cut(raw, "@"); ok && !strings.Contains(at, "/") && !strings.Contains(raw, "://") {
		host, p, ok := strings.Cut(rest, ":")
		if !ok {
			return ""
		}
		raw = "ssh://" + host + "/" + strings.TrimPrefix(p, "/")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	u.User = nil
	return u.String()
}
