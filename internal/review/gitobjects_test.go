package review

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A test repository's commit is written here, as git writes one, rather
// than by `git add -A` and `git commit`: two git starts per commit were a
// fifth of every git process this package's tests start, and a test is
// after what the review does with the commit, not how it was made. Only the
// plain case is written here — a work tree of files and links, a branch
// checked out, nothing that makes `git add -A` more than "the work tree as
// it is" — anything else (ignore files, submodules, a sparse or merging
// index, a date written other than as RFC 3339 or a Unix time) is left to
// git itself.

// errByGit says a work tree or repository is not the plain case.
var errByGit = errors.New("not the plain case: left to git")

// entry is one file of the index being written.
type entry struct {
	name string // from the top, with slashes
	mode uint32 // 0o100644, 0o100755 or 0o120000
	id   [20]byte
	fi   fs.FileInfo
}

// writeCommit records the work tree as `git add -A` and `git commit
// --allow-empty -m msg` would, and returns the commit id.
func (r *testRepo) writeCommit(msg string) (string, error) {
	branch, parent, err := r.plainHead()
	if err != nil {
		return "", err
	}
	ident, err := authorLine()
	if err != nil || strings.ContainsAny(msg, "\n#") || strings.TrimSpace(msg) != msg || msg == "" {
		return "", errByGit
	}
	p := &pack{}
	es, err := r.readWorkTree(p)
	if err != nil {
		return "", err
	}
	tree := r.writeTree(p, es, "")
	var c strings.Builder
	fmt.Fprintf(&c, "tree %s\n", tree)
	if parent != "" {
		fmt.Fprintf(&c, "parent %s\n", parent)
	}
	fmt.Fprintf(&c, "author %s\ncommitter %s\n\n%s\n", ident, ident, msg)
	id := p.add("commit", []byte(c.String()))
	if err := p.write(filepath.Join(r.top, ".git")); err != nil {
		return "", err
	}
	if err := r.writeIndex(es); err != nil {
		return "", err
	}
	hexID := hex.EncodeToString(id[:])
	ref := filepath.Join(r.top, ".git", filepath.FromSlash(branch))
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		return "", err
	}
	return hexID, os.WriteFile(ref, []byte(hexID+"\n"), 0o644)
}

