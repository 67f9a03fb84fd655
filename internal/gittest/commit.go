package gittest

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// CommitOptions say what Commit records, as `git add PATHS` (or `git
// commit -a`) then `git commit -m Message` and `git tag Tag` would.
type CommitOptions struct {
	Message string
	// Paths are staged first, relative to the work tree's top: files
	// added or changed, and files under them gone from the work tree
	// removed, as `git add` does. "." is the whole tree.
	Paths []string
	All   bool   // stage every tracked file's change or removal, as `commit -a`
	Tag   string // a lightweight tag on the new commit, if not empty
	// AllowEmpty commits a tree the parent has too, as --allow-empty.
	AllowEmpty bool
	// Getenv reads the author and committer (GIT_AUTHOR_NAME and the
	// rest), which must be set: the tests' git never falls back to a
	// guessed identity.
	Getenv func(string) string
}

// Commit writes a commit in the repository whose work tree is top, in this
// process: objects, index, branch and tag as git writes them, so every git
// run afterwards reads them as its own. A test repository needs a commit
// or three, and each git process costs about 11 ms of CPU; a script builds
// most of its history this way. It refuses what it does not model (ignore
// and attribute files, submodules, a linked worktree, a merge in progress,
// a non-SHA-1 repository, a date written otherwise than as RFC 3339 or a
// Unix time) with an error wrapping ErrNotModelled, for the caller to run
// git instead. It returns the commit's name.
func Commit(top string, o CommitOptions) (string, error) {
	g := &repoFiles{dir: filepath.Join(top, ".git"), top: top}
	if err := g.check(); err != nil {
		return "", err
	}
	idx, err := g.readIndex()
	if err != nil {
		return "", err
	}
	for _, p := range o.Paths {
		if err := g.stage(idx, p); err != nil {
			return "", err
		}
	}
	if o.All {
		for name := range idx {
			if err := g.stage(idx, name); err != nil {
				return "", err
			}
		}
	}
	tree, err := g.writeTree(idx, "")
	if err != nil {
		return "", err
	}
	ref, parent, err := g.head()
	if err != nil {
		return "", err
	}
	if parent != "" {
		if pt, err := g.commitTree(parent); err != nil {
			return "", err
		} else if pt == tree && !o.AllowEmpty {
			return "", fmt.Errorf("nothing to commit in %s", top)
		}
	}
	body, err := commitBody(tree, parent, o)
	if err != nil {
		return "", err
	}
	id, err := g.writeObject("commit", body)
	if err != nil {
		return "", err
	}
	if err := g.writeIndex(idx); err != nil {
		return "", err
	}
	if err := g.setRef(ref, id); err != nil {
		return "", err
	}
	if o.Tag != "" {
		if _, err := os.Stat(filepath.Join(g.dir, "refs", "tags", o.Tag)); err == nil {
			return "", fmt.Errorf("tag %s already exists", o.Tag)
		}
		if err := g.setRef("refs/tags/"+o.Tag, id); err != nil {
			return "", err
		}
	}
	return id, nil
}

