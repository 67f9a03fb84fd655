package source

import (
	"os"
	"path"
	"sync"
)

// maxSubRoots bounds the directories a Dir keeps open: a tree wider than
// this reads its other directories through the root, as before.
const maxSubRoots = 1024

// subRoots holds a Dir's directories opened as roots of their own. os.Root
// resolves a name one component at a time (an openat, and a close, per
// directory on the way), so a file three directories down cost five system
// calls before its own open, and a tree of 2,907 files (DigitalOcean's)
// spent more time walking directories than reading. A directory opened
// once serves every file in it with one openat.
//
// A sub-root is opened through the Dir's root, so it never starts outside
// it, and what it resolves stays inside the sub-root. What it refuses (a
// link climbing out of the directory but not out of the root, a name that
// is not there) is asked of the root again, whose answer, and error text,
// is the one given. The one difference is a directory moved out of the
// root while a run holds it open, which only the file system's owner can
// do, not the contracts read.
type subRoots struct {
	mu sync.Mutex
	m  map[string]*os.Root // nil: the directory could not be opened
}

// at is the root to ask for the cleaned name c, and the name to ask it.
func (d *Dir) at(c string) (*os.Root, string) {
	dir, base := path.Split(c)
	if dir == "" || d.subs == nil {
		return d.root, c
	}
	dir = dir[:len(dir)-1]
	s := d.subs
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.m[dir]
	if !ok && len(s.m) < maxSubRoots {
		// An error leaves r nil: the root answers for the directory.
		r, _ = d.root.OpenRoot(dir)
		s.m[dir] = r
	}
	if r == nil {
		return d.root, c
	}
	return r, base
}

// inRoot runs op on c's directory's own root and, when that fails, on the
// Dir's root, so that an error is the one the root gives.
func inRoot[T any](d *Dir, c string, op func(r *os.Root, name string) (T, error)) (T, error) {
	if r, name := d.at(c); r != d.root {
		if v, err := op(r, name); err == nil {
			return v, nil
		}
	}
	return op(d.root, c)
}
