package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EmptyTree is git's empty tree: the base of a repository's first commit.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// RunGit runs git in dir with a fixed argv (never a shell) and returns its
// standard output. quotepath=off keeps non-ASCII names as they are.
func RunGit(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=off"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, fmt.Errorf("git %s: %s", strings.Join(args[:min(1, len(args))], ""), msg)
	}
	return out, nil
}

// Git is a Source over one snapshot of a repository: a commit's tree or the
// index. Every name resolves inside that snapshot, so a contract's $refs and
// imports come from the same revision as the contract.
type Git struct {
	top   string
	label string
	// blobs maps a path to its object id; dirs holds every directory.
	blobs map[string]gitEntry
	dirs  map[string]bool
	// listed is every entry git listed, in its order: what ls-tree
	// --name-only (or ls-files --cached) would say, without a second run.
	listed []string

	// catShare is the cat-file process, started on first use, and the lock
	// over it and this snapshot's maps.
	*catShare
	closed bool
	cache  map[string][]byte
	subs   map[string]*Git // the submodules read, by path
}

// catShare is one cat-file process and its lock, which snapshots of one
// repository can read through together (ShareCat).
type catShare struct {
	mu  sync.Mutex
	cat *Cat
	// users counts the snapshots not yet closed; the last Close ends cat.
	users int
}

// ShareCat makes g read through with's cat-file process, so that a
// review's two sides start one git process, not two; g must be of with's
// repository and not read yet. The two then take one lock.
func (g *Git) ShareCat(with *Git) {
	with.mu.Lock()
	defer with.mu.Unlock()
	with.users++
	g.catShare = with.catShare
}

type gitEntry struct {
	oid  string
	mode string
}

// OpenRev opens the tree of commit rev of the repository at top.
func OpenRev(top, rev string) (*Git, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%q is not a revision", rev)
	}
	out, err := RunGit(top, "ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return nil, err
	}
	g := newGit(top, rev)
	for _, rec := range SplitZ(out) {
		// <mode> SP <type> SP <oid> TAB <path>
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		g.add(name, gitEntry{oid: f[2], mode: f[0]})
		g.listed = append(g.listed, name)
	}
	return g, nil
}

// OpenIndex opens the staged snapshot (stage 0) of the repository at top.
func OpenIndex(top string) (*Git, error) {
	out, err := RunGit(top, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	g := newGit(top, "index")
	for _, rec := range SplitZ(out) {
		// <mode> SP <oid> SP <stage> TAB <path>
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-files: unexpected line %q", rec)
		}
		if f[2] == "0" {
			g.add(name, gitEntry{oid: f[1], mode: f[0]})
		}
		g.listed = append(g.listed, name)
	}
	return g, nil
}

func newGit(top, label string) *Git {
	return &Git{top: top, label: label, blobs: map[string]gitEntry{}, dirs: map[string]bool{".": true}, cache: map[string][]byte{},
		catShare: &catShare{users: 1}}
}

func (g *Git) add(name string, e gitEntry) {
	g.blobs[name] = e
	for d := path.Dir(name); d != "." && !g.dirs[d]; d = path.Dir(d) {
		g.dirs[d] = true
	}
}