// Init makes dir an empty repository whose unborn branch is branch, as
// `git init -b BRANCH` does but in this process: the directories and
// files git reads (no hook samples or description, which nothing reads).
func Init(dir, branch string) error {
	g := filepath.Join(dir, ".git")
	if _, err := os.Stat(g); err == nil {
		return fmt.Errorf("%s is a repository already", dir)
	}
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "info"} {
		if err := os.MkdirAll(filepath.Join(g, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"
	if err := os.WriteFile(filepath.Join(g, "config"), []byte(config), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644)
}

// Stage brings the index in line with the work tree at paths ("." for
// all), as `git add PATHS` does, in this process where Commit would model
// the repository (else an error wrapping ErrNotModelled).
func Stage(top string, paths ...string) error {
	g := &repoFiles{dir: filepath.Join(top, ".git"), top: top}
	if err := g.check(); err != nil {
		return err
	}
	idx, err := g.readIndex()
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := g.stage(idx, p); err != nil {
			return err
		}
	}
	return g.writeIndex(idx)
}

// Head returns the ref HEAD names ("HEAD" itself when detached) and its
// commit ("" before the first), read from the repository's files where
// Commit would model it (else an error wrapping ErrNotModelled).
func Head(top string) (ref, id string, err error) {
	g := &repoFiles{dir: filepath.Join(top, ".git"), top: top}
	if err := g.check(); err != nil {
		return "", "", err
	}
	return g.head()
}

// ErrNotModelled marks a repository Commit does not write as git would:
// the caller runs git instead.
var ErrNotModelled = errors.New("not modelled by gittest.Commit")

// Commit stages paths ("." for all) and commits them with message, in
// this process where Commit models the repository, else with git; it
// returns the commit's name.
func (r *Repo) Commit(t testing.TB, message string, paths ...string) string {
	t.Helper()
	id, err := Commit(r.Dir, CommitOptions{Message: message, Paths: paths})
	if errors.Is(err, ErrNotModelled) {
		r.Git(t, append([]string{"add", "--"}, paths...)...)
		r.Git(t, "commit", "-q", "-m", message)
		return r.Git(t, "rev-parse", "HEAD")
	}
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// repoFiles is a repository's .git directory and its work tree.
type repoFiles struct{ dir, top string }

// check refuses a repository whose files Commit does not write as git would.
func (g *repoFiles) check() error {
	if fi, err := os.Stat(g.dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: no .git directory (a linked worktree or submodule): %w", g.top, ErrNotModelled)
	}
	cfg, err := os.ReadFile(filepath.Join(g.dir, "config"))
	if err != nil {
		return err
	}
	if bytes.Contains(bytes.ToLower(cfg), []byte("objectformat")) || bytes.Contains(bytes.ToLower(cfg), []byte("excludesfile")) {
		return fmt.Errorf("%s: its config: %w", g.dir, ErrNotModelled)
	}
	// A merge, pick or revert in progress, a sparse checkout or a
	// submodule asks more of a commit than its files.
	for _, name := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "info/sparse-checkout", "modules"} {
		if _, err := os.Lstat(filepath.Join(g.dir, filepath.FromSlash(name))); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %s: %w", g.dir, name, ErrNotModelled)
		}
	}
	if ex, err := os.ReadFile(filepath.Join(g.dir, "info", "exclude")); err == nil {
		for _, l := range strings.Split(string(ex), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				return fmt.Errorf("%s: ignore rules: %w", g.dir, ErrNotModelled)
			}
		}
	}
	return nil
}

// entry is an index entry: a blob (or link) and the file's stat data,
// which lets git trust the entry without reading the file again.
type entry struct {
	mode uint32
	id   [20]byte
	stat [10]uint32 // ctime s, ns, mtime s, ns, dev, ino, mode (unused), uid, gid, size
}

// stage brings the index in line with the work tree at name (a file or a
// directory, slash-separated from the top): added, changed, removed.
func (g *repoFiles) stage(idx map[string]entry, name string) error {
	name = path.Clean(name)
	under := func(p string) bool { return name == "." || p == name || strings.HasPrefix(p, name+"/") }
	seen := map[string]bool{}
	root := filepath.Join(g.top, filepath.FromSlash(name))
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && file == root {
				return nil // removed: dropped below
			}
			return err
		}
		rel, _ := filepath.Rel(g.top, file)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Name() == ".git" && rel == ".git":
			return filepath.SkipDir
		case d.Name() == ".git", d.Name() == ".gitignore", d.Name() == ".gitmodules", d.Name() == ".gitattributes":
			return fmt.Errorf("%s: submodules, ignore and attribute files: %w", file, ErrNotModelled)
		case d.IsDir():
			return nil
		}
		e, err := g.addFile(file)
		if err != nil {
			return err
		}
		idx[rel], seen[rel] = e, true
		return nil
	})
	if err != nil {
		return err
	}
	matched := len(seen) > 0 || name == "."
	for p, e := range idx {
		if e.mode == 0o160000 {
			return fmt.Errorf("%s: submodules: %w", p, ErrNotModelled)
		}
		if under(p) && !seen[p] {
			delete(idx, p)
			matched = true
		}
	}
	if !matched {
		return fmt.Errorf("pathspec %q did not match any files", name)
	}
	return nil
}

// addFile writes a file's blob and returns its index entry.
func (g *repoFiles) addFile(file string) (entry, error) {
	fi, err := os.Lstat(file)
	if err != nil {
		return entry{}, err
	}
	var data []byte
	e := entry{mode: 0o100644, stat: statData(fi)}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(file)
		if err != nil {
			return entry{}, err
		}
		e.mode, data = 0o120000, []byte(filepath.ToSlash(target))
	case fi.Mode().IsRegular():
		if fi.Mode()&0o100 != 0 { // the owner's bit, as git reads it
			e.mode = 0o100755
		}
		if data, err = os.ReadFile(file); err != nil {
			return entry{}, err
		}
	default:
		return entry{}, fmt.Errorf("%s: not a file or a link", file)
	}
	id, err := g.writeObject("blob", data)
	if err != nil {
		return entry{}, err
	}
	_, err = hex.Decode(e.id[:], []byte(id))
	return e, err
}

