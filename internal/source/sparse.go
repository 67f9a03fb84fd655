package source

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Listing is what one `git ls-files --cached --others --exclude-standard -t`
// says of a working tree: a review asks it once for the files on the head
// side, the untracked ones among them and the ones a sparse checkout left
// out, rather than starting git for each.
type Listing struct {
	// Names are the tracked files and the untracked ones not ignored,
	// relative to the top, in git's order.
	Names []string
	// Untracked are the names git does not track yet.
	Untracked []string
	// skipped are the tracked files a sparse checkout left out
	// (skip-worktree).
	skipped map[string]bool
}

// ListWorkTree lists the working tree of the repository at top.
func ListWorkTree(top string) (*Listing, error) {
	out, err := RunGit(top, "ls-files", "-t", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	l := &Listing{skipped: map[string]bool{}}
	for _, rec := range SplitZ(out) {
		// <tag> SP <path>: H tracked, S skip-worktree, M unmerged, ? untracked.
		tag, name, ok := strings.Cut(rec, " ")
		if !ok {
			return nil, fmt.Errorf("git ls-files: unexpected line %q", rec)
		}
		l.Names = append(l.Names, name)
		switch tag {
		case "?":
			l.Untracked = append(l.Untracked, name)
		case "S":
			l.skipped[name] = true
		}
	}
	return l, nil
}

// OpenWorkTree opens the working tree of the repository at top, which l
// lists. In a sparse checkout the files left out of it (skip-worktree) are
// read from the index, where git keeps them unchanged: a contract outside
// the checkout is still a contract of the revision, and a change that
// reaches it must not pass because the file is not on disk. close ends the
// index's git process, if one was started.
func OpenWorkTree(top string, l *Listing) (src Source, close func() error, err error) {
	d, err := OpenDir(top)
	if err != nil {
		return nil, nil, err
	}
	if len(l.skipped) == 0 {
		return d, func() error { return nil }, nil
	}
	idx, err := OpenIndex(top)
	if err != nil {
		return nil, nil, err
	}
	return &sparse{Dir: d, idx: idx, skipped: l.skipped}, idx.Close, nil
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