// SplitZ splits git's NUL-separated output (-z) into its non-empty fields.
func SplitZ(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (g *Git) Label() string { return g.label }

// Listed names every entry of the snapshot as git listed them, in git's
// order: submodules and links too, and each stage of an unmerged index
// entry, as `git ls-files --cached` names them.
func (g *Git) Listed() []string { return g.listed }

// Entry is the object id and git file mode ("100644", "120000") the
// snapshot records at name, as git listed it.
func (g *Git) Entry(name string) (oid, mode string, ok bool) {
	e, ok := g.blobs[name]
	return e.oid, e.mode, ok
}

// Has reports whether the snapshot holds a regular file at name.
func (g *Git) Has(name string) bool {
	e, ok := g.blobs[name]
	return ok && isRegular(e.mode)
}

func isRegular(mode string) bool { return mode == "100644" || mode == "100755" }

func (g *Git) ReadFile(name string) ([]byte, error) {
	c, err := g.Resolve(name)
	if err != nil {
		return nil, err
	}
	e, ok := g.blobs[c]
	switch {
	case !ok && g.dirs[c]:
		return nil, fmt.Errorf("%s: is a directory in %s", name, g.label)
	case !ok:
		if sub, rest, err := g.submodule(name, c); sub != nil || err != nil {
			if err != nil {
				return nil, err
			}
			return sub.ReadFile(rest)
		}
		return nil, fmt.Errorf("%s: %w in %s", name, fs.ErrNotExist, g.label)
	case !isRegular(e.mode):
		return nil, fmt.Errorf("%s: not a file in %s", name, g.label)
	}
	return g.blob(e.oid)
}

// submodule is the snapshot of the submodule c lies in, at the commit
// this snapshot records for it, with c's name inside it: a contract of
// this repository may $ref into a submodule, and is judged with the
// submodule's version of the same revision. nil when c is in none. The
// commit is read from the submodule's own checkout; where that is missing
// or lacks the commit, the error names the submodule and the commit.
func (g *Git) submodule(name, c string) (sub *Git, rest string, err error) {
	for i := 0; i < len(c); i++ {
		if c[i] != '/' {
			continue
		}
		e, ok := g.blobs[c[:i]]
		if !ok || e.mode != "160000" {
			continue
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.subs == nil {
			g.subs = map[string]*Git{}
		}
		if sub, ok = g.subs[c[:i]]; !ok {
			dir := filepath.Join(g.top, filepath.FromSlash(c[:i]))
			if _, err = os.Stat(filepath.Join(dir, ".git")); err == nil {
				sub, err = OpenRev(dir, e.oid)
			}
			if err != nil {
				return nil, "", fmt.Errorf("%s: in submodule %s at commit %s (%s), which this clone does not hold: "+
					"run git submodule update --init %s", name, c[:i], e.oid[:12], g.label, c[:i])
			}
			g.subs[c[:i]] = sub
		}
		return sub, c[i+1:], nil
	}
	return nil, "", nil
}

// maxLinks bounds the links one name may pass through, as the kernel's
// ELOOP does: a cycle of links is an error, not a hang.
const maxLinks = 40

// Resolve is the snapshot's own name for name: each symbolic link on the
// way (a linked directory, a linked file) replaced by its target, as the
// working tree's reads follow them, so both sides of a review reach the
// same bytes. A link whose target leaves the repository is refused with
// ErrOutside, naming the link.
func (g *Git) Resolve(name string) (string, error) {
	c, err := Clean(name)
	if err != nil {
		return "", err
	}
	for hops := 0; ; hops++ {
		link, rest, ok := g.firstLink(c)
		if !ok {
			return c, nil
		}
		if hops == maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links in %s", name, g.label)
		}
		target, err := g.blob(g.blobs[link].oid)
		if err != nil {
			return "", err
		}
		next, err := Clean(path.Join(path.Dir(link), string(target), rest))
		if err != nil || path.IsAbs(string(target)) {
			return "", fmt.Errorf("%s: %w (the symbolic link %s in %s points outside it)", name, ErrOutside, link, g.label)
		}
		c = next
	}
}

// firstLink finds the first component of c that is a symbolic link: the
// link's name and what follows it.
func (g *Git) firstLink(c string) (link, rest string, ok bool) {
	for i := 0; i <= len(c); i++ {
		if i < len(c) && c[i] != '/' {
			continue
		}
		if e, found := g.blobs[c[:i]]; found && e.mode == "120000" {
			return c[:i], strings.TrimPrefix(c[i:], "/"), true
		}
	}
	return "", "", false
}

// blob reads an object through one long-lived `git cat-file
// --batch-command`, so reading many files (imports, history) costs one
// process, not one each.
func (g *Git) blob(oid string) ([]byte, error) { return g.blobMax(oid, -1) }

// blobMax is blob refusing (max >= 0) a blob larger than max bytes.
func (g *Git) blobMax(oid string, max int64) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.cache[oid]; ok {
		if max >= 0 && int64(len(b)) > max {
			return nil, &TooLargeError{Name: oid, Size: int64(len(b))}
		}
		return b, nil
	}
	size, err := g.header(oid)
	if err != nil {
		return nil, err
	}
	if max >= 0 && size > max {
		if err := skip(g.cat.Out, size+1); err != nil {
			return nil, fmt.Errorf("git cat-file: %v", err)
		}
		return nil, &TooLargeError{Name: oid, Size: size}
	}
	b := make([]byte, size+1) // the content, then a newline
	if _, err := io.ReadFull(g.cat.Out, b); err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	g.cache[oid] = b[:size]
	return b[:size], nil
}