// writeTree writes the tree of the entries under dir ("" is the top) and
// returns its name.
func (g *repoFiles) writeTree(idx map[string]entry, dir string) (string, error) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	type item struct {
		name, sortKey string
		mode          uint32
		id            []byte
	}
	var items []item
	subdirs := map[string]bool{}
	for p, e := range idx {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if sub, _, isDir := strings.Cut(rest, "/"); isDir {
			subdirs[sub] = true
			continue
		}
		items = append(items, item{rest, rest, e.mode, bytes.Clone(e.id[:])})
	}
	for sub := range subdirs {
		id, err := g.writeTree(idx, prefix+sub)
		if err != nil {
			return "", err
		}
		raw, _ := hex.DecodeString(id)
		// git orders a tree's entries as if a directory's name ended in "/".
		items = append(items, item{sub, sub + "/", 0o40000, raw})
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.sortKey, b.sortKey) })
	var b bytes.Buffer
	for _, it := range items {
		fmt.Fprintf(&b, "%o %s\x00", it.mode, it.name)
		b.Write(it.id)
	}
	return g.writeObject("tree", b.Bytes())
}

// writeObject stores a loose object, unless git has it, and returns its name.
func (g *repoFiles) writeObject(kind string, data []byte) (string, error) {
	raw := append([]byte(fmt.Sprintf("%s %d\x00", kind, len(data))), data...)
	sum := sha1.Sum(raw)
	id := hex.EncodeToString(sum[:])
	file := filepath.Join(g.dir, "objects", id[:2], id[2:])
	if _, err := os.Stat(file); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	return id, writeFileAtomic(file, zlibStored(raw), 0o444)
}

// zlibStored is data as a zlib stream of stored (uncompressed) deflate
// blocks, which git inflates as it does any other: setting up a
// compressor (some 600 KB of tables) costs more than a test's small
// objects gain from it.
func zlibStored(data []byte) []byte {
	out := make([]byte, 0, len(data)+len(data)/0xffff*5+16)
	out = append(out, 0x78, 0x01) // deflate, 32 KiB window; a multiple of 31
	for rest := data; ; {
		n := min(len(rest), 0xffff)
		final := byte(0)
		if n == len(rest) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, rest[:n]...)
		if rest = rest[n:]; final == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(data))
}

// readObject reads a loose object of the given kind.
func (g *repoFiles) readObject(kind, id string) ([]byte, error) {
	f, err := os.Open(filepath.Join(g.dir, "objects", id[:2], id[2:]))
	if err != nil {
		return nil, fmt.Errorf("object %s is not loose (packed objects): %w", id, ErrNotModelled)
	}
	defer f.Close()
	r, err := zlib.NewReader(f)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	hdr, body, _ := bytes.Cut(raw, []byte{0})
	if !bytes.HasPrefix(hdr, []byte(kind+" ")) {
		return nil, fmt.Errorf("object %s is not a %s", id, kind)
	}
	return body, nil
}

// commitTree is the tree a commit records.
func (g *repoFiles) commitTree(id string) (string, error) {
	body, err := g.readObject("commit", id)
	if err != nil {
		return "", err
	}
	tree, ok := strings.CutPrefix(string(body), "tree ")
	if !ok || len(tree) < 40 {
		return "", fmt.Errorf("commit %s names no tree", id)
	}
	return tree[:40], nil
}

// head returns the ref a commit moves (HEAD itself when detached) and the
// commit it names now ("" before the first).
func (g *repoFiles) head() (ref, id string, err error) {
	b, err := os.ReadFile(filepath.Join(g.dir, "HEAD"))
	if err != nil {
		return "", "", err
	}
	s := strings.TrimSpace(string(b))
	ref, symbolic := strings.CutPrefix(s, "ref: ")
	if !symbolic {
		return "HEAD", s, nil
	}
	if b, err := os.ReadFile(filepath.Join(g.dir, filepath.FromSlash(ref))); err == nil {
		return ref, strings.TrimSpace(string(b)), nil
	}
	packed, err := os.ReadFile(filepath.Join(g.dir, "packed-refs"))
	if err != nil {
		return ref, "", nil // an unborn branch
	}
	for _, l := range strings.Split(string(packed), "\n") {
		if id, name, ok := strings.Cut(l, " "); ok && name == ref {
			return ref, id, nil
		}
	}
	return ref, "", nil
}

