package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/contractlint/contractlint/internal/source"
)

// reviewSources reads the files a review compared, by their names from the
// top of the work tree: the base from its commit, the head from --head's
// commit, the index (--staged) or the work tree. A name never leads outside
// the repository: git reads only its own objects, and the work tree is
// read through an os.Root, which refuses a path or symlink that leaves it.
type reviewSources struct {
	top, base, head string
	staged          bool
	// ident is who would commit now, asked of git once a run: every
	// acceptance not committed yet is theirs.
	ident func() string
	mu    sync.Mutex
	// blames are the files' git blame output, by name (see blame).
	blames map[string]blamed
}

func newReviewSources(dir, base, head string, staged bool) *reviewSources {
	top, err := source.Root(dir)
	if err != nil {
		top = dir
	}
	return &reviewSources{top: top, base: base, head: head, staged: staged, ident: sync.OnceValue(func() string {
		out, err := source.RunGit(top, "var", "GIT_AUTHOR_IDENT")
		if err != nil {
			return ""
		}
		// "Name <mail> 1700000000 +0000": the time is not who.
		f := strings.Fields(string(out))
		return strings.Join(f[:max(0, len(f)-2)], " ")
	})}
}

func (s *reviewSources) Base(name string) ([]byte, error) {
	if s.base == "" {
		return nil, fmt.Errorf("no base commit to read %s from", name)
	}
	return s.show(s.base, name)
}

func (s *reviewSources) Head(name string) ([]byte, error) {
	switch {
	case s.head != "":
		return s.show(s.head, name)
	case s.staged:
		return s.show("", name)
	}
	if !filepath.IsLocal(filepath.FromSlash(name)) {
		return nil, fmt.Errorf("%s is not inside the repository", name)
	}
	root, err := os.OpenRoot(s.top)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(filepath.FromSlash(name))
}

// show is name at rev (the index for ""), as git stores it.
func (s *reviewSources) show(rev, name string) ([]byte, error) {
	if !filepath.IsLocal(filepath.FromSlash(name)) || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%s is not inside the repository", name)
	}
	return source.RunGit(s.top, "show", rev+":"+name)
}
