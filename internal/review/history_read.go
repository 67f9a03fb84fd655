package review

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/contractlint/contractlint/internal/fieldnums"
	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
)

// segment is how many versions one core reads in a row: each run starts
// with a whole parse, then reads every next version from the one before
// (only the declarations a commit touched).
const segment = 32

// versionUses reads the fields of every version in vs of name, with
// types resolved against the imports the base tree holds, else, for a
// version whose imports the base lacks, against its own commit's; nil for
// a version that reads neither way (it did not compile), as the compiler
// would have skipped it. Each distinct blob is read once through the
// base's cat-file and parsed in part (see fieldnums.Next); nothing is
// linked.
func (r *Repo) versionUses(base *source.Git, name string, vs []version, po pipeline.Options) [][]fieldnums.Use {
	out := make([][]fieldnums.Use, len(vs))
	if base == nil {
		for i, v := range vs {
			out[i] = r.ownUses(name, v, nil, po)
		}
		return out
	}
	tree := &treeSymbols{src: base, got: map[string]symbolsOf{}}
	roots := &rootsOf{tree: tree, po: po, got: map[string]*treeDeps{}}
	par.Each((len(vs)+segment-1)/segment, func(s int) {
		var prev *fieldnums.File
		var prevText []byte
		for i := s * segment; i < min(len(vs), (s+1)*segment); i++ {
			v := vs[i]
			text, err := base.Pinned(name, v.blob, v.commit).ReadFile(name)
			if err != nil {
				continue
			}
			var f *fieldnums.File
			if prev != nil {
				f, err = prev.Next(name, prevText, text)
			} else {
				f, err = fieldnums.Parse(name, text)
			}
			if err != nil {
				continue // does not parse: the compiler skipped it too
			}
			prev, prevText = f, text
			if deps, err := roots.of(base.Pinned(name, v.blob, v.commit), name, f); err == nil {
				if uses, ok := f.Uses(deps); ok {
					out[i] = uses
					continue
				}
			}
			out[i] = r.ownUses(name, v, f, po)
		}
	})
	return out
}

// ownUses reads a version with the imports of its own commit.
func (r *Repo) ownUses(name string, v version, f *fieldnums.File, po pipeline.Options) []fieldnums.Use {
	src, err := source.OpenRev(r.Top, v.commit)
	if err != nil {
		return nil
	}
	defer src.Close()
	if f == nil {
		text, err := src.ReadFile(name)
		if err != nil {
			return nil
		}
		if f, err = fieldnums.Parse(name, text); err != nil {
			return nil
		}
	}
	tree := &treeSymbols{src: src, got: map[string]symbolsOf{}}
	deps, err := (&rootsOf{tree: tree, po: po, got: map[string]*treeDeps{}}).of(src, name, f)
	if err != nil {
		return nil
	}
	uses, _ := f.Uses(deps)
	return uses
}

// rootsOf finds the import roots of the versions of a file: those of the
// tree, which depend on the version's imports only, so they are found
// once per list of imports.
type rootsOf struct {
	tree *treeSymbols
	po   pipeline.Options
	mu   sync.Mutex
	got  map[string]*treeDeps
}

// of is the imports of f, the version of name that src holds.
func (r *rootsOf) of(src source.Source, name string, f *fieldnums.File) (*treeDeps, error) {
	var key strings.Builder
	for _, imp := range f.Imports {
		key.WriteString(imp.Path + "\x00")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.got[key.String()]; ok {
		return d, nil
	}
	roots, err := pipeline.ProtoRoots(src, name, r.po)
	if err != nil {
		return nil, err
	}
	d := &treeDeps{tree: r.tree, roots: roots}
	r.got[key.String()] = d
	return d, nil
}

// treeDeps finds imports under roots in a tree, as the compiler does,
// then among the standard imports the compiler provides.
type treeDeps struct {
	tree  *treeSymbols
	roots []string
}

func (d *treeDeps) Lookup(name string) (*fieldnums.Symbols, error) {
	for _, root := range d.roots {
		s, err := d.tree.symbols(path.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return s, err
	}
	fd, err := protoregistry.GlobalFiles.FindFileByPath(name)
	if err != nil {
		return nil, err
	}
	return fieldnums.FromDescriptor(fd), nil
}

// treeSymbols reads each file of a tree that versions import once.
type treeSymbols struct {
	src source.Source
	mu  sync.Mutex
	got map[string]symbolsOf
}

type symbolsOf struct {
	s   *fieldnums.Symbols
	err error
}

func (t *treeSymbols) symbols(name string) (*fieldnums.Symbols, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.got[name]; ok {
		return s.s, s.err
	}
	var s symbolsOf
	text, err := t.src.ReadFile(name)
	if err == nil {
		var f *fieldnums.File
		if f, err = fieldnums.Parse(name, text); err == nil {
			s.s = f.Symbols()
		}
	}
	s.err = err
	t.got[name] = s
	return s.s, s.err
}
