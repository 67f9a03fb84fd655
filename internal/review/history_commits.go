package review

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contractlint/contractlint/internal/source"
)

// commits reads files of any commit through one `git cat-file
// --batch-command` (links are followed as the work tree follows them, as
// --follow-symlinks does): the base snapshot's when there is one (via),
// else its own, started on first use. The versions whose imports the base
// lacks are read with their own commit's without listing each commit's tree
// or starting a process per commit.
//
// A name is found by walking the commit's trees, each read once whatever
// the number of commits that hold it: the commits a history's versions
// come from share most of their directories, so a version's roots and
// imports cost the few trees its commit changed, not a cat-file lookup
// each (istio/api's config.proto: 2,149 lookups, one at a time, were most
// of the walk).
type commits struct {
	top string
	via *source.Git
	mu  sync.Mutex
	cat *source.Cat
	err error
	// roots are the commits' trees, trees each tree's entries by id,
	// links each link's target by id.
	roots map[string]string
	trees map[string]map[string]treeEntry
	links map[string]string
	small map[string][]byte // blobs of up to smallBlob bytes, by id
}

// treeEntry is one entry of a tree: its mode (as git writes it, in octal)
// and object.
type treeEntry struct {
	mode uint32
	id   string
}

// object describes rev:name, or the object rev when name is "" ("" kind
// when it is missing), and, for a blob when content is set, reads it.
func (c *commits) object(rev, name string, content bool) (id, kind string, b []byte, err error) {
	err = c.withCat(func(cat *source.Cat) error {
		id, kind, b, err = c.read(cat, rev, name, content)
		return err
	})
	return id, kind, b, err
}

// withCat calls f with the cat-file, c.mu held.
func (c *commits) withCat(f func(cat *source.Cat) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if c.via != nil {
		return c.via.WithCat(f)
	}
	if c.cat == nil {
		if c.cat, c.err = source.StartCat(c.top, "--batch-command", "--follow-symlinks"); c.err != nil {
			return c.err
		}
	}
	return f(c.cat)
}

// read reads rev:name (or rev) with cat; c.mu is held. A blob found by
// name is not asked its size (see Stat).
func (c *commits) read(cat *source.Cat, rev, name string, content bool) (id, kind string, b []byte, err error) {
	if name == "" {
		id, kind, _, err = c.ask(cat, "info "+rev)
	} else {
		id, kind, err = c.find(cat, rev, name)
	}
	if err != nil || kind != "blob" || !content {
		return id, kind, nil, err
	}
	if b, ok := c.small[id]; ok {
		return id, kind, bytes.Clone(b), nil
	}
	b, err = c.contents(cat, id, "blob")
	if err == nil && len(b) <= smallBlob {
		if c.small == nil {
			c.small = map[string][]byte{}
		}
		c.small[id] = bytes.Clone(b)
	}
	return id, kind, b, err
}

// smallBlob bounds the blobs commits keeps once read: the buf.yaml every
// version's roots are found with, read again for each commit.
const smallBlob = 16 << 10

// contents reads the object id, of the kind given.
func (c *commits) contents(cat *source.Cat, id, kind string) ([]byte, error) {
	_, got, size, err := c.ask(cat, "contents "+id)
	if err != nil {
		return nil, err
	}
	if got == "" {
		return nil, fmt.Errorf("git cat-file: %s is missing", id)
	}
	b := make([]byte, size+1) // the content, then a newline
	if _, err = io.ReadFull(cat.Out, b); err != nil {
		c.err = fmt.Errorf("git cat-file: %v", err)
		return nil, c.err
	}
	if got != kind {
		return nil, fmt.Errorf("git cat-file: %s is no %s", id, kind)
	}
	return b[:size], nil
}

// size is the size of the blob id.
func (c *commits) size(id string) int64 {
	var n int64 = -1
	_ = c.withCat(func(cat *source.Cat) error {
		_, _, n, _ = c.ask(cat, "info "+id)
		return nil
	})
	return n
}

// maxLinks is how many links a name may go through, as git allows.
const maxLinks = 40

