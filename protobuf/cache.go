package protobuf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"strings"

	"github.com/bufbuild/protocompile/linker"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Cache keeps lowered files between runs (internal/cache.Store is one).
//
// The unit is one file's lowering. It depends on the file's bytes, on
// everything it imports, transitively (the types it names, the options it
// sets are defined there), on its import name, root-relative name and
// shown name, and on this package's model and lowering: the key hashes all
// of them. The tool's version, which fixes the compiler and its standard
// imports, is the store's to check. A file whose imports the scan cannot
// read for sure, or whose closure is not all found, is not cached.
type Cache interface {
	Get(k cache.Key) ([]byte, bool)
	Put(k cache.Key, payload []byte) error
}

// loweringVersion is part of every key: bump it when lowering changes
// what it records without changing the model's shape (which the key
// already covers).
const loweringVersion = 2

func newTree() *Tree {
	return &Tree{Files: map[string]*File{}, Messages: map[string]*Message{},
		Enums: map[string]*Enum{}, Services: map[string]*Service{}, Extensions: map[string]*Field{}}
}

// merge adds u's declarations to t. Files lower apart from one another,
// so their declarations never share a name.
func (t *Tree) merge(u *Tree) {
	for k, v := range u.Files {
		t.Files[k] = v
	}
	for k, v := range u.Messages {
		t.Messages[k] = v
	}
	for k, v := range u.Enums {
		t.Enums[k] = v
	}
	for k, v := range u.Services {
		t.Services[k] = v
	}
	for k, v := range u.Extensions {
		t.Extensions[k] = v
	}
}

// fromCache returns the cached lowering of names, merged, and the names
// not found (or not decodable) in c. Reading and decoding run on every
// core: they are nearly all the work of a warm load.
func fromCache(c Cache, names []string, keys map[string]cache.Key) (*Tree, []string) {
	got := make([]*Tree, len(names))
	par.Each(len(names), func(i int) {
		if k, ok := keys[names[i]]; ok {
			if b, hit := c.Get(k); hit {
				got[i], _ = decode(b)
			}
		}
	})
	t := newTree()
	var todo []string
	for i, u := range got {
		if u == nil {
			todo = append(todo, names[i])
			continue
		}
		t.merge(u)
	}
	return t, todo
}

// entry is one file's lowering to store under k.
type entry struct {
	k cache.Key
	t *Tree
}

// lowerEach lowers the compiled files into t and returns the lowerings of
// those with a key, to store once the compiler's output is gone. Each file
// lowers into a tree of its own, on every core (lowering only reads the
// compiler's output), and the trees merge in the compiler's order.
func lowerEach(t *Tree, compiled linker.Files, locate func(string) string, keys map[string]cache.Key) []entry {
	trees := make([]*Tree, len(compiled))
	par.Each(len(compiled), func(i int) {
		if compiled[i] != nil {
			trees[i] = lower(compiled[i:i+1], locate)
		}
	})
	var put []entry
	for i, u := range trees {
		if u == nil {
			continue
		}
		t.merge(u)
		if k, ok := keys[compiled[i].Path()]; ok {
			put = append(put, entry{k, u})
		}
	}
	return put
}

// store encodes and writes entries on every core. A failed write only
// loses the entry.
func store(c Cache, put []entry) {
	par.Each(len(put), func(i int) {
		if b, err := encode(put[i].t); err == nil {
			_ = c.Put(put[i].k, b)
		}
	})
}

func encode(t *Tree) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(t)
	return b.Bytes(), err
}

func decode(b []byte) (*Tree, error) {
	t := newTree()
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(t); err != nil {
		return nil, err
	}
	// gob leaves empty maps nil; the lowering leaves them empty.
	for _, f := range t.Files {
		if f.Options == nil {
			f.Options = map[string]string{}
		}
		if f.OptionLoc == nil {
			f.OptionLoc = map[string]rules.Location{}
		}
	}
	return t, nil
}

// modelShape hashes the model's types, field by field: an entry written
// by a build whose Tree had other fields has another key.
func modelShape() [32]byte {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(&b, "%s;", t)
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				fmt.Fprintf(&b, "%s:", f.Name)
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[Tree]())
	return sha256.Sum256([]byte(fmt.Sprintf("lowering %d\n%s", loweringVersion, b.String())))
}

// deepHash is an import name's closure hash; ok is false when it has none
// (an import not found or not read for sure, or a cycle).
type deepHash struct {
	sum     [32]byte
	ok      bool
	visited bool
}

// keys computes the cache key of each listed file that has one, reading
// each file of their closures once (the compile then reuses the bytes).
func (r *resolver) keys(names []string) map[string]cache.Key {
	r.pre, r.deep = map[string][]byte{}, map[string]deepHash{}
	out := make(map[string]cache.Key, len(names))
	shape := modelShape()
	for _, n := range names {
		d := r.closure(n)
		if !d.ok {
			continue
		}
		h := sha256.New()
		h.Write(shape[:])
		rel := r.where[n]
		for _, s := range []string{n, rel, r.show(rel)} {
			writeString(h, s)
		}
		h.Write(d.sum[:])
		out[n] = cache.Key(h.Sum(nil))
	}
	return out
}

// closure hashes name's bytes with its imports' closure hashes, resolving
// names as the compiler's resolver does.
func (r *resolver) closure(name string) deepHash {
	if d, seen := r.deep[name]; seen {
		if d.visited {
			return deepHash{} // a cycle: the compiler reports it
		}
		return d
	}
	r.deep[name] = deepHash{visited: true}
	d := r.hashFile(name)
	r.deep[name] = d
	return d
}

func (r *resolver) hashFile(name string) deepHash {
	h := sha256.New()
	writeString(h, name)
	rel, b, err := r.find(name)
	switch {
	case err != nil && strings.HasPrefix(name, "google/protobuf/"):
		// The compiler's standard import, fixed by the tool's version.
		writeString(h, "standard")
		return deepHash{sum: [32]byte(h.Sum(nil)), ok: true}
	case err != nil:
		return deepHash{}
	}
	imports, _, sure := Scan(b)
	if !sure {
		return deepHash{}
	}
	writeString(h, rel)
	writeBytes(h, b)
	for _, imp := range imports {
		d := r.closure(imp)
		if !d.ok {
			return deepHash{}
		}
		h.Write(d.sum[:])
	}
	return deepHash{sum: [32]byte(h.Sum(nil)), ok: true}
}

// find reads an import name where FindFileByPath would, and keeps the
// bytes for the compile.
func (r *resolver) find(name string) (string, []byte, error) {
	if c, err := source.Clean(name); err != nil || c != name || strings.HasPrefix(name, "/") {
		return "", nil, fmt.Errorf("import %q is not canonical", name)
	}
	var rels []string
	if rel, known := r.where[name]; known {
		rels = []string{rel}
	} else {
		for _, root := range r.roots {
			rels = append(rels, path.Join(root, name))
		}
	}
	for _, rel := range rels {
		b, err := r.src.ReadFile(rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		r.remember(name, rel)
		r.pre[rel] = b
		return rel, b, nil
	}
	return "", nil, fs.ErrNotExist
}

// writeString hashes s with its length, so that no two lists of strings
// hash alike.
func writeString(h io.Writer, s string) { writeBytes(h, []byte(s)) }

func writeBytes(h io.Writer, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}
