package protobuf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/reporter"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/source"
)

// bigCompile is the number of files above which Load frees the compiler's
// memory at once.
const bigCompile = 500

// Options shape a Load.
type Options struct {
	// ImportPaths are root-relative directories imports resolve against, in
	// order, like protoc's -I. Every listed file must lie under one of them.
	ImportPaths []string
	// Display maps a root-relative name to the name shown in findings.
	Display func(string) string
	// Hint ends the message about an import not found: the flag or config
	// key that fixes it.
	Hint string
	// Cache, when set, keeps each file's lowering between runs.
	Cache Cache
	// Cached, when set, hears how many of the listed files came from the
	// cache.
	Cached func(hits, files int)
}

// Load compiles files (root-relative names in src) and lowers them. Imports
// resolve only inside src, against o.ImportPaths; google/protobuf/*.proto
// always resolve to the standard imports. Compile errors come back as
// source.Problems, every one of them. With o.Cache, files whose lowering
// is cached are not compiled (see cache.go).
func Load(src source.Source, files []string, o Options) (*Tree, error) {
	return load(src, files, o, batchFiles)
}

// load is Load compiling at most about batch files at once (see
// compileInto); 0 compiles all at once.
func load(src source.Source, files []string, o Options, batch int) (*Tree, error) {
	r, names, err := newResolver(src, files, o)
	if err != nil {
		return nil, err
	}
	t, todo, keys := newTree(), names, map[string]cache.Key(nil)
	if o.Cache != nil {
		keys = r.keys(names)
		t, todo = fromCache(o.Cache, names, keys)
		if o.Cached != nil {
			o.Cached(len(names)-len(todo), len(names))
		}
	}
	if len(todo) > 0 {
		if err := r.compileInto(t, todo, batch, o.Cache, keys); err != nil {
			return nil, err
		}
	}
	if _, bad := t.ignores(); len(bad) > 0 {
		return nil, bad
	}
	return t, nil
}

// newResolver resolves files against o's import paths and returns their
// import names, in order.
func newResolver(src source.Source, files []string, o Options) (*resolver, []string, error) {
	r := &resolver{src: src, roots: o.ImportPaths, display: o.Display, hint: o.Hint, where: map[string]string{}}
	if len(r.roots) == 0 {
		r.roots = []string{"."}
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		n, err := r.importName(f)
		if err != nil {
			return nil, nil, err
		}
		names = append(names, n)
	}
	return r, names, nil
}

// compile compiles names and reports every problem the compiler found.
func (r *resolver) compile(names []string) (linker.Files, error) {
	var mu sync.Mutex
	var got source.Collector // junk can hold millions of errors: keep a few per file
	rep := reporter.NewReporter(func(e reporter.ErrorWithPos) error {
		mu.Lock()
		got.Add(r.problem(e))
		mu.Unlock()
		return nil // keep going: report every error, not the first
	}, nil)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(r),
		// The lowering reads positions and comments from the syntax tree
		// (see places), cheaper than SourceCodeInfo for every file.
		RetainASTs: !r.noASTs,
		Reporter:   rep,
	}
	compiled, err := compile(&c, names)
	// The bytes the cache keys read are the compiler's now. Under the lock
	// that read takes: the compiler may return on an error while a task of
	// its own is still resolving an import.
	r.mu.Lock()
	r.pre = nil
	r.mu.Unlock()
	probs := got.Problems()
	if err != nil {
		var ewp reporter.ErrorWithPos
		var own source.Problems
		switch {
		case errors.As(err, &own):
			// The resolver's own refusal (a limit, an escaping import)
			// already names its file: keep it as it is.
			probs = append(probs, own...)
		case errors.As(err, &ewp):
			probs = append(probs, r.problem(ewp))
		case !errors.Is(err, reporter.ErrInvalidSource) || len(probs) == 0:
			probs = append(probs, r.unplaced(err, names))
		}
	}
	if len(probs) > 0 {
		return nil, dropEchoes(dedupe(probs))
	}
	return compiled, nil
}

// compile runs the compiler on every core (protocompile's default
// parallelism is GOMAXPROCS). The GC target around a large compile is the
// caller's (see CompileGC): the target is process-wide, and the pipeline
// compiles both sides at once.
func compile(c *protocompile.Compiler, names []string) (linker.Files, error) {
	return c.Compile(context.Background(), names...)
}

