package review

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/contractlint/contractlint/internal/fieldnums"
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
// cat-file and parsed in part (see fieldnums.Next); nothing is
// linked.
func (r *Repo) versionUses(base *source.Git, name string, vs []version, po pipeline.Options) [][]fieldnums.Use {
	return r.versionUsesOf(base, name, func(n int) []version { return vs[:min(n, len(vs))] }, po)
}

// versionUsesOf is versionUses of the versions known returns as the log
// lists them, newest first: known(n) waits until n are listed or the log
// has ended, and returns those listed. A core takes the next run of
// versions as soon as they are listed.
func (r *Repo) versionUsesOf(base *source.Git, name string, known func(n int) []version, po pipeline.Options) [][]fieldnums.Use {
	w := &walkRead{commits: &commits{top: r.Top, via: base}, parsed: map[string]symbolsOf{}, po: po}
	defer w.commits.close()
	if base == nil {
		vs := known(math.MaxInt)
		out := make([][]fieldnums.Use, len(vs))
		last := lastRead{}
		for i, v := range vs {
			out[i] = w.ownUses(name, v, nil, nil, last)
		}
		return out
	}
	roots := w.rootsOf(base, nil)
	cats := &blobCats{top: r.Top}
	defer cats.close()
	var mu sync.Mutex
	var runs [][][]fieldnums.Use // by run
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				s := int(next.Add(1) - 1)
				vs := known((s + 1) * segment)
				if s*segment >= len(vs) {
					return
				}
				run := vs[s*segment : min(len(vs), (s+1)*segment)]
				out := w.readRun(name, run, s > 0 || len(run) > 1, base, roots, cats)
				mu.Lock()
				for len(runs) <= s {
					runs = append(runs, nil)
				}
				runs[s] = out
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return slices.Concat(runs...)
}

// readRun reads one run of versions, each from the one before; streamed
// from a cat-file of cats when stream is set, else read one by one.
func (w *walkRead) readRun(name string, run []version, stream bool, base *source.Git, roots *rootsOf, cats *blobCats) [][]fieldnums.Use {
	out := make([][]fieldnums.Use, len(run))
	read := w.commits.blob
	if stream {
		texts := cats.stream(run)
		defer texts.close()
		read = func(string) ([]byte, error) { return texts.next() }
	}
	var prev *fieldnums.File
	var prevText []byte
	var prevUses []fieldnums.Use // prev's, when read against the base tree
	last := lastRead{}
	for i, v := range run {
		text, err := read(v.blob)
		if err != nil {
			continue
		}
		if prevUses != nil && sameTokens(prevText, text) {
			// Only comments or blank lines changed: the same
			// declarations, against the same imports.
			out[i] = prevUses
			continue
		}
		prevUses = nil
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
				out[i], prevUses = uses, uses
				continue
			}
		}
		out[i] = w.ownUses(name, v, f, text, last)
	}
	return out
}

// sameTokens reports whether a and b differ only in lines that hold no
// token (see tokenless): lines of the same tokens, as the lexer reads them,
// in the same order. The whole lines both start with, and those both end
// with, are the same: only the lines between are read.
func sameTokens(a, b []byte) bool {
	head := bytes.LastIndexByte(a[:fieldnums.CommonPrefix(a, b)], '\n') + 1
	a, b = a[head:], b[head:]
	if tail := fieldnums.CommonSuffix(a, b); tail > 0 {
		// The same tail starts at a line start after its first line break.
		if i := bytes.IndexByte(a[len(a)-tail:], '\n'); i >= 0 {
			tail -= i + 1
			a, b = a[:len(a)-tail], b[:len(b)-tail]
		}
	}
	return sameTokenLines(a, b)
}

// sameTokenLines tells whether a and b hold the same lines once those
// without tokens are left out, reading every line. Lines alike on both
// sides are passed over together, whether or not they hold tokens: only
// where the two differ is a line read for its tokens.
func sameTokenLines(a, b []byte) bool {
	for {
		for len(a) > 0 && len(b) > 0 {
			la, ra, _ := bytes.Cut(a, []byte{'\n'})
			lb, rb, _ := bytes.Cut(b, []byte{'\n'})
			if !bytes.Equal(la, lb) {
				break
			}
			a, b = ra, rb
		}
		la, ra, oka := nextTokens(a)
		lb, rb, okb := nextTokens(b)
		if !oka || !okb {
			return oka == okb
		}
		if !bytes.Equal(la, lb) {
			return false
		}
		a, b = ra, rb
	}
}

// nextTokens is the first line of text that is not tokenless, and the
// text after it.
func nextTokens(text []byte) (line, rest []byte, ok bool) {
	for len(text) > 0 {
		line, rest, _ = bytes.Cut(text, []byte{'\n'})
		if !tokenless(line) {
			return line, rest, true
		}
		text = rest
	}
	return nil, nil, false
}

