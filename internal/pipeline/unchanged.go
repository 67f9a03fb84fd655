package pipeline

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/protobuf"
)

// What did not change is not compiled, lowered or diffed: a file whose
// bytes are identical on both sides, and whose imports (transitively) are
// identical too, cannot be the source of a change, nor be reached by one
// through a type it uses. Only the files left compile, with whatever they
// import, so the work grows with the change rather than with the tree.
//
// The scan that decides this reads each file's bytes and the import
// statements in them, never the compiler: it costs a read of both trees,
// where a compile costs many times that.

// protoPlan is what a proto comparison compiles on each side.
type protoPlan struct {
	old, new []string // root-relative files to compile
	// same maps the import name of each file left out (present and
	// identical on both sides) to the package it declares, so the diff still
	// knows which packages exist.
	same map[string]string
}

// planProto splits the files of two proto sides into those to compile and
// those left out as unchanged. ok is false when the split does not apply:
// consumer evidence is matched against the whole contract, and a file
// outside every import root is left for the compiler to report. Options.Whole
// turns the split off.
func planProto(old, new Side, oldRoots, newRoots []string, o Options) (p protoPlan, ok bool) {
	if o.Readers != nil || o.Whole {
		return p, false
	}
	oldNames, inOld, ok1 := importNames(old.Files, oldRoots)
	newNames, _, ok2 := importNames(new.Files, newRoots)
	if !ok1 || !ok2 {
		return p, false
	}
	t := &twin{old: lookup{old.Src, oldRoots}, new: lookup{new.Src, newRoots},
		state: map[string]cleanState{}, scans: map[string]fileScan{}}
	var both []string
	for _, f := range new.Files {
		if n := newNames[f]; inOld[n] {
			both = append(both, n)
		}
	}
	t.prefetch(both)
	p.same = map[string]string{}
	for _, f := range new.Files {
		n := newNames[f]
		if inOld[n] && t.clean(n) {
			p.same[n] = t.scans[n].pkg
			continue
		}
		p.new = append(p.new, f)
	}
	for _, f := range old.Files {
		if _, skip := p.same[oldNames[f]]; !skip {
			p.old = append(p.old, f)
		}
	}
	return p, true
}

// importNames maps each root-relative file to its import name: its path
// below the first import root that holds it, as the compiler names it. ok
// is false when a file lies outside every root or two files share a name.
func importNames(files, roots []string) (names map[string]string, listed map[string]bool, ok bool) {
	names = make(map[string]string, len(files))
	listed = make(map[string]bool, len(files))
	for _, f := range files {
		n, ok := importName(f, roots)
		if !ok || listed[n] {
			return nil, nil, false
		}
		names[f], listed[n] = n, true
	}
	return names, listed, true
}

func importName(f string, roots []string) (string, bool) {
	for _, root := range roots {
		root = path.Clean(root)
		if root == "." {
			return f, true
		}
		if rest, ok := strings.CutPrefix(f, root+"/"); ok {
			return rest, true
		}
	}
	return "", false
}

type cleanState byte

const (
	unknown cleanState = iota
	visiting
	clean
	dirty
)

// twin resolves import names on both sides at once and remembers which
// are clean: identical on both sides with everything they import.
type twin struct {
	old, new lookup
	state    map[string]cleanState
	scans    map[string]fileScan
}

// fileScan is what the scan learns of one import name.
type fileScan struct {
	// same: present on both sides and byte-identical, or a standard import
	// absent from both.
	same    bool
	imports []string
	pkg     string
}

// lookup resolves an import name on one side against its import roots, in
// order, as the compiler does.
type lookup struct {
	src interface {
		ReadFile(string) ([]byte, error)
	}
	roots []string
}

