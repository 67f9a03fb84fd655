package protobuf

import (
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/bufbuild/protocompile/linker"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/par"
)

// batchFiles is the most files one compile of a large tree holds: more
// are compiled in batches of whole directories. A batch is compiled,
// lowered, and its syntax trees dropped before the next; a file a batch
// compiled (listed or imported) is handed to later batches linked, not
// compiled again. The live heap is then the tree's linked descriptors and
// one batch's syntax trees, not every file's syntax tree at once.
const batchFiles = 1000

// compileInto compiles names and lowers them into t, in batches of about
// batch files (whole directories) when they are more. Any compile error,
// or two batches declaring one name, makes it compile all names at once,
// so problems are exactly those of one compile.
func (r *resolver) compileInto(t *Tree, names []string, batch int, c Cache, keys map[string]cache.Key) error {
	if groups := batches(names, batch); len(groups) > 1 {
		u, put, ok := r.compileBatches(groups, keys)
		r.setLinked(nil)
		// The batches' descriptors are garbage now: collected at once, the
		// next compile (the other side's) starts from a small heap.
		runtime.GC()
		if ok {
			t.merge(u)
			store(c, put)
			return nil
		}
	}
	compiled, err := r.compile(names)
	if err != nil {
		return err
	}
	put := lowerEach(t, compiled, r.locate, keys)
	if len(compiled) >= bigCompile {
		// Collect the compiled descriptors now rather than at the next
		// collection, which the pacer would schedule at twice the
		// compile's peak: the next side's compile (or the cache's
		// writes) then starts from a small heap.
		compiled = nil
		runtime.GC()
	}
	store(c, put)
	return nil
}

// compileBatches compiles groups one after the other, each with the files
// earlier ones linked, and lowers every listed file once. A linked file no
// later batch imports (by their text, transitively) is let go. ok is false
// on a compile error or a name declared in two batches.
func (r *resolver) compileBatches(groups [][]string, keys map[string]cache.Key) (u *Tree, put []entry, ok bool) {
	listed := map[string]bool{}
	for _, g := range groups {
		for _, n := range g {
			listed[n] = true
		}
	}
	later := r.laterImports(groups)
	linked, done := map[string]linker.File{}, map[string]bool{}
	u, seen := newTree(), symbols{}
	for i, g := range groups {
		todo := slices.DeleteFunc(slices.Clone(g), func(n string) bool { return done[n] })
		if len(todo) == 0 {
			continue
		}
		compiled, err := r.compile(todo)
		if err != nil {
			return nil, nil, false
		}
		fresh := newlyLinked(compiled, linked)
		var mine, imported linker.Files
		for _, f := range fresh {
			if listed[f.Path()] {
				mine = append(mine, f)
			} else {
				imported = append(imported, f)
			}
		}
		b := newTree()
		put = append(put, lowerEach(b, mine, r.locate, keys)...)
		// Imports not listed count too: one compile would see their names.
		if !seen.add(b) || !seen.add(lower(imported, r.locate)) {
			return nil, nil, false
		}
		u.merge(b)
		for _, f := range fresh {
			linked[f.Path()], done[f.Path()] = f, true
			if res, isRes := f.(linker.Result); isRes {
				res.RemoveAST() // lowered: only the descriptors serve later batches
			}
		}
		if later != nil {
			keepOnly(linked, later[i])
		}
		r.setLinked(linked)
	}
	return u, put, true
}

// laterImports lists, for each group, what the files of the groups after
// it import, read from their text; nil when a file's imports cannot be
// read for sure without the compiler.
func (r *resolver) laterImports(groups [][]string) []map[string]bool {
	var files []string
	for _, g := range groups {
		files = append(files, g...)
	}
	imports := make([][]string, len(files))
	var unsure atomic.Bool
	par.Each(len(files), func(i int) {
		r.mu.Lock()
		rel := r.where[files[i]]
		r.mu.Unlock()
		b, err := r.src.ReadFile(rel)
		ok := err == nil
		if ok {
			imports[i], _, ok = Scan(b)
		}
		if !ok {
			unsure.Store(true)
		}
	})
	if unsure.Load() {
		return nil
	}
	later := make([]map[string]bool, len(groups))
	after, end := map[string]bool{}, len(files)
	for i := len(groups) - 1; i >= 0; i-- {
		later[i] = maps.Clone(after)
		start := end - len(groups[i])
		for _, imps := range imports[start:end] {
			for _, n := range imps {
				after[n] = true
			}
		}
		end = start
	}
	return later
}

// keepOnly drops from linked every file that need does not reach through
// the linked files' imports.
func keepOnly(linked map[string]linker.File, need map[string]bool) {
	keep := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if keep[name] {
			return
		}
		keep[name] = true
		if f := linked[name]; f != nil {
			for j := range f.Imports().Len() {
				walk(f.Imports().Get(j).Path())
			}
		}
	}
	for n := range need {
		walk(n)
	}
	maps.DeleteFunc(linked, func(n string, _ linker.File) bool { return !keep[n] })
}

// newlyLinked lists compiled and everything they import, transitively,
// that linked does not hold yet.
func newlyLinked(compiled linker.Files, linked map[string]linker.File) []linker.File {
	var out []linker.File
	seen := map[string]bool{}
	var walk func(f linker.File)
	walk = func(f linker.File) {
		if f == nil || seen[f.Path()] || linked[f.Path()] != nil {
			return
		}
		seen[f.Path()] = true
		out = append(out, f)
		for i := range f.Imports().Len() {
			if imp, isFile := f.Imports().Get(i).FileDescriptor.(linker.File); isFile {
				walk(imp)
			}
		}
	}
	for _, f := range compiled {
		walk(f)
	}
	return out
}

// batches splits names into groups of at most about size files, never
// splitting a directory, in sorted order.
func batches(names []string, size int) [][]string {
	if size <= 0 || len(names) <= size {
		return [][]string{names}
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	var out [][]string
	start := 0
	for i := 1; i <= len(sorted); i++ {
		if i == len(sorted) || (i-start >= size && dir(sorted[i]) != dir(sorted[i-1])) {
			out = append(out, sorted[start:i])
			start = i
		}
	}
	return out
}

// symbols maps every name a batch declared (packages and their prefixes
// too) to the file declaring it, "" for a package. One compile refuses a
// name declared twice across all its files; batches only see their own.
type symbols map[string]string

// add records t's names and reports whether none clashes with an earlier
// batch's: two packages may share a name, nothing else may.
func (s symbols) add(t *Tree) bool {
	ok := true
	put := func(name, file string) {
		if prev, seen := s[name]; seen && (prev != "" || file != "") {
			ok = ok && prev == file
			return
		}
		s[name] = file
	}
	for _, f := range t.Files {
		for p := f.Package; p != ""; p = parent(p) {
			put(p, "")
		}
	}
	for _, m := range t.Messages {
		put(m.Name, m.File)
	}
	for _, e := range t.Enums {
		put(e.Name, e.File)
		for _, v := range e.Values {
			put(v.Name, e.File)
		}
	}
	for _, v := range t.Services {
		put(v.Name, v.File)
	}
	for k, x := range t.Extensions {
		put(x.Name, x.File)
		put("extension "+k, x.File)
	}
	return ok
}

func parent(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return ""
	}
	return name[:i]
}

func dir(name string) string { return path.Dir(name) }
