package pipeline

import (
	"bytes"
	"errors"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// A split spec is a root and the files it $refs. Before anything is parsed,
// both sides' files are read and compared (a byte compare is far cheaper
// than a parse), so the subset load (openapi.PlanFiles) keeps only the root's
// chunks that reach a file that changed, and the loader never reads the
// files no kept chunk reaches.

// fileTree is one side's files: each one the root reaches, its bytes and
// the $refs it makes (resolved against its folder).
type fileTree struct {
	root  string
	text  map[string][]byte
	edges map[string][]target
}

// target is one $ref: the file it names and its fragment, whether it was
// written in a YAML comment (which the loader never reads), and its line.
type target struct {
	file, frag string
	commented  bool
	line       int
}

// readTree reads every file the root reaches, a level of the walk at a time
// on every core; ok is false when a file does not read or a $ref cannot be
// followed for sure (the whole load then reports it). A file is read
// without asking first whether it is there: the read says so, and a Stat
// before each of 2,907 files (DigitalOcean) is a system call too many.
func readTree(s Side, root []byte) (*fileTree, bool) {
	name := firstName(s)
	t := &fileTree{root: name, text: map[string][]byte{name: root}, edges: map[string][]target{}}
	missing := map[string]bool{}
	level := []string{name}
	for len(level) > 0 {
		edges := make([][]target, len(level))
		oks := make([]bool, len(level))
		par.Each(len(level), func(i int) { edges[i], oks[i] = refTargets(level[i], t.text[level[i]]) })
		var next []string
		for i := range level {
			if !oks[i] {
				return nil, false
			}
			for _, e := range edges[i] {
				if _, seen := t.text[e.file]; !seen && !missing[e.file] {
					t.text[e.file] = nil
					next = append(next, e.file)
				}
			}
		}
		texts := make([][]byte, len(next))
		errs := make([]error, len(next))
		par.Each(len(next), func(i int) { texts[i], errs[i] = s.Src.ReadFile(next[i]) })
		found := next[:0:0]
		for i, f := range next {
			switch {
			case errs[i] == nil:
				t.text[f] = texts[i]
				found = append(found, f)
			case errors.Is(errs[i], fs.ErrNotExist):
				delete(t.text, f)
				missing[f] = true
			default:
				return nil, false
			}
		}
		par.Each(len(level), func(i int) { edges[i], oks[i] = followed(t.text[level[i]], edges[i], missing) })
		for i, f := range level {
			if !oks[i] {
				return nil, false
			}
			t.edges[f] = edges[i]
		}
		level = found
	}
	return t, true
}

// followed is es, the $refs of text, without those to missing files that
// the loader never reads: written in comments (Lob keeps the ones it
// retired so), or under an extension (Dropbox Sign's x-codeSamples name
// example files its export leaves out; see openapi.DataRefLines). false
// when text $refs a missing file the loader would read.
func followed(text []byte, es []target, missing map[string]bool) ([]target, bool) {
	var lines []int // of the missing ones the text may hold as data
	for _, e := range es {
		if missing[e.file] && !e.commented {
			lines = append(lines, e.line)
		}
	}
	var data map[int]bool
	if len(lines) > 0 {
		if !bytes.Contains(text, []byte("x-")) {
			return nil, false
		}
		data = openapi.DataRefLines(text, lines...)
	}
	out := es[:0:0]
	for _, e := range es {
		if !missing[e.file] {
			out = append(out, e)
		} else if !e.commented && !data[e.line] {
			return nil, false
		}
	}
	return out, true
}

// refTargets lists the other files (or the root) b's $refs name, read as
// the loader reads them: a URI reference, percent-escapes decoded, a query
// no part of the name.
func refTargets(name string, b []byte) ([]target, bool) {
	refs, ok := refEntries(b)
	if !ok {
		return nil, false
	}
	return resolve(name, b, refs)
}

// resolve reads refs, written in name (text b), as files and fragments.
func resolve(name string, b []byte, refs []refEntry) ([]target, bool) {
	var out []target
	// refs come in the order of the text: lines are counted on from the
	// last one.
	line, from := 1, 0
	for _, e := range refs {
		line += bytes.Count(b[from:e.at], []byte("\n"))
		from = e.at
		r := e.value
		if strings.HasPrefix(r, "#") {
			continue
		}
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") {
			return nil, false
		}
		f, err := source.Clean(path.Join(path.Dir(name), u.Path))
		if err != nil {
			return nil, false
		}
		out = append(out, target{f, u.Fragment, e.commented, line})
	}
	return out, true
}