// plainHead is the branch HEAD names and its commit ("" before the first),
// when both are where a fresh repository keeps them and no merge, pick,
// sparse checkout or submodule asks more of a commit than its files.
func (r *testRepo) plainHead() (branch, parent string, err error) {
	git := filepath.Join(r.top, ".git")
	for _, name := range []string{"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "packed-refs", "info/sparse-checkout", "modules"} {
		if _, err := os.Lstat(filepath.Join(git, filepath.FromSlash(name))); !errors.Is(err, fs.ErrNotExist) {
			return "", "", errByGit
		}
	}
	if v, err := r.indexVersion(); err != nil || v != 0 && v != 2 {
		return "", "", errByGit // version 3 and up hold skip-worktree and intent-to-add entries
	}
	b, err := os.ReadFile(filepath.Join(git, "HEAD"))
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if err != nil || !ok || !strings.HasPrefix(branch, "refs/heads/") {
		return "", "", errByGit
	}
	b, err = os.ReadFile(filepath.Join(git, filepath.FromSlash(branch)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return branch, "", nil
	case err != nil || len(bytes.TrimSpace(b)) != 40:
		return "", "", errByGit
	}
	return branch, string(bytes.TrimSpace(b)), nil
}

// indexVersion is the index file's version, 0 when there is none.
func (r *testRepo) indexVersion() (uint32, error) {
	b, err := os.ReadFile(filepath.Join(r.top, ".git", "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil || len(b) < 12 || string(b[:4]) != "DIRC" {
		return 0, errByGit
	}
	return binary.BigEndian.Uint32(b[4:8]), nil
}

// authorLine is the author line's "name <email> time zone", from the
// environment gittest.Isolate sets and the dates a test fixes, when git
// would read them as given.
func authorLine() (string, error) {
	name, email := os.Getenv("GIT_AUTHOR_NAME"), os.Getenv("GIT_AUTHOR_EMAIL")
	date := os.Getenv("GIT_AUTHOR_DATE")
	if name == "" || email == "" || name != os.Getenv("GIT_COMMITTER_NAME") || email != os.Getenv("GIT_COMMITTER_EMAIL") ||
		date != os.Getenv("GIT_COMMITTER_DATE") {
		return "", errByGit
	}
	when, err := gitDate(date)
	return fmt.Sprintf("%s <%s> %s", name, email, when), err
}

// gitDate is a date as a commit records it ("1700000000 +0200"): now when
// none is set, else one written as a Unix time and zone or in RFC 3339.
func gitDate(date string) (string, error) {
	if date == "" {
		now := time.Now()
		return fmt.Sprintf("%d %s", now.Unix(), now.Format("-0700")), nil
	}
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		return fmt.Sprintf("%d %s", t.Unix(), t.Format("-0700")), nil
	}
	if sec, zone, ok := strings.Cut(date, " "); ok && strings.Trim(sec, "0123456789") == "" && len(zone) == 5 && strings.Trim(zone[1:], "0123456789") == "" && strings.ContainsAny(zone[:1], "+-") {
		return date, nil
	}
	return "", errByGit
}

// stageAll writes every file of the work tree into the object store and
// the index, as `git add -A` does where nothing is ignored.
func (r *testRepo) stageAll() error {
	p := &pack{}
	es, err := r.readWorkTree(p)
	if err == nil {
		err = p.write(filepath.Join(r.top, ".git"))
	}
	if err != nil {
		return err
	}
	return r.writeIndex(es)
}

// readWorkTree adds every file of the work tree to p and returns the index
// entries `git add -A` makes of them (where nothing is ignored), sorted by
// name.
func (r *testRepo) readWorkTree(p *pack) ([]entry, error) {
	var es []entry
	err := filepath.WalkDir(r.top, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := filepath.ToSlash(strings.TrimPrefix(file, r.top+string(filepath.Separator)))
		switch {
		case file == r.top:
			return nil
		case d.Name() == ".git" && name == ".git":
			return filepath.SkipDir
		case d.Name() == ".git", d.Name() == ".gitignore", d.Name() == ".gitmodules", d.Name() == ".gitattributes":
			return errByGit // a submodule, or a rule add -A follows
		case d.IsDir():
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{name: name, fi: fi}
		var b []byte
		switch {
		case fi.Mode().IsRegular():
			e.mode = 0o100644
			if fi.Mode()&0o100 != 0 {
				e.mode = 0o100755
			}
			b, err = os.ReadFile(file)
		case fi.Mode()&fs.ModeSymlink != 0:
			e.mode = 0o120000
			var target string
			target, err = os.Readlink(file)
			b = []byte(filepath.ToSlash(target))
		default:
			return errByGit
		}
		if err != nil {
			return err
		}
		e.id = p.add("blob", b)
		es = append(es, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return es, nil
}

// writeTree adds the tree of the entries under dir ("" for the top) to p
// and returns its id.
func (r *testRepo) writeTree(p *pack, es []entry, dir string) string {
	type item struct {
		name, mode string
		id         []byte
	}
	var items []item
	seen := map[string]bool{}
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.name, dir)
		if !ok {
			continue
		}
		if sub, _, nested := strings.Cut(rest, "/"); nested {
			if seen[sub] {
				continue
			}
			seen[sub] = true
			raw, _ := hex.DecodeString(r.writeTree(p, es, dir+sub+"/"))
			items = append(items, item{sub, "40000", raw})
			continue
		}
		items = append(items, item{rest, fmt.Sprintf("%o", e.mode), e.id[:]})
	}
	// git orders a tree's entries by name, a directory's as if it ended in /.
	key := func(it item) string {
		if it.mode == "40000" {
			return it.name + "/"
		}
		return it.name
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(key(a), key(b)) })
	var buf bytes.Buffer
	for _, it := range items {
		fmt.Fprintf(&buf, "%s %s\x00", it.mode, it.name)
		buf.Write(it.id)
	}
	id := p.add("tree", buf.Bytes())
	return hex.EncodeToString(id[:])
}

// pack is the objects of one commit, written as one pack file (and its
// index) rather than a loose file each: a directory and a file per object
// cost more system time than the git starts they replace.
type pack struct {
	ids     [][20]byte
	objects map[[20]byte]object
}

type object struct {
	kind byte // 1 commit, 2 tree, 3 blob
	data []byte
}

// add holds an object for the pack and returns its id.
func (p *pack) add(kind string, b []byte) [20]byte {
	id := sha1.Sum(fmt.Appendf(nil, "%s %d\x00%s", kind, len(b), b))
	if p.objects == nil {
		p.objects = map[[20]byte]object{}
	}
	if _, ok := p.objects[id]; !ok {
		p.ids = append(p.ids, id)
		p.objects[id] = object{map[string]byte{"commit": 1, "tree": 2, "blob": 3}[kind], b}
	}
	return id
}

// write writes the pack (version 2, no deltas) and its index (version 2)
// into git's objects/pack.
func (p *pack) write(git string) error {
	if len(p.ids) == 0 {
		return nil
	}
	var buf bytes.Buffer
	buf.WriteString("PACK")
	binary.Write(&buf, binary.BigEndian, [2]uint32{2, uint32(len(p.ids))})
	offsets := map[[20]byte]uint32{}
	crcs := map[[20]byte]uint32{}
	for _, id := range p.ids {
		o := p.objects[id]
		start := buf.Len()
		offsets[id] = uint32(start)
		// The type and size: four bits of size in the first byte, seven
		// in each that follows while the high bit says more.
		size := len(o.data)
		c := o.kind<<4 | byte(size&0x0f)
		for size >>= 4; size > 0; size >>= 7 {
			buf.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
		}
		buf.WriteByte(c)
		zlibStored(&buf, o.data)
		crcs[id] = crc32.ChecksumIEEE(buf.Bytes()[start:])
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])

	ids := slices.Clone(p.ids)
	slices.SortFunc(ids, func(a, b [20]byte) int { return bytes.Compare(a[:], b[:]) })
	var idx bytes.Buffer
	idx.WriteString("\xfftOc")
	binary.Write(&idx, binary.BigEndian, uint32(2))
	var fanout [256]uint32
	for _, id := range ids {
		for i := int(id[0]); i < 256; i++ {
			fanout[i]++
		}
	}
	binary.Write(&idx, binary.BigEndian, fanout)
	for _, id := range ids {
		idx.Write(id[:])
	}
	for _, id := range ids {
		binary.Write(&idx, binary.BigEndian, crcs[id])
	}
	for _, id := range ids {
		binary.Write(&idx, binary.BigEndian, offsets[id])
	}
	idx.Write(sum[:])
	isum := sha1.Sum(idx.Bytes())
	idx.Write(isum[:])

	name := filepath.Join(git, "objects", "pack", "pack-"+hex.EncodeToString(sum[:]))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	// The pack before its index: git finds a pack by its index.
	if err := os.WriteFile(name+".pack", buf.Bytes(), 0o444); err != nil {
		return err
	}
	return os.WriteFile(name+".idx", idx.Bytes(), 0o444)
}

