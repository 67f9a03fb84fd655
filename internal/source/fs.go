package source

import (
	"errors"
	"io/fs"
)

// FS is a Source over any fs.FS: an in-memory tree for fuzzing and tests,
// an embedded one, or an archive. Names are checked by Clean first, so it
// refuses what every other Source refuses.
type FS struct {
	FS   fs.FS
	Name string // the Label
}

func (f FS) Label() string { return f.Name }

func (f FS) ReadFile(name string) ([]byte, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	return fs.ReadFile(f.FS, c)
}

func (f FS) ReadDir(name string) ([]fs.DirEntry, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	return fs.ReadDir(f.FS, c)
}

func (f FS) Stat(name string) (fs.FileInfo, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	return fs.Stat(f.FS, c)
}

// Named reports whether err is an input error (Problems) every problem of
// which names its file: the shape the CLI prints as file:line:col, exit 2.
func Named(err error) bool {
	var ps Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		if p.File == "" {
			return false
		}
	}
	return true
}