func (l lookup) find(name string) ([]byte, error) {
	for _, root := range l.roots {
		b, err := l.src.ReadFile(path.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return b, err
	}
	return nil, fs.ErrNotExist
}

// clean reports whether name is identical on both sides, imports included.
// An import cycle counts as changed: the compiler reports it.
func (t *twin) clean(name string) bool {
	switch t.state[name] {
	case clean:
		return true
	case visiting, dirty:
		return false
	}
	t.state[name] = visiting
	ok := t.same(name)
	t.state[name] = dirty
	if ok {
		t.state[name] = clean
	}
	return ok
}

func (t *twin) same(name string) bool {
	s, ok := t.scans[name]
	if !ok {
		s = t.scan(name)
		t.scans[name] = s
	}
	if !s.same {
		return false
	}
	for _, imp := range s.imports {
		if !t.clean(imp) {
			return false
		}
	}
	return true
}

// prefetch scans names on every core: reading and comparing the files is
// nearly all of the scan's work, and each name's scan stands alone.
func (t *twin) prefetch(names []string) {
	out := make([]fileScan, len(names))
	par.Each(len(names), func(i int) { out[i] = t.scan(names[i]) })
	for i, n := range names {
		t.scans[n] = out[i]
	}
}

// scan reads name on both sides and, when the bytes are the same, the
// imports and package they declare.
func (t *twin) scan(name string) fileScan {
	ob, oerr := t.old.find(name)
	nb, nerr := t.new.find(name)
	if errors.Is(oerr, fs.ErrNotExist) && errors.Is(nerr, fs.ErrNotExist) {
		// Absent on both sides: a standard import is the compiler's own and
		// the same for both; anything else is an error the compiler reports.
		return fileScan{same: strings.HasPrefix(name, "google/protobuf/")}
	}
	if oerr != nil || nerr != nil || !bytes.Equal(ob, nb) {
		return fileScan{}
	}
	imports, pkg, ok := protobuf.Scan(nb)
	if !ok {
		// An import the scan cannot read for sure: only the compiler can
		// say what the file depends on, so it is compiled.
		return fileScan{}
	}
	return fileScan{same: true, imports: imports, pkg: pkg}
}

// sameOpenAPI reports whether two OpenAPI documents are byte-identical, and
// so is every file they $ref, transitively (each side resolving against
// its own document's directory).
func sameOpenAPI(old, new Side) bool {
	seen := map[[2]string]bool{}
	var same func(o, n string) bool
	same = func(o, n string) bool {
		if seen[[2]string{o, n}] {
			return true
		}
		seen[[2]string{o, n}] = true
		// Sizes first: a changed document is then not read twice.
		oi, oerr := old.Src.Stat(o)
		ni, nerr := new.Src.Stat(n)
		if oerr != nil || nerr != nil || oi.Size() != ni.Size() {
			return false
		}
		ob, err := old.Src.ReadFile(o)
		if err != nil {
			return false
		}
		nb, err := new.Src.ReadFile(n)
		if err != nil || !bytes.Equal(ob, nb) {
			return false
		}
		refs, ok := externalRefs(nb)
		if !ok {
			return false
		}
		for _, r := range refs {
			if !same(path.Join(path.Dir(o), r), path.Join(path.Dir(n), r)) {
				return false
			}
		}
		return true
	}
	return same(firstName(old), firstName(new))
}

// externalRefs lists the files a YAML or JSON document's $refs name (the
// part before any #fragment), skipping refs within the document. ok is
// false when the scan cannot be sure: a $ref it cannot read, or one to a
// URL or an absolute path, which only a real load judges.
func externalRefs(b []byte) (files []string, ok bool) {
	refs, ok := refValues(b)
	if !ok {
		return nil, false
	}
	for _, v := range refs {
		file, _, _ := strings.Cut(v, "#")
		switch {
		case file == "":
			continue
		case strings.Contains(file, ":") || strings.HasPrefix(file, "/"):
			return nil, false
		}
		files = append(files, file)
	}
	return files, true
}

// refValues lists the value of every $ref in a YAML or JSON document, as
// written; ok is false when one cannot be read.
func refValues(b []byte) (refs []string, ok bool) {
	es, ok := refEntries(b)
	for _, e := range es {
		refs = append(refs, e.value)
	}
	return refs, ok
}

// refEntry is one $ref as written, whether it sits in a YAML comment, and
// the offset of its key.
type refEntry struct {
	value     string
	commented bool
	at        int
}

// refEntries lists every $ref in a YAML or JSON document; ok is false when
// one cannot be read.
func refEntries(b []byte) (refs []refEntry, ok bool) {
	const key = "$ref"
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(key))
		if i < 0 {
			return refs, true
		}
		at := off + i
		v, after, found := refValue(b[at+len(key):])
		if !found && namesProperty(b, at+len(key)) {
			off = at + len(key)
			continue
		}
		if !found {
			return nil, false
		}
		off = len(b) - len(after)
		refs = append(refs, refEntry{value: v, commented: inComment(b, at), at: at})
	}
}