// tokenless reports whether line holds no token wherever it stands: it is
// blank, or a line comment (after the lexer's white space) that neither
// opens nor closes a block comment and holds no NUL, which the lexer
// refuses even in a comment. Outside a block comment it is white space or
// a comment to its end; inside one it is the comment's text, which goes
// on after it. A string cannot span lines, so the line is in no string.
func tokenless(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r\f\v")
	if len(t) > 0 && !bytes.HasPrefix(t, []byte("//")) {
		return false
	}
	return !bytes.Contains(t, []byte("*/")) && !bytes.Contains(t, []byte("/*")) && bytes.IndexByte(t, 0) < 0
}

// walkRead is what the reads of one file's versions share: the reader of
// other commits' files and the symbols of every import read, by content.
type walkRead struct {
	commits *commits
	memo    rootsMemo
	po      pipeline.Options
	mu      sync.Mutex
	parsed  map[string]symbolsOf
}

// lastRead is, per path, the import one run of versions read last, and
// the text it was read from: the next version of it is read from that one
// (see walkRead.parse).
type lastRead map[string]readText

type readText struct {
	f    *fieldnums.File
	text []byte
}

// rootsOf reads src's imports; last, when not nil, is the run's (see
// lastRead).
func (w *walkRead) rootsOf(src source.Source, last lastRead) *rootsOf {
	return &rootsOf{tree: &treeSymbols{src: src, w: w, last: last, got: map[string]symbolsOf{}}, po: w.po, got: map[string]*treeDeps{}}
}

// rootsMemo finds the import roots of the versions read with their own
// commit's imports. Finding them asks the commit whether each buf
// configuration file above the version is there, and reads those that are
// (or, without one, reads the version's import statements and asks whether
// the files they name are there from each directory up): the next commit
// mostly answers alike, and the same answers (the same blob, or the same
// nothing, for every name asked; the same import statements) find the same
// roots.
type rootsMemo struct {
	mu   sync.Mutex
	seen []rootsFound // the latest first
}

// rootsFound is the roots found for a file, with what finding them asked.
type rootsFound struct {
	name  string
	asked []asked
	roots []string
	err   error
}

// asked is a name asked of a commit and what it held there: a blob's or a
// tree's id, or why nothing; for the version itself, its import lines
// (see importLines).
type asked struct{ name, answer string }

// keep is how many files' roots rootsMemo remembers.
const keep = 4

// find is ProtoRoots of name, whose text at src is text, remembered.
func (m *rootsMemo) find(src commitSource, name string, text []byte, po pipeline.Options) ([]string, error) {
	m.mu.Lock()
	seen := slices.Clone(m.seen)
	m.mu.Unlock()
	lines := ""
	if text != nil {
		lines = importLines(text)
	}
	for _, r := range seen {
		if r.name == name && r.holds(src, lines) {
			return r.roots, r.err
		}
	}
	rec := &recording{commitSource: src, self: name, text: text, lines: lines}
	roots, err := pipeline.ProtoRoots(rec, name, po)
	if !rec.failed {
		m.mu.Lock()
		m.seen = slices.Insert(m.seen[:min(len(m.seen), keep-1)], 0, rootsFound{name: name, asked: rec.asked, roots: roots, err: err})
		m.mu.Unlock()
	}
	return roots, err
}

// holds reports whether src, where r's file has the import lines lines
// (see importLines; "" when not known), answers every name r asked as
// r's commit did.
func (r rootsFound) holds(src commitSource, lines string) bool {
	for _, a := range r.asked {
		var got string
		var ok bool
		if a.name == r.name && lines != "" {
			got, ok = lines, true
		} else {
			got, ok = src.answer(a.name)
		}
		if !ok || got != a.answer {
			return false
		}
	}
	return true
}

// importLines is what finding roots reads of a version: protobuf reads
// its imports with a regular expression that starts at a line holding only
// white space before "import", then takes white space, "public" or "weak",
// a quoted name on that line and white space up to ";". Every match, and
// every character the expression looks at to find one, is in the text
// from the start of the line an "import" is on to where the expression
// stops (its ";", or the first character it cannot take): two versions
// alike there have the same imports for it. A hash of those stretches.
func importLines(text []byte) string {
	h := sha256.New()
	for at := 0; ; {
		i := bytes.Index(text[at:], []byte("import"))
		if i < 0 {
			break
		}
		i += at
		from := bytes.LastIndexByte(text[:i], '\n') + 1
		h.Write(text[from:importEnd(text, i+len("import"))])
		h.Write([]byte{0})
		at = i + len("import")
	}
	return fmt.Sprintf("imports %x", h.Sum(nil))
}