func dedupe(ps source.Problems) source.Problems {
	seen := map[source.Problem]bool{}
	out := ps[:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// resolver reads imports from a Source only, and remembers which root each
// import name came from so locations name root-relative files.
type resolver struct {
	src     source.Source
	roots   []string
	display func(string) string
	hint    string
	mu      sync.Mutex
	where   map[string]string // import name -> root-relative name
	// pre holds the bytes the cache keys read (root-relative name ->
	// bytes), so the compiler does not read them again.
	pre map[string][]byte
	// deep memoises each import name's closure hash (see cache.go).
	deep map[string]deepHash
	// linked holds the files earlier batches compiled (see compileBatches),
	// handed to the compiler as they are.
	linked map[string]linker.File
	// noASTs compiles without keeping syntax trees: Check lowers nothing.
	noASTs bool
}

func (r *resolver) setLinked(m map[string]linker.File) {
	r.mu.Lock()
	r.linked = m
	r.mu.Unlock()
}

// importName finds the import root that holds a listed file.
func (r *resolver) importName(f string) (string, error) {
	c, err := source.Clean(f)
	if err != nil {
		return "", source.Errorf(f, 0, 0, "%v", err)
	}
	for _, root := range r.roots {
		root = path.Clean(root)
		if root == "." {
			r.remember(c, c)
			return c, nil
		}
		if rest, ok := strings.CutPrefix(c, root+"/"); ok {
			r.remember(rest, c)
			return rest, nil
		}
	}
	return "", source.Errorf(r.show(c), 0, 0, "file is outside every import path (%s)", strings.Join(r.roots, ", "))
}

func (r *resolver) remember(name, rel string) {
	r.mu.Lock()
	if _, ok := r.where[name]; !ok {
		r.where[name] = rel
	}
	r.mu.Unlock()
}

// FindFileByPath refuses names that leave the root and otherwise searches
// the import roots in order.
func (r *resolver) FindFileByPath(name string) (protocompile.SearchResult, error) {
	if strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return protocompile.SearchResult{}, fmt.Errorf("import %q is absolute: imports must stay inside the import paths", name)
	}
	c, err := source.Clean(name)
	if err != nil {
		return protocompile.SearchResult{}, fmt.Errorf("import %q leaves the import paths", name)
	}
	if c != name {
		// Inside, but spelled two ways: protoc refuses it too, as the same
		// file would then be compiled under two names.
		return protocompile.SearchResult{}, fmt.Errorf("import %q is not written canonically (no ./, // or ..): write %q", name, c)
	}
	r.mu.Lock()
	rel, known := r.where[name]
	done := r.linked[name]
	r.mu.Unlock()
	if done != nil {
		return protocompile.SearchResult{Desc: done}, nil
	}
	if known {
		return r.read(rel)
	}
	for _, root := range r.roots {
		rel := path.Join(root, name)
		res, err := r.read(rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			r.remember(name, rel)
		}
		return res, err
	}
	return protocompile.SearchResult{}, &notFound{name: name, looked: r.looked(name), hint: r.hint}
}

// notFound is an import no root holds; its message says where it looked
// and what fixes it.
type notFound struct {
	name   string
	looked []string
	hint   string
}

func (e *notFound) Error() string {
	msg := fmt.Sprintf("import %q not found: looked for %s", e.name, strings.Join(e.looked, ", "))
	if e.hint != "" {
		msg += "; " + e.hint
	}
	return msg
}

func (e *notFound) Unwrap() error { return fs.ErrNotExist }

// looked lists the places an import was searched for, as shown.
func (r *resolver) looked(name string) []string {
	out := make([]string, len(r.roots))
	for i, root := range r.roots {
		out[i] = r.show(path.Join(root, name))
	}
	return out
}

func (r *resolver) read(rel string) (protocompile.SearchResult, error) {
	r.mu.Lock()
	b, ok := r.pre[rel]
	delete(r.pre, rel) // the compiler reads a file once: keep no copy
	r.mu.Unlock()
	if ok {
		return protocompile.SearchResult{Source: io.NopCloser(bytes.NewReader(b))}, nil
	}
	b, err := r.src.ReadFile(rel)
	if err != nil {
		return protocompile.SearchResult{}, err
	}
	return protocompile.SearchResult{Source: io.NopCloser(bytes.NewReader(b))}, nil
}

// locate turns an import name into the file name shown in findings.
func (r *resolver) locate(name string) string {
	r.mu.Lock()
	rel, ok := r.where[name]
	r.mu.Unlock()
	if !ok {
		rel = name // a standard import
	}
	return r.show(rel)
}

func (r *resolver) show(rel string) string {
	if r.display == nil {
		return rel
	}
	return r.display(rel)
}

func (r *resolver) problem(e reporter.ErrorWithPos) source.Problem {
	pos := e.GetPosition()
	msg := e.Error()
	if u := e.Unwrap(); u != nil {
		msg = u.Error()
	}
	return source.Problem{File: r.locate(pos.Filename), Line: pos.Line, Column: pos.Col, Msg: r.clean(msg)}
}

// unplaced names the file an error without a position is about: the one
// the compiler's message quotes (its recovered panics say `handling "x"`),
// else the first file of the side.
func (r *resolver) unplaced(err error, names []string) source.Problem {
	msg := r.clean(err.Error())
	file := ""
	if i := slices.IndexFunc(names, func(n string) bool { return strings.Contains(msg, `"`+n+`"`) }); i >= 0 {
		file = names[i]
	} else if len(names) > 0 {
		file = names[0]
	}
	if strings.HasPrefix(msg, "panic ") {
		msg = "the proto compiler failed on this file (" + msg + ")"
	}
	return source.Problem{File: r.locate(file), Msg: msg}
}

// clean keeps messages to one line so each problem is one line of output.
func (r *resolver) clean(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}
