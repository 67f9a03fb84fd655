package review

import (
	"context"
	"io/fs"
	"sync"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Session is a review held open (the language server's): the base is
// resolved once and its files read once, and any file's new text, from
// whatever source holds it (an editor's unsaved buffers), is judged against
// it as Run judges a changed file.
type Session struct {
	repo *Repo
	Base Base
	old  *memo
	o    Options
}

// OpenSession resolves the base for the repository holding o.Dir (o.Base,
// else the merge base with the default branch, as Run does). A base that
// cannot be found is a *MissingError naming the git command that fixes it.
func OpenSession(o Options) (*Session, error) {
	repo, err := OpenRepo(o.Dir)
	if err != nil {
		return nil, err
	}
	base, err := repo.ResolveBase(o.Base)
	if err != nil {
		return nil, err
	}
	src, err := source.OpenRev(repo.Top, base.Commit)
	if err != nil {
		return nil, err
	}
	// The base does not change while the session is open: its documents
	// are loaded once, and each edit parses only the buffer's side.
	o.Pipeline.Held = pipeline.NewHeld()
	return &Session{repo: repo, Base: base, old: newMemo(src), o: o}, nil
}

// Top is the work tree's top directory: every name is relative to it.
func (s *Session) Top() string { return s.repo.Top }

// Close ends the git process that reads the base.
func (s *Session) Close() error { return s.old.src.Close() }

// IsContract reports whether name, as src holds it, is a contract file the
// session's globs select (a .proto file, or a document with `openapi:`).
func (s *Session) IsContract(src source.Source, name string) bool {
	return isContractWithin(src, name, s.o.Globs, s.o.Pipeline.Limits)
}

// Selected reports whether the session's globs select name, whatever it holds.
func (s *Session) Selected(name string) bool {
	return selects(s.o.Globs, name)
}

// Judge compares name as newSrc holds it with its version at the base,
// through the very function Run compares each changed file with: a file the
// base lacks is linted as added, a .proto file gets the field numbers its
// git history and the lock files hold. also are .proto files compared with
// it (changed imports, as Run joins them). Cancelling ctx stops the
// comparison between its phases; it then returns ctx's error.
func (s *Session) Judge(ctx context.Context, name string, newSrc source.Source, also ...string) ([]rules.Finding, error) {
	c := FileChange{Status: Modified, Old: name, New: name, Also: also}
	if !s.old.src.Has(name) {
		c.Status = Added
	}
	lock, _, err := readLocks(s.old, newSrc)
	if err != nil {
		return nil, err
	}
	// An OpenAPI document is read from the memo, once per session; the
	// history walk of a .proto file reads git's own source, which it can
	// ask for any version's blob.
	var old source.Source = s.old
	if isProto(name) {
		old = s.old.src
	}
	o := s.o
	o.Pipeline.Context = ctx
	return s.repo.review(c, s.Base, old, newSrc, lock, o)
}

// Ready blocks until the base documents the session loads in the
// background (a document's whole base, loaded once it is first compared)
// are loaded, or until ctx is done.
func (s *Session) Ready(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.o.Pipeline.Held.Wait()
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Reaching lists the names among roots that reach changed through $refs or
// imports, as newSrc holds them: the contracts a change to a shared file is
// judged through.
func (s *Session) Reaching(newSrc source.Source, roots []string, changed string) []string {
	g := newGraph(s.o.Pipeline.Limits.Guard(newSrc, nil), s.o.Pipeline.ProtoPaths)
	g.prefetch(roots)
	var out []string
	for _, r := range roots {
		if r != changed && len(g.reaches(r, map[string]bool{changed: true})) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// Contracts lists the contract files the session's globs select in the
// working tree (tracked, or untracked and not ignored).
func (s *Session) Contracts() ([]string, error) {
	out, err := s.repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range source.SplitZ(out) {
		if s.Selected(n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// memo is a base revision whose files are read once: between two edits
// the base does not change, and git cat-file is a round trip per file.
type memo struct {
	src   *source.Git
	mu    sync.Mutex
	files map[string]memoFile
}

type memoFile struct {
	b   []byte
	err error
}

func newMemo(src *source.Git) *memo { return &memo{src: src, files: map[string]memoFile{}} }

func (m *memo) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	f, ok := m.files[name]
	m.mu.Unlock()
	if ok {
		return f.b, f.err
	}
	b, err := m.src.ReadFile(name)
	m.mu.Lock()
	m.files[name] = memoFile{b, err}
	m.mu.Unlock()
	return b, err
}

func (m *memo) ReadDir(name string) ([]fs.DirEntry, error) { return m.src.ReadDir(name) }
func (m *memo) Stat(name string) (fs.FileInfo, error)      { return m.src.Stat(name) }
func (m *memo) Label() string                              { return m.src.Label() }

// BaseFile is name as the base has it.
func (s *Session) BaseFile(name string) ([]byte, error) { return s.old.ReadFile(name) }