// find is what rev:name names, as `cat-file --follow-symlinks` finds it
// (get_tree_entry_follow_symlinks): each link on the way is followed from
// the directory holding it, .. climbs a directory, and a name through a
// file, a link out of the repository (absolute, or above its top), one
// that dangles or loops, or a submodule, names nothing ("" kind).
func (c *commits) find(cat *source.Cat, rev, name string) (id, kind string, err error) {
	root, ok := c.roots[rev]
	if !ok {
		id, kind, _, err := c.ask(cat, "info "+rev+"^{tree}")
		if err != nil {
			return "", "", err
		}
		if kind == "tree" {
			root = id
		}
		if c.roots == nil {
			c.roots = map[string]string{}
		}
		c.roots[rev] = root
	}
	if root == "" {
		return "", "", nil
	}
	dirs := []string{root} // from the top to the directory the walk is in
	rest := name
	links := maxLinks
	for {
		rest = strings.TrimLeft(rest, "/")
		first, after, more := strings.Cut(rest, "/")
		switch first {
		case "..":
			if len(dirs) == 1 {
				return "", "", nil // above the top
			}
			dirs, rest = dirs[:len(dirs)-1], after
			continue
		case "":
			return dirs[len(dirs)-1], "tree", nil // a link to dir/ or dir/..
		}
		entries, err := c.tree(cat, dirs[len(dirs)-1])
		if err != nil {
			return "", "", err
		}
		e, ok := entries[first]
		switch {
		case !ok:
			return "", "", nil
		case e.mode == 0o40000:
			if !more {
				return e.id, "tree", nil
			}
			dirs, rest = append(dirs, e.id), after
		case e.mode&0o170000 == 0o100000:
			if more {
				return "", "", nil // a file is no directory
			}
			return e.id, "blob", nil
		case e.mode == 0o120000:
			if links == 0 {
				return "", "", nil
			}
			links--
			to, err := c.link(cat, e.id)
			if err != nil {
				return "", "", err
			}
			if strings.HasPrefix(to, "/") {
				return "", "", nil
			}
			rest = to
			if more {
				rest = to + "/" + after
			}
		default:
			return "", "", nil // a submodule
		}
	}
}

// tree is the entries of the tree id, read once.
func (c *commits) tree(cat *source.Cat, id string) (map[string]treeEntry, error) {
	if t, ok := c.trees[id]; ok {
		return t, nil
	}
	b, err := c.contents(cat, id, "tree")
	if err != nil {
		return nil, err
	}
	n := len(id) / 2 // the raw id's length: 20 bytes for SHA-1, 32 for SHA-256
	t := map[string]treeEntry{}
	for len(b) > 0 {
		// <mode> <name>\0<id, raw>
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+1+n {
			return nil, fmt.Errorf("git cat-file: tree %s cannot be read", id)
		}
		mode, err := strconv.ParseUint(string(b[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("git cat-file: tree %s cannot be read", id)
		}
		t[string(b[sp+1:nul])] = treeEntry{mode: uint32(mode), id: hex.EncodeToString(b[nul+1 : nul+1+n])}
		b = b[nul+1+n:]
	}
	if c.trees == nil {
		c.trees = map[string]map[string]treeEntry{}
	}
	c.trees[id] = t
	return t, nil
}

// link is the target of the link id, read once.
func (c *commits) link(cat *source.Cat, id string) (string, error) {
	if to, ok := c.links[id]; ok {
		return to, nil
	}
	b, err := c.contents(cat, id, "blob")
	if err != nil {
		return "", err
	}
	if c.links == nil {
		c.links = map[string]string{}
	}
	c.links[id] = string(b)
	return string(b), nil
}

// ask sends one command and reads the header of its answer: the object's
// id, type and size, or no type when it is missing.
func (c *commits) ask(cat *source.Cat, command string) (string, string, int64, error) {
	header, err := cat.Ask(command)
	if err != nil {
		c.err = err
		return "", "", 0, c.err
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] != "missing" && f[1] != "ambiguous" {
		// A link that dangles, loops or leaves the repository: "<what>
		// <size>", then that many bytes saying where. Nothing there.
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err == nil {
			_, err = cat.Out.Discard(int(n) + 1)
		}
		if err != nil {
			c.err = fmt.Errorf("git cat-file: %q: %v", header, err)
		}
		return "", "", 0, c.err
	}
	if len(f) != 3 {
		return "", "", 0, nil // "<object> missing" (or ambiguous): nothing there
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		c.err = fmt.Errorf("git cat-file: bad size in %q", header)
		return "", "", 0, c.err
	}
	return f[0], f[1], size, nil
}

// blob reads the blob id, kept nowhere: a history's versions are read
// once each.
func (c *commits) blob(id string) ([]byte, error) {
	_, kind, b, err := c.object(id, "", true)
	if err == nil && kind != "blob" {
		err = fmt.Errorf("git cat-file: %s is no blob", id)
	}
	return b, err
}

// blobCats are the `git cat-file --batch` processes that stream a walk's
// versions, at most one per core: each serves one run of versions at a
// time, so git inflates the next version while the last is parsed, and
// the walk's shared cat-file is left to the lookups of other commits.
type blobCats struct {
	top  string
	mu   sync.Mutex
	free []*source.Cat
}

// stream starts reading the blobs of vs, in order, on a free cat-file (one
// started if none is).
func (p *blobCats) stream(vs []version) *blobStream {
	p.mu.Lock()
	var cat *source.Cat
	if n := len(p.free); n > 0 {
		cat, p.free = p.free[n-1], p.free[:n-1]
	}
	p.mu.Unlock()
	s := &blobStream{pool: p, cat: cat, left: len(vs), wrote: make(chan error, 1)}
	if cat == nil {
		if s.cat, s.err = source.StartCat(p.top, "--batch"); s.err != nil {
			return s
		}
	}
	var ids strings.Builder
	for _, v := range vs {
		ids.WriteString(v.blob + "\n")
	}
	// Written apart from the reads: git answers while it reads, and a
	// pipe holds only so much of either side.
	go func() {
		_, err := io.WriteString(s.cat.In, ids.String())
		s.wrote <- err
	}()
	return s
}

func (p *blobCats) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.free {
		_ = c.Close()
	}
	p.free = nil
}

// blobStream is one run of versions being read.
type blobStream struct {
	pool  *blobCats
	cat   *source.Cat
	left  int        // answers not read yet
	wrote chan error // the writer's end
	err   error      // the stream broke: nothing more is read from it
}

// next reads the next blob asked for; an error but s.err is that blob's
// alone (missing, or not a blob).
func (s *blobStream) next() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.left--
	header, err := s.cat.Out.ReadString('\n')
	if err != nil {
		s.err = fmt.Errorf("git cat-file: %v", err)
		return nil, s.err
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return nil, fmt.Errorf("git cat-file: %s is missing", f[0])
	}
	var size int64
	if len(f) == 3 {
		size, err = strconv.ParseInt(f[2], 10, 64)
	}
	if len(f) != 3 || err != nil {
		s.err = fmt.Errorf("git cat-file: bad answer %q", header)
		return nil, s.err
	}
	b := make([]byte, size+1) // the content, then a newline
	if _, err := io.ReadFull(s.cat.Out, b); err != nil {
		s.err = fmt.Errorf("git cat-file: %v", err)
		return nil, s.err
	}
	if f[1] != "blob" {
		return nil, fmt.Errorf("git cat-file: %s is no blob", f[0])
	}
	return b[:size], nil
}