// zlibStored appends b as a zlib stream of stored (uncompressed) deflate
// blocks, which git reads as any other: a compressor's tables cost more to
// set up than a test file's bytes are worth compressing.
func zlibStored(buf *bytes.Buffer, b []byte) {
	sum := adler32.Checksum(b)
	buf.Write([]byte{0x78, 0x01})
	for first := true; first || len(b) > 0; first = false {
		n := min(len(b), 0xffff)
		final := byte(0)
		if n == len(b) {
			final = 1
		}
		buf.WriteByte(final)
		binary.Write(buf, binary.LittleEndian, [2]uint16{uint16(n), ^uint16(n)})
		buf.Write(b[:n])
		b = b[n:]
	}
	binary.Write(buf, binary.BigEndian, sum)
}

// writeIndex writes the index (version 2) holding es, each with its
// file's stat data, as git would after adding them: git checks a file by
// that data, and one written in the same clock tick as the index is
// compared by content (git's racy-clean rule), as after any git add.
func (r *testRepo) writeIndex(es []entry) error {
	var buf bytes.Buffer
	buf.WriteString("DIRC")
	binary.Write(&buf, binary.BigEndian, [2]uint32{2, uint32(len(es))})
	for _, e := range es {
		st := statOf(e.fi)
		binary.Write(&buf, binary.BigEndian, [10]uint32{st.ctime, st.ctimeNsec, st.mtime, st.mtimeNsec,
			st.dev, st.ino, e.mode, st.uid, st.gid, uint32(e.fi.Size())})
		buf.Write(e.id[:])
		binary.Write(&buf, binary.BigEndian, uint16(min(len(e.name), 0xfff)))
		buf.WriteString(e.name)
		// NUL-padded to a multiple of eight bytes, at least one NUL.
		n := 62 + len(e.name)
		buf.Write(make([]byte, 8-n%8))
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	git := filepath.Join(r.top, ".git")
	lock := filepath.Join(git, "index.lock")
	if err := os.WriteFile(lock, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(lock, filepath.Join(git, "index"))
}

// stat is the part of a file's stat data the index keeps, each field cut
// to 32 bits as git cuts it.
type stat struct {
	ctime, ctimeNsec, mtime, mtimeNsec, dev, ino, uid, gid uint32
}

// mtimeStat is what every platform's FileInfo gives: git, finding the
// rest differ, compares such a file by content and refreshes the index.
func mtimeStat(fi fs.FileInfo) stat {
	t := fi.ModTime()
	return stat{mtime: uint32(t.Unix()), mtimeNsec: uint32(t.Nanosecond())}
}

// A commit written here is the one git would write of the same work tree:
// the same tree (names git orders specially, an executable, a link, an
// empty file, one longer than a stored block), an index git finds clean,
// objects git's fsck accepts, the dates a test fixes; and what is not the
// plain case is left to git.
func TestWriteCommitIsGitAddCommit(t *testing.T) {
	r := newRepo(t, "main")
	for name, text := range map[string]string{"a0": "1\n", "a.b": "2\n", "a-/x": "3\n", "a/b/c.yaml": "4\n", "a/b.yaml": "", "z": "5\n", "big": strings.Repeat("0123456789abcdef", 5000)} {
		r.write(name, text)
	}
	if err := os.Chmod(filepath.Join(r.top, "z"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, r, "a/b.yaml", "link")
	first, err := r.writeCommit("v1")
	if err != nil {
		t.Fatal(err)
	}
	r.write("a/b/c.yaml", "4, changed\n")
	r.remove("a.b")
	second, err := r.writeCommit("v2")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.git("rev-parse", "HEAD", second+"^"); got != second+"\n"+first {
		t.Errorf("HEAD and its parent are %q, want %s and %s", got, second, first)
	}
	if got := r.git("status", "--porcelain"); got != "" {
		t.Errorf("git finds the written index unclean:\n%s", got)
	}
	r.git("fsck", "--strict", "--no-dangling")
	tree := r.git("rev-parse", "HEAD^{tree}")
	r.git("add", "-A")
	if got := r.git("write-tree"); got != tree {
		t.Errorf("git add -A writes tree %s, the commit holds %s:\n%s", got, tree, r.git("ls-tree", "-r", "HEAD"))
	}
	// A date the test fixes is the one git records.
	for _, date := range []string{"2024-03-01T10:00:00Z", "1700000000 +0200"} {
		t.Setenv("GIT_AUTHOR_DATE", date)
		t.Setenv("GIT_COMMITTER_DATE", date)
		if _, err := r.writeCommit("dated"); err != nil {
			t.Fatal(err)
		}
		r.git("commit", "-q", "--allow-empty", "-m", "dated by git")
		if got := strings.Split(r.git("log", "-2", "--date=raw", "--format=%ad %cd"), "\n"); len(got) != 2 || got[0] != got[1] {
			t.Errorf("%s: the dates written here and git's differ:\n%s", date, got)
		}
	}
	r.write(".gitignore", "*.log\n")
	if _, err := r.writeCommit("ignored"); !errors.Is(err, errByGit) {
		t.Errorf("a work tree with a .gitignore: writeCommit = %v, want it left to git", err)
	}
}