// planFiles plans the subset load of two split specs; nil, and why, when
// it does not apply, or nil and same when every file of one side is the
// other's.
func planFiles(old, new Side, ob, nb []byte) (*openapi.Subset, *openapi.NoPlan, bool) {
	var ot, nt *fileTree
	var ook, nok bool
	var wg sync.WaitGroup
	wg.Go(func() { ot, ook = readTree(old, ob) })
	nt, nok = readTree(new, nb)
	wg.Wait()
	if !ook || !nok {
		return nil, &openapi.NoPlan{Reason: "a $ref'd file that is not read, or a $ref in one that is not followed", New: ook}, false
	}
	// The sides' roots may sit in different folders (diff a/api.yaml
	// b/api.yaml): files are compared by their names below the root's.
	oc, ok1 := ot.changed(nt)
	nc, ok2 := nt.changed(ot)
	if !ok1 || !ok2 {
		return nil, &openapi.NoPlan{Reason: "a $ref'd file outside the root's folder", New: ok1}, false
	}
	if len(oc) == 0 && len(nc) == 0 && bytes.Equal(ob, nb) {
		return nil, nil, true
	}
	od, nd := ot.dirty(oc), nt.dirty(nc)
	sub, why := openapi.PlanFiles(ob, nb, func(isOld bool, text []byte) (bool, []string, bool) {
		t, dirty := nt, nd
		if isOld {
			t, dirty = ot, od
		}
		return t.reach(text, dirty)
	})
	if sub != nil {
		if !nt.namesKey() {
			sub.NoKeyInFiles()
		}
		sub.IndexWith(func() ([]openapi.IndexedOp, []openapi.IndexedOp, bool) {
			return indexSides(ot.root, ot.file, nt.root, nt.file)
		})
	}
	return sub, why, false
}

// file serves the text of one of t's files, as the operation index reads
// it.
func (t *fileTree) file(name string) ([]byte, bool) {
	b, ok := t.text[name]
	return b, ok && b != nil
}

// indexSides indexes the operations of both sides' whole documents
// (openapi.IndexOperations) on two cores.
func indexSides(oroot string, oread func(string) ([]byte, bool), nroot string, nread func(string) ([]byte, bool)) ([]openapi.IndexedOp, []openapi.IndexedOp, bool) {
	var oi []openapi.IndexedOp
	var ook bool
	var wg sync.WaitGroup
	wg.Go(func() { oi, ook = openapi.IndexOperations(oroot, oread) })
	ni, nok := openapi.IndexOperations(nroot, nread)
	wg.Wait()
	return oi, ni, ook && nok
}

// namesKey reports whether any of t's files, the root included, names an
// idempotency key.
func (t *fileTree) namesKey() bool {
	for _, b := range t.text {
		if openapi.NamesKey(b) {
			return true
		}
	}
	return false
}

// changed lists t's files that differ from, or are missing in, other's
// (matched by their names below each root's folder), the root aside. ok is
// false when a file lies outside the root's folder.
func (t *fileTree) changed(other *fileTree) (map[string]bool, bool) {
	out := map[string]bool{}
	for f, b := range t.text {
		if f == t.root {
			continue
		}
		rel, ok := below(t.root, f)
		if !ok {
			return nil, false
		}
		ob, ok := other.text[path.Join(path.Dir(other.root), rel)]
		if !ok || !bytes.Equal(b, ob) {
			out[f] = true
		}
	}
	return out, true
}

// below is f's name relative to root's folder.
func below(root, f string) (string, bool) {
	dir := path.Dir(root)
	if dir == "." {
		return f, true
	}
	return strings.CutPrefix(f, dir+"/")
}

// dirty is every file that is changed or reaches one, the root aside.
func (t *fileTree) dirty(changed map[string]bool) map[string]bool {
	back := map[string][]string{}
	for f, es := range t.edges {
		for _, e := range es {
			back[e.file] = append(back[e.file], f)
		}
	}
	out := map[string]bool{}
	var stack []string
	for f := range changed {
		stack = append(stack, f)
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if out[f] || f == t.root {
			continue
		}
		out[f] = true
		stack = append(stack, back[f]...)
	}
	return out
}

// reach follows the $refs in text, a part of the root, through the files
// they reach: whether one is dirty, and the pointers into the root they $ref.
func (t *fileTree) reach(text []byte, dirty map[string]bool) (bool, []string, bool) {
	start, ok := refTargets(t.root, text)
	if !ok {
		return false, nil, false
	}
	seen := map[string]bool{}
	var back []string
	any := false
	stack := start
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.file == t.root {
			back = append(back, "#"+e.frag)
			continue
		}
		if seen[e.file] {
			continue
		}
		seen[e.file] = true
		any = any || dirty[e.file]
		stack = append(stack, t.edges[e.file]...)
	}
	return any, back, true
}