// importEnd is where the import expression stops looking, from j (just
// after "import"): past white space and words to a quote, past the quoted
// name to its closing quote or the end of its line, past white space to
// ";"; the first character it cannot take ends it too.
func importEnd(text []byte, j int) int {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	word := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for ; j < len(text) && text[j] != '"'; j++ {
		if !space(text[j]) && !word(text[j]) {
			return j + 1
		}
	}
	if j++; j > len(text) {
		return len(text)
	}
	for ; j < len(text) && text[j] != '"'; j++ {
		if text[j] == '\n' {
			return j + 1
		}
	}
	for j++; j < len(text); j++ {
		if !space(text[j]) {
			return j + 1
		}
	}
	return len(text)
}

// recording is a commit read by ProtoRoots, noting the names it asks; self
// is the version's own name, whose text is known.
type recording struct {
	commitSource
	self   string
	text   []byte
	lines  string // text's import lines
	asked  []asked
	failed bool // a name git could not answer: nothing is remembered
}

func (r *recording) note(name string) {
	if name == r.self && r.text != nil {
		r.asked = append(r.asked, asked{name, r.lines})
		return
	}
	a, ok := r.answer(name)
	r.failed = r.failed || !ok
	r.asked = append(r.asked, asked{name, a})
}

func (r *recording) ReadFile(name string) ([]byte, error) {
	r.note(name)
	if name == r.self && r.text != nil {
		return r.text, nil
	}
	return r.commitSource.ReadFile(name)
}

func (r *recording) Stat(name string) (fs.FileInfo, error) {
	if name == r.self {
		r.failed = true // the version is read, not asked after
	}
	r.note(name)
	return r.commitSource.Stat(name)
}

// ownUses reads a version with the imports of its own commit (f, when
// read already from text, else read from the commit).
func (w *walkRead) ownUses(name string, v version, f *fieldnums.File, text []byte, last lastRead) []fieldnums.Use {
	src := commitSource{c: w.commits, rev: v.commit}
	if f == nil {
		var err error
		if text, err = src.ReadFile(name); err != nil {
			return nil
		}
		if f, err = fieldnums.Parse(name, text); err != nil {
			return nil
		}
	}
	roots := w.rootsOf(src, last)
	roots.find = func(_ source.Source, name string) ([]string, error) { return w.memo.find(src, name, text, w.po) }
	deps, err := roots.of(src, name, f)
	if err != nil {
		return nil
	}
	uses, _ := f.Uses(deps)
	return uses
}

// symbols parses an import's text once, whichever tree it is read from.
// The key is the blob id when known ("" when not), else the text's hash.
func (w *walkRead) symbols(name, key string, read func() ([]byte, error), last lastRead) (*fieldnums.Symbols, error) {
	w.mu.Lock()
	s, ok := w.parsed[key]
	w.mu.Unlock()
	if ok && key != "" {
		return s.s, s.err
	}
	text, err := read()
	if err != nil {
		return nil, err
	}
	if key == "" {
		sum := sha256.Sum256(text)
		key = string(sum[:])
		w.mu.Lock()
		s, ok = w.parsed[key]
		w.mu.Unlock()
		if ok {
			return s.s, s.err
		}
	}
	var f *fieldnums.File
	if f, s.err = last.parse(name, text); s.err == nil {
		s.s = f.Symbols()
	}
	w.mu.Lock()
	w.parsed[key] = s
	w.mu.Unlock()
	return s.s, s.err
}

// parse reads an import's text from the version of it at the same path
// that the run read last, when there is one: the versions of a file that
// commits near each other import differ in a few declarations, which alone
// are parsed (see fieldnums.Next). Without a run (nil), the text is parsed
// whole.
func (last lastRead) parse(name string, text []byte) (*fieldnums.File, error) {
	prev, ok := last[name]
	if !ok {
		f, err := fieldnums.Parse(name, text)
		if err == nil && last != nil {
			last[name] = readText{f: f, text: text}
		}
		return f, err
	}
	f, err := prev.f.Next(name, prev.text, text)
	if err == nil {
		last[name] = readText{f: f, text: text}
	}
	return f, err
}

// rootsOf finds the import roots of the versions of a file: those of the
// tree, which depend on the version's imports only, so they are found
// once per list of imports.
type rootsOf struct {
	tree *treeSymbols
	po   pipeline.Options
	// find finds the roots, pipeline.ProtoRoots when nil.
	find func(src source.Source, name string) ([]string, error)
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
	var roots []string
	var err error
	if r.find != nil {
		roots, err = r.find(src, name)
	} else {
		roots, err = pipeline.ProtoRoots(src, name, r.po)
	}
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
	src  source.Source
	w    *walkRead
	last lastRead
	mu   sync.Mutex
	got  map[string]symbolsOf
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
	var key string
	if c, ok := t.src.(commitSource); ok {
		// Another commit's file: its blob id names its content, so a
		// file many commits hold is read and parsed once.
		key, s.err = c.blobID(name)
	}
	if s.err == nil {
		s.s, s.err = t.w.symbols(name, key, func() ([]byte, error) { return t.src.ReadFile(name) }, t.last)
	}
	t.got[name] = s
	return s.s, s.err
}
