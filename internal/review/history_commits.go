package review

import (
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
// --batch-command --follow-symlinks` (links are followed as the work tree
// follows them): the base snapshot's when there is one (via), else its own,
// started on first use. The versions whose imports the base lacks are read
// with their own commit's without listing each commit's tree or starting a
// process per commit.
type commits struct {
	top string
	via *source.Git
	mu  sync.Mutex
	cat *source.Cat
	err error
}

// object describes rev:name, or the object rev when name is "" ("" kind
// when it is missing), and, for a blob when content is set, reads it.
func (c *commits) object(rev, name string, content bool) (id, kind string, size int64, b []byte, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return "", "", 0, nil, c.err
	}
	read := func(cat *source.Cat) error {
		id, kind, size, b, err = c.read(cat, rev, name, content)
		return err
	}
	if c.via != nil {
		err = c.via.WithCat(read)
		return id, kind, size, b, err
	}
	if c.cat == nil {
		if c.cat, c.err = source.StartCat(c.top, "--batch-command", "--follow-symlinks"); c.err != nil {
			return "", "", 0, nil, c.err
		}
	}
	err = read(c.cat)
	return id, kind, size, b, err
}

// read asks cat for rev:name (or rev); c.mu is held.
func (c *commits) read(cat *source.Cat, rev, name string, content bool) (id, kind string, size int64, b []byte, err error) {
	obj := rev
	if name != "" {
		obj += ":" + name
	}
	if id, kind, size, err = c.ask(cat, "info "+obj); err != nil || kind != "blob" || !content {
		return id, kind, size, nil, err
	}
	if _, _, _, err = c.ask(cat, "contents "+obj); err != nil {
		return "", "", 0, nil, err
	}
	b = make([]byte, size+1) // the content, then a newline
	if _, err = io.ReadFull(cat.Out, b); err != nil {
		c.err = fmt.Errorf("git cat-file: %v", err)
		return "", "", 0, nil, c.err
	}
	return id, kind, size, b[:size], nil
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
	_, kind, _, b, err := c.object(id, "", true)
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
	_, kind, _, b, err := s.c.object(s.rev, c, true)
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
	id, kind, _, _, err := s.c.object(s.rev, c, false)
	switch {
	case err != nil:
		return "", err
	case kind != "blob":
		return "", &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return id, nil
}

func (s commitSource) Stat(name string) (fs.FileInfo, error) {
	c, err := source.Clean(name)
	if err != nil {
		return nil, err
	}
	_, kind, size, _, err := s.c.object(s.rev, c, false)
	switch {
	case err != nil:
		return nil, err
	case kind == "blob":
		return objectInfo{name: path.Base(c), size: size}, nil
	case kind == "tree":
		return objectInfo{name: path.Base(c), dir: true}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// ReadDir is not needed to resolve one file's imports, and not offered.
func (s commitSource) ReadDir(name string) ([]fs.DirEntry, error) {
	return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.ErrUnsupported}
}

type objectInfo struct {
	name string
	size int64
	dir  bool
}

func (o objectInfo) Name() string { return o.name }
func (o objectInfo) Size() int64  { return o.size }
func (o objectInfo) Mode() fs.FileMode {
	if o.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (o objectInfo) ModTime() time.Time { return time.Time{} }
func (o objectInfo) IsDir() bool        { return o.dir }
func (o objectInfo) Sys() any           { return nil }