// WithCat runs f with the snapshot's cat-file process (`git cat-file
// --batch-command --follow-symlinks`, which reads any object of the
// repository), under the lock the snapshot's own reads take: a reader of
// other commits (a field-number history) shares the process rather than
// starting one. f must read every answer whole.
func (g *Git) WithCat(f func(*Cat) error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.startCat(); err != nil {
		return err
	}
	return f(g.cat)
}

// startCat starts cat-file if it is not running; g.mu is held.
func (g *Git) startCat() error {
	if g.cat != nil {
		return nil
	}
	c, err := StartCat(g.top, "--batch-command", "--follow-symlinks")
	if err != nil {
		return err
	}
	g.cat = c
	return nil
}

// header asks cat-file for oid and reads the size its answer starts with;
// the content follows in g.out. g.mu is held; cat-file starts on first use.
func (g *Git) header(oid string) (int64, error) {
	if err := g.startCat(); err != nil {
		return 0, err
	}
	header, err := g.cat.Ask("contents " + oid)
	if err != nil {
		return 0, err
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[1] != "blob" {
		return 0, fmt.Errorf("git cat-file: object %s: %s", oid, strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("git cat-file: bad size in %q", header)
	}
	return size, nil
}

// Close ends the cat-file process, when no snapshot sharing it is open.
func (g *Git) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, sub := range g.subs {
		_ = sub.Close()
	}
	if !g.closed {
		g.closed = true
		g.users--
	}
	if g.cat == nil || g.users > 0 {
		return nil
	}
	err := g.cat.Close()
	g.cat = nil
	return err
}

func (g *Git) Stat(name string) (fs.FileInfo, error) {
	c, err := g.Resolve(name)
	if err != nil {
		return nil, err
	}
	if g.dirs[c] {
		return gitInfo{name: path.Base(c), mode: fs.ModeDir | 0o755}, nil
	}
	e, ok := g.blobs[c]
	if !ok {
		if sub, rest, err := g.submodule(name, c); sub != nil || err != nil {
			if err != nil {
				return nil, err
			}
			return sub.Stat(rest)
		}
		return nil, fmt.Errorf("%s: %w in %s", name, fs.ErrNotExist, g.label)
	}
	info := gitInfo{name: path.Base(c), mode: mode(e.mode)}
	if isRegular(e.mode) {
		if info.size, err = g.blobSize(e.oid); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// blobSize learns a blob's size from cat-file's header with a limit of 0,
// which skips the content, so a stat never holds a large blob in memory.
func (g *Git) blobSize(oid string) (int64, error) {
	b, err := g.blobMax(oid, 0)
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		return tl.Size, nil
	case err != nil:
		return 0, err
	}
	return int64(len(b)), nil
}

func (g *Git) ReadDir(name string) ([]fs.DirEntry, error) {
	c, err := g.Resolve(name)
	if err != nil {
		return nil, err
	}
	if !g.dirs[c] {
		return nil, fmt.Errorf("%s: %w in %s", name, fs.ErrNotExist, g.label)
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	addChild := func(p string, m fs.FileMode) {
		if path.Dir(p) != c || seen[p] {
			return
		}
		seen[p] = true
		out = append(out, fs.FileInfoToDirEntry(gitInfo{name: path.Base(p), mode: m}))
	}
	for d := range g.dirs {
		if d != "." {
			addChild(d, fs.ModeDir|0o755)
		}
	}
	for p, e := range g.blobs {
		addChild(p, mode(e.mode))
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// mode maps git's file modes onto fs modes; a submodule is shown as an
// irregular entry so walks skip it.
func mode(m string) fs.FileMode {
	switch m {
	case "100755":
		return 0o755
	case "120000":
		return fs.ModeSymlink | 0o777
	case "160000":
		return fs.ModeIrregular
	}
	return 0o644
}

type gitInfo struct {
	name string
	mode fs.FileMode
	size int64
}

func (i gitInfo) Name() string       { return i.name }
func (i gitInfo) Size() int64        { return i.size }
func (i gitInfo) Mode() fs.FileMode  { return i.mode }
func (i gitInfo) ModTime() time.Time { return time.Time{} }
func (i gitInfo) IsDir() bool        { return i.mode.IsDir() }
func (i gitInfo) Sys() any           { return nil }