// close reads what was asked and not read, and hands the cat-file back
// to the pool; one that broke is ended instead.
func (s *blobStream) close() {
	for s.err == nil && s.left > 0 {
		_, _ = s.next()
	}
	if s.cat == nil {
		return
	}
	if err := <-s.wrote; err != nil && s.err == nil {
		s.err = err
	}
	if s.err != nil {
		_ = s.cat.Close()
		return
	}
	s.pool.mu.Lock()
	s.pool.free = append(s.pool.free, s.cat)
	s.pool.mu.Unlock()
}

func (c *commits) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cat != nil {
		_ = c.cat.Close()
		c.cat = nil
	}
}

// commitSource is one commit's tree read through commits: what finding a
// version's import roots and reading its imports ask of a source.
type commitSource struct {
	c   *commits
	rev string
}

func (s commitSource) Label() string { return s.rev }

func (s commitSource) ReadFile(name string) ([]byte, error) {
	c, err := source.Clean(name)
	if err != nil {
		return nil, err
	}
	_, kind, b, err := s.c.object(s.rev, c, true)
	switch {
	case err != nil:
		return nil, err
	case kind != "blob":
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return b, nil
}

// blobID is the id of the blob at name, a file.
func (s commitSource) blobID(name string) (string, error) {
	c, err := source.Clean(name)
	if err != nil {
		return "", err
	}
	id, kind, _, err := s.c.object(s.rev, c, false)
	switch {
	case err != nil:
		return "", err
	case kind != "blob":
		return "", &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return id, nil
}

// answer is what the commit holds at name, as Stat and ReadFile find it:
// an object's id and kind, or why nothing; false when git could not say.
func (s commitSource) answer(name string) (string, bool) {
	c, err := source.Clean(name)
	if err != nil {
		return "refused: " + err.Error(), true
	}
	id, kind, _, err := s.c.object(s.rev, c, false)
	if err != nil {
		return "", false
	}
	return id + " " + kind, true
}

func (s commitSource) Stat(name string) (fs.FileInfo, error) {
	c, err := source.Clean(name)
	if err != nil {
		return nil, err
	}
	id, kind, _, err := s.c.object(s.rev, c, false)
	switch {
	case err != nil:
		return nil, err
	case kind == "blob":
		return objectInfo{name: path.Base(c), size: func() int64 { return s.c.size(id) }}, nil
	case kind == "tree":
		return objectInfo{name: path.Base(c), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir is not needed to resolve one file's imports, and not offered.
func (s commitSource) ReadDir(name string) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.ErrUnsupported}
}

// objectInfo describes a tree, or a blob whose size is asked of git when
// wanted (finding roots only asks whether a file is there).
type objectInfo struct {
	name string
	size func() int64
	dir  bool
}

func (o objectInfo) Name() string { return o.name }
func (o objectInfo) Size() int64 {
	if o.size == nil {
		return 0
	}
	return o.size()
}
func (o objectInfo) Mode() fs.FileMode {
	if o.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (o objectInfo) ModTime() time.Time { return time.Time{} }
func (o objectInfo) IsDir() bool        { return o.dir }
func (o objectInfo) Sys() any           { return nil }
