package source

import (
	"errors"
	"io/fs"
	"strings"
)

// OpenWorkTree opens the working tree of the repository at top. In a
// sparse checkout the files left out of it (skip-worktree) are read from
// the index, where git keeps them unchanged: a contract outside the
// checkout is still a contract of the revision, and a change that reaches
// it must not pass because the file is not on disk. close ends the index's
// git process, if one was started.
func OpenWorkTree(top string) (src Source, close func() error, err error) {
	d, err := OpenDir(top)
	if err != nil {
		return nil, nil, err
	}
	none := func() error { return nil }
	out, err := RunGit(top, "ls-files", "-t", "-z")
	if err != nil {
		return nil, nil, err
	}
	skipped := map[string]bool{}
	for _, rec := range SplitZ(out) {
		if name, ok := strings.CutPrefix(rec, "S "); ok {
			skipped[name] = true
		}
	}
	if len(skipped) == 0 {
		return d, none, nil
	}
	idx, err := OpenIndex(top)
	if err != nil {
		return nil, nil, err
	}
	return &sparse{Dir: d, idx: idx, skipped: skipped}, idx.Close, nil
}

// sparse is a working tree whose skip-worktree files are read from the
// index.
type sparse struct {
	*Dir
	idx     *Git
	skipped map[string]bool
}

// fromIndex reports whether name is read from the index: left out of the
// checkout, and not put back on disk since.
func (s *sparse) fromIndex(name string, err error) bool {
	c, cerr := Clean(name)
	return cerr == nil && s.skipped[c] && errors.Is(err, fs.ErrNotExist)
}

func (s *sparse) ReadFile(name string) ([]byte, error) {
	b, err := s.Dir.ReadFile(name)
	if s.fromIndex(name, err) {
		return s.idx.ReadFile(name)
	}
	return b, err
}

func (s *sparse) ReadFileMax(name string, max int64) ([]byte, error) {
	b, err := s.Dir.ReadFileMax(name, max)
	if s.fromIndex(name, err) {
		return s.idx.ReadFileMax(name, max)
	}
	return b, err
}

func (s *sparse) ReadPrefix(name string, n int64) ([]byte, error) {
	b, err := s.Dir.ReadPrefix(name, n)
	if s.fromIndex(name, err) {
		return s.idx.ReadPrefix(name, n)
	}
	return b, err
}

func (s *sparse) Stat(name string) (fs.FileInfo, error) {
	fi, err := s.Dir.Stat(name)
	if s.fromIndex(name, err) {
		return s.idx.Stat(name)
	}
	return fi, err
}
