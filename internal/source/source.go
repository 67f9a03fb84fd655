// Package source says where contract bytes come from: the working tree, a git
// revision or the git index. Both sides of a diff, and every $ref or import
// they pull in, are read through one Source, which never reads outside its root.
package source

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Source reads files by slash-separated names relative to its root.
type Source interface {
	// ReadFile returns a file's bytes; names that leave the root are refused.
	ReadFile(name string) ([]byte, error)
	// ReadDir lists a directory, for walking trees of .proto files.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Stat describes a file or directory.
	Stat(name string) (fs.FileInfo, error)
	// Label names the source in messages ("working tree", "HEAD~1", "index").
	Label() string
}

// ErrOutside is returned for a name that leaves the source's root.
var ErrOutside = errors.New("path leaves the repository")

// ErrNotRegular is returned for a device, pipe or socket: contracts are files.
var ErrNotRegular = errors.New("not a regular file (a device, pipe or socket)")

// Clean validates a slash-separated, root-relative name: no absolute paths,
// no .. that climbs out, no NUL bytes.
func Clean(name string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%q: path contains a NUL byte", name)
	}
	if path.IsAbs(name) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("%s: %w (absolute path)", name, ErrOutside)
	}
	c := path.Clean(name)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%s: %w", name, ErrOutside)
	}
	return c, nil
}

// Dir is a Source over a directory of the file system. It uses os.Root, so
// neither .. nor a symbolic link can lead it outside.
type Dir struct {
	root  *os.Root
	subs  *subRoots
	path  string
	label string
}

// OpenDir opens dir as a Source.
func OpenDir(dir string) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r, subs: &subRoots{m: map[string]*os.Root{}}, path: dir, label: "working tree"}, nil
}

// Path is the directory the source reads from.
func (d *Dir) Path() string { return d.path }

func (d *Dir) Label() string { return d.label }

// ReadFile reads a regular file whatever its size; like ReadFileMax, it
// refuses a FIFO or device rather than block on it.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	return d.ReadFileMax(name, math.MaxInt64-1)
}

func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	fi, err := inRoot(d, c, (*os.Root).Stat)
	return fi, d.explain(name, err)
}

func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	ents, err := fs.ReadDir(d.root.FS(), c)
	return ents, d.explain(name, err)
}

// explain turns os.Root's escape error into ErrOutside and strips the
// machine path from messages, which name files relative to the root.
func (d *Dir) explain(name string, err error) error {
	if err == nil {
		return nil
	}
	// os.Root's escape error has no sentinel; read its text, but only the
	// error's own, never the file name around it.
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	if msg := pe.Err.Error(); strings.Contains(msg, "escapes from parent") || strings.Contains(msg, "path escapes") {
		return fmt.Errorf("%s: %w (through a symbolic link or ..)", name, ErrOutside)
	}
	return fmt.Errorf("%s: %w", name, pe.Err)
}

// Resolve is the name a file has once every symbolic link on its way is
// followed (the working tree's and git's alike), so two names of one file
// are told to be one; a link that leaves the root is refused with
// ErrOutside. A source that knows no links answers the cleaned name.
func Resolve(src Source, name string) (string, error) {
	if r, ok := src.(interface{ Resolve(string) (string, error) }); ok {
		return r.Resolve(name)
	}
	return Clean(name)
}

// Resolve follows the symbolic links on name's way inside the directory,
// as its reads do; one leaving it is refused with ErrOutside.
func (d *Dir) Resolve(name string) (string, error) {
	c, err := Clean(name)
	if err != nil {
		return "", err
	}
	for hops := 0; ; {
		link, rest := d.firstLink(c)
		if link == "" {
			return c, nil
		}
		if hops++; hops > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", name)
		}
		target, err := d.root.Readlink(link)
		if err != nil {
			return "", d.explain(name, err)
		}
		target = filepath.ToSlash(target)
		next, err := Clean(path.Join(path.Dir(link), target, rest))
		if err != nil || path.IsAbs(target) {
			return "", fmt.Errorf("%s: %w (the symbolic link %s points outside it)", name, ErrOutside, link)
		}
		c = next
	}
}

// firstLink finds the first component of c that is a symbolic link; ""
// when none is (a component that does not exist ends the search).
func (d *Dir) firstLink(c string) (link, rest string) {
	if c == "." {
		return "", ""
	}
	for i := 0; i <= len(c); i++ {
		if i < len(c) && c[i] != '/' {
			continue
		}
		fi, err := inRoot(d, c[:i], (*os.Root).Lstat)
		if err != nil {
			return "", ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return c[:i], strings.TrimPrefix(c[i:], "/")
		}
	}
	return "", ""
}

// Root finds the directory a contract's references may reach: the top of the
// git work tree holding file, or else the file's own directory.
func Root(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	dir := abs
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return dir, nil
		}
	}
}