// namesProperty tells whether the `$ref` key ending at b[end:] names a
// property (Okta's spec has one): a colon ends its line, and the next line
// that is not blank is a mapping's key, deeper than the $ref's own line. A
// $ref's value is text; its key over a mapping is no reference.
func namesProperty(b []byte, end int) bool {
	start := bytes.LastIndexByte(b[:end], '\n') + 1
	rest, _, _ := bytes.Cut(b[end:], []byte("\n"))
	if string(bytes.TrimRight(rest, " \t\r")) != ":" {
		return false
	}
	indent := len(b[start:end]) - len(bytes.TrimLeft(b[start:end], " "))
	for next := b[min(len(b), end+len(rest)+1):]; len(next) > 0; {
		line, tail, _ := bytes.Cut(next, []byte("\n"))
		text := bytes.TrimLeft(line, " ")
		if len(bytes.TrimSpace(text)) == 0 {
			next = tail
			continue
		}
		return len(line)-len(text) > indent && text[0] != '-' && text[0] != '#' &&
			(bytes.Contains(text, []byte(": ")) || bytes.HasSuffix(bytes.TrimRight(text, " \t\r"), []byte(":")))
	}
	return false
}

// inComment reports whether offset i of b is in a YAML comment: after a #
// that starts its line or follows a blank, with no quote before it on the
// line (a # in a string, JSON's included, starts no comment).
func inComment(b []byte, i int) bool {
	line := b[bytes.LastIndexByte(b[:i], '\n')+1 : i]
	for j, c := range line {
		switch {
		case c == '"' || c == '\'':
			return false
		case c == '#' && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t'):
			return true
		}
	}
	return false
}

// refValue reads `": "value"` (JSON) or `: value`, `: 'value'` or a block
// scalar (YAML) after a $ref key.
func refValue(b []byte) (v string, rest []byte, ok bool) {
	b = bytes.TrimLeft(b, `"'`)
	b = bytes.TrimLeft(b, " \t")
	if len(b) == 0 || b[0] != ':' {
		return "", nil, false
	}
	b = bytes.TrimLeft(b[1:], " \t")
	if len(b) > 0 && (b[0] == '>' || b[0] == '|') {
		// A YAML block scalar: the value is on the next line.
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return "", nil, false
		}
		b = bytes.TrimLeft(b[nl+1:], " \t")
	}
	quote := byte(0)
	if len(b) > 0 && (b[0] == '"' || b[0] == '\'') {
		quote, b = b[0], b[1:]
	}
	// A plain value ends a flow collection's entry at `,`, `}` or `]`, but
	// a brace it opened itself is its own (paths/v1_{id}.yaml in block style).
	depth := 0
	end := bytes.IndexFunc(b, func(r rune) bool {
		if quote != 0 {
			return r == rune(quote) || r == '\n'
		}
		switch r {
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
		case ',':
			return depth == 0
		}
		return r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
	if end < 0 {
		end = len(b)
	}
	if end == 0 {
		return "", nil, false
	}
	return string(b[:end]), b[end:], true
}