func (g *repoFiles) setRef(ref, id string) error {
	file := filepath.Join(g.dir, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(file, []byte(id+"\n"), 0o644)
}

// commitBody is a commit object's text, stamped now as git stamps it.
func commitBody(tree, parent string, o CommitOptions) ([]byte, error) {
	get := o.Getenv
	if get == nil {
		get = os.Getenv
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	if parent != "" {
		fmt.Fprintf(&b, "parent %s\n", parent)
	}
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		name, email := get("GIT_"+who+"_NAME"), get("GIT_"+who+"_EMAIL")
		if name == "" || email == "" {
			return nil, fmt.Errorf("GIT_%s_NAME and GIT_%[1]s_EMAIL must be set", who)
		}
		when, err := gitDate(get("GIT_" + who + "_DATE"))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s %s <%s> %s\n", strings.ToLower(who), name, email, when)
	}
	msg := strings.TrimSpace(o.Message)
	if msg == "" {
		return nil, errors.New("a commit needs a message")
	}
	if strings.Contains(msg, "\n") {
		// git's cleanup of a message of several lines is not modelled.
		return nil, fmt.Errorf("a message of several lines: %w", ErrNotModelled)
	}
	fmt.Fprintf(&b, "\n%s\n", msg)
	return []byte(b.String()), nil
}

// gitDate is a date as a commit records it ("1700000000 +0200"): now when
// none is set, else one written as a Unix time and zone or in RFC 3339;
// any other spelling git reads is left to git.
func gitDate(date string) (string, error) {
	if date == "" {
		now := time.Now()
		return fmt.Sprintf("%d %s", now.Unix(), now.Format("-0700")), nil
	}
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		return fmt.Sprintf("%d %s", t.Unix(), t.Format("-0700")), nil
	}
	sec, zone, ok := strings.Cut(date, " ")
	if ok && sec != "" && strings.Trim(sec, "0123456789") == "" && len(zone) == 5 &&
		strings.ContainsAny(zone[:1], "+-") && strings.Trim(zone[1:], "0123456789") == "" {
		return date, nil
	}
	return "", fmt.Errorf("the date %q: %w", date, ErrNotModelled)
}

// readIndex reads the index's entries (version 2; none before the
// first commit). Extensions (the cached trees) are dropped: git rebuilds
// them.
func (g *repoFiles) readIndex() (map[string]entry, error) {
	idx := map[string]entry{}
	b, err := os.ReadFile(filepath.Join(g.dir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	} else if err != nil {
		return nil, err
	}
	bad := fmt.Errorf("%s: an index of another version or with merge stages: %w", filepath.Join(g.dir, "index"), ErrNotModelled)
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, bad
	}
	version, n := binary.BigEndian.Uint32(b[4:]), int(binary.BigEndian.Uint32(b[8:]))
	if version != 2 { // 3 and up hold skip-worktree and intent-to-add entries
		return nil, bad
	}
	at := 12
	for range n {
		if at+62 > len(b) {
			return nil, bad
		}
		var e entry
		for i := range e.stat {
			e.stat[i] = binary.BigEndian.Uint32(b[at+4*i:])
		}
		e.mode = binary.BigEndian.Uint32(b[at+24:])
		copy(e.id[:], b[at+40:at+60])
		flags := binary.BigEndian.Uint16(b[at+60:])
		start := at + 62
		if flags&0x4000 != 0 {
			start += 2
		}
		if flags&0x3000 != 0 { // a merge stage
			return nil, bad
		}
		end := bytes.IndexByte(b[start:], 0)
		if end < 0 {
			return nil, bad
		}
		idx[string(b[start:start+end])] = e
		// Entries are padded with NULs to a multiple of eight bytes.
		at += (start - at + end + 8) &^ 7
	}
	return idx, nil
}

// writeIndex writes the index (version 2) git reads the staged tree from.
func (g *repoFiles) writeIndex(idx map[string]entry) error {
	names := make([]string, 0, len(idx))
	for p := range idx {
		names = append(names, p)
	}
	slices.Sort(names)
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, [2]uint32{2, uint32(len(names))})
	for _, p := range names {
		e := idx[p]
		start := b.Len()
		st := e.stat
		st[6] = e.mode
		binary.Write(&b, binary.BigEndian, st)
		b.Write(e.id[:])
		binary.Write(&b, binary.BigEndian, uint16(min(len(p), 0xfff)))
		b.WriteString(p)
		b.Write(make([]byte, 8-(b.Len()-start)%8))
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return writeFileAtomic(filepath.Join(g.dir, "index"), b.Bytes(), 0o644)
}

func writeFileAtomic(file string, data []byte, perm fs.FileMode) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
