package protobuf

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/internal/source"
)

// checkFiles is the most files one compile of Check holds. Check keeps no
// syntax trees and lowers nothing, so between batches only the linked
// files later batches import stay live: the compiler's working set (and
// the GC's) is one batch, not the tree. Smaller batches lower the peak but
// leave the cores idle more often while a batch waits on its import order.
const checkFiles = 300

// Check compiles files and reports every problem, as Load does, but lowers
// nothing and keeps no syntax trees: a diff runs it over the files it skips
// as unchanged, so the skip never hides a file that does not compile. A file
// whose lowering o.Cache holds, or that o.Cache holds as checked, compiled
// before, and is not compiled again; files that compile are recorded as
// checked under their key (bytes and imports, transitively).
func Check(src source.Source, files []string, o Options) error {
	return check(src, files, o, checkFiles)
}

// check is Check compiling at most about batch files at once; 0 compiles
// all at once.
func check(src source.Source, files []string, o Options, batch int) error {
	r, names, err := newResolver(src, files, o)
	if err != nil {
		return err
	}
	todo, keys := names, map[string]cache.Key(nil)
	if o.Cache != nil {
		keys = r.keys(names)
		_, todo = fromCache(o.Cache, names, keys)
		todo = slices.DeleteFunc(todo, func(n string) bool { return checked(o.Cache, keys, n) })
	}
	if len(todo) == 0 {
		return nil
	}
	r.noASTs = true
	ok := false
	if groups := batches(todo, batch); len(groups) > 1 {
		ok = r.checkBatches(groups)
		r.setLinked(nil)
	}
	if !ok {
		// One compile, so that problems are exactly those of one compile.
		if _, err := r.compile(todo); err != nil {
			return err
		}
	}
	if o.Cache != nil {
		par.Each(len(todo), func(i int) {
			if k, has := keys[todo[i]]; has {
				_ = o.Cache.Put(checkedKey(k), checkedMark) // a failed write only loses the entry
			}
		})
	}
	return nil
}

// checkedMark is the payload of a "compiled without problems" entry.
var checkedMark = []byte("compiled")

// checkedKey is the key under which a file with lowering key k is recorded
// as compiling: another key than its lowering's, of the same inputs.
func checkedKey(k cache.Key) cache.Key {
	return sha256.Sum256(append([]byte("checked\n"), k[:]...))
}

func checked(c Cache, keys map[string]cache.Key, name string) bool {
	k, has := keys[name]
	if !has {
		return false
	}
	b, hit := c.Get(checkedKey(k))
	return hit && bytes.Equal(b, checkedMark)
}

// checkBatches compiles groups one after the other, each with the files
// earlier ones linked, and lets a linked file go once no later group
// imports it. ok is false on a compile error or a name declared in two
// batches (one compile would refuse it; batches only see what they import).
func (r *resolver) checkBatches(groups [][]string) (ok bool) {
	later := r.laterImports(groups)
	linked, done := map[string]linker.File{}, map[string]bool{}
	seen := map[protoreflect.FullName]string{}
	for i, g := range groups {
		var todo []string
		for _, n := range g {
			if !done[n] {
				todo = append(todo, n)
			}
		}
		if len(todo) == 0 {
			continue
		}
		compiled, err := r.compile(todo)
		if err != nil {
			return false
		}
		for _, f := range newlyLinked(compiled, linked) {
			if !declare(seen, f) {
				return false
			}
			linked[f.Path()], done[f.Path()] = f, true
		}
		if later != nil {
			keepOnly(linked, later[i])
		}
		r.setLinked(linked)
	}
	return true
}

// declare records the names f declares in seen (name -> file, "" for a
// package and its prefixes) and reports whether none clashes with another
// file's: two files may share a package, nothing else.
func declare(seen map[protoreflect.FullName]string, f protoreflect.FileDescriptor) bool {
	ok := true
	put := func(name protoreflect.FullName, file string) {
		if prev, had := seen[name]; had && (prev != "" || file != "") {
			ok = ok && prev == file
			return
		}
		seen[name] = file
	}
	for p := f.Package(); p != ""; p = p.Parent() {
		put(p, "")
	}
	file := f.Path()
	enums := func(es protoreflect.EnumDescriptors) {
		for i := range es.Len() {
			e := es.Get(i)
			put(e.FullName(), file)
			for j := range e.Values().Len() {
				put(e.Values().Get(j).FullName(), file)
			}
		}
	}
	exts := func(xs protoreflect.ExtensionDescriptors) {
		for i := range xs.Len() {
			x := xs.Get(i)
			put(x.FullName(), file)
			// Not a name protobuf allows (a space), so it clashes only
			// with another extension of the same message and number.
			put(protoreflect.FullName(fmt.Sprintf("extension %s %d", x.ContainingMessage().FullName(), x.Number())), file)
		}
	}
	var messages func(ms protoreflect.MessageDescriptors)
	messages = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			m := ms.Get(i)
			put(m.FullName(), file)
			messages(m.Messages())
			enums(m.Enums())
			exts(m.Extensions())
		}
	}
	messages(f.Messages())
	enums(f.Enums())
	exts(f.Extensions())
	for i := range f.Services().Len() {
		put(f.Services().Get(i).FullName(), file)
	}
	return ok
}
