package places

import (
	"bytes"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v4"
)

// Lazy answers Find as Doc does, parsing only the entries a path reaches:
// on a 4 MB document a question about one schema parses that schema, not
// the document (BenchmarkLazy against BenchmarkRead). In block YAML an
// entry of a mapping whose keys sit at indentation k runs from its key's
// line to the next line indented k or less, so the text is cut there,
// level by level, and the entry reached is read by the parser, which must
// find in it the one key the cut expected; places come from that parse.
// When the cut cannot tell (JSON, flow style, a list, several documents, a
// byte order mark, a key it cannot read) or the parser disagrees with it
// (an alias whose anchor is outside the entry, a key that is not what the
// line seemed to say), the whole text is read instead.
//
// What the cut takes on trust is the lines it does not parse: a quoted
// scalar or flow collection opened on a line deeper than an entry's key
// and carried on to a line at or left of that key's indentation, which
// YAML allows, would hide from the cut that the line is text. An entry's
// own value left open on its line is caught (TestLazyHardLayouts); the
// deeper case is not, and TestLazyAgreesWithWhole finds none in the
// testdata or the corpus.
type Lazy struct {
	src []byte
	// lines holds the byte offset where each line starts.
	lines []int
	// cuts caches the entries found under each region cut; parsed the
	// parse of each region read.
	cuts   map[region][]entry
	parsed map[region]*Doc
	whole  *Doc
	read   bool
	// block is set when the cut may read the text (blockText).
	block bool
	// small is the size under which a region is parsed, not cut.
	small int
	// start is the line after a leading document marker (PyYAML's
	// explicit start), 0 without one.
	start int
}

// all is the region of the whole text, after a leading `---`.
func (l *Lazy) all() region { return region{from: l.start, to: len(l.lines), indent: -1} }

// region is lines [from, to) of the text; indent is the indentation of
// the key that heads it (-1 for the whole text).
type region struct{ from, to, indent int }

// entry is one key of a block mapping as the cut reads it: the key as
// written and the lines of its entry.
type entry struct {
	key string
	region
}

// NewLazy prepares src for questions; nothing is parsed yet.
func NewLazy(src []byte) *Lazy {
	l := &Lazy{src: src, lines: lineStarts(src), cuts: map[region][]entry{}, parsed: map[region]*Doc{}, small: smallRegion}
	l.block = l.blockText()
	return l
}

// Find is Doc.Find over the parts of the text path reaches. It returns
// matched 0 and the first line when the text does not parse.
func (l *Lazy) Find(path []string) (Place, int) {
	if !l.block {
		return l.findWhole(path)
	}
	r := l.all()
	cut := 0
	// absent is set when the cut read every key of r's mapping and none
	// was the next segment: a removed element's parent, found without
	// parsing all it holds.
	absent := false
	for cut < len(path) && l.size(r) > l.small {
		next, ok := l.child(r, path[cut])
		if !ok {
			absent = l.entries(r) != nil
			break
		}
		r, cut = next, cut+1
	}
	if cut == 0 {
		return l.findWhole(path)
	}
	if cut == len(path) || absent {
		if p, ok := l.head(r, path[cut-1]); ok {
			return p, cut
		}
	}
	d := l.parse(r)
	if d == nil || len(d.docs) != 1 {
		return l.findWhole(path)
	}
	// The region is the entry of path[cut-1]: one key, the one expected.
	if root := d.docs[0].Content[0]; len(root.Content) != 2 {
		return l.findWhole(path)
	}
	p, m := d.Find(path[cut-1:])
	if m == 0 {
		return l.findWhole(path)
	}
	return l.shift(p, r), cut - 1 + m
}

// head is the place of the entry r when the parser reads key on its
// first line alone: the entry's value lies below it, unread.
func (l *Lazy) head(r region, key string) (Place, bool) {
	d := l.parse(region{from: r.from, to: r.from + 1, indent: r.indent})
	if d == nil || len(d.docs) != 1 || len(d.docs[0].Content[0].Content) != 2 {
		return Place{}, false
	}
	p, m := d.Find([]string{key})
	if m != 1 {
		return Place{}, false
	}
	p = l.shift(p, r)
	p.End = l.offset(r.to)
	return p, true
}

// smallRegion is the size under which a region is parsed rather than cut
// further: below it one parse costs less than the cut's bookkeeping.
const smallRegion = 1 << 10

// size is the length of r in bytes.
func (l *Lazy) size(r region) int { return l.offset(r.to) - l.offset(r.from) }

// offset is where line i (0-based) begins; the text's end past the last.
func (l *Lazy) offset(i int) int {
	if i >= len(l.lines) {
		return len(l.src)
	}
	return l.lines[i]
}

// findWhole is Find through a parse of the whole text.
func (l *Lazy) findWhole(path []string) (Place, int) {
	if !l.read {
		l.read = true
		l.whole, _ = Read(l.src)
	}
	if l.whole == nil {
		return Place{Line: 1, Column: 1, End: len(l.src)}, 0
	}
	return l.whole.Find(path)
}

// blockText tells whether the cut may read the text: one document of
// block YAML, no byte order mark, no directive or document marker.
func (l *Lazy) blockText() bool {
	if bytes.HasPrefix(l.src, bom) {
		return false
	}
	for i := range l.lines {
		line := l.line(i)
		if ind := indentOf(line); ind < len(line) && line[ind] != '#' {
			if c := line[ind]; c == '{' || c == '[' {
				return false // JSON, or a flow document
			}
			break
		}
	}
	for i, at := range l.lines {
		if rest := l.src[at:]; bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) || bytes.HasPrefix(rest, []byte("%")) {
			if l.start == 0 && l.leadingMarker(i) {
				l.start = i + 1
				continue
			}
			return false
		}
	}
	return true
}

// leadingMarker tells whether line i is `---` alone before any content:
// the document's start, which the cut reads past.
func (l *Lazy) leadingMarker(i int) bool {
	if string(bytes.TrimRight(l.line(i), " ")) != "---" {
		return false
	}
	for j := range i {
		if _, empty := l.indentAt(j); !empty {
			return false
		}
	}
	return true
}

// line is line i without its line end.
func (l *Lazy) line(i int) []byte {
	b := l.src[l.lines[i]:l.offset(i+1)]
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// indentAt is the indentation of line i and whether the line holds
// nothing but blanks or a comment.
func (l *Lazy) indentAt(i int) (ind int, empty bool) {
	at := l.lines[i]
	for at+ind < len(l.src) && l.src[at+ind] == ' ' {
		ind++
	}
	if at+ind == len(l.src) {
		return ind, true
	}
	c := l.src[at+ind]
	return ind, c == '\n' || c == '\r' || c == '#'
}

// child is the entry of key under region r, as the cut reads r.
func (l *Lazy) child(r region, key string) (region, bool) {
	for _, e := range l.entries(r) {
		if e.key == key {
			return e.region, true
		}
	}
	return region{}, false
}

// entries cuts r (a key's line and the lines under it) into the entries
// of the block mapping under its key: each line indented as the first
// line under it begins one. It returns nil when what is under the key is
// not a block mapping the cut can read: the key's line holds a value (a
// scalar, a flow collection, a block scalar's header), a line is a list
// item, a merge key (whose keys sit elsewhere) or a key the cut cannot
// read, or an entry's value opens a quote or a flow collection its line
// does not close (the parser would read on into the lines below, whatever
// their indentation).
func (l *Lazy) entries(r region) []entry {
	if es, ok := l.cuts[r]; ok {
		return es
	}
	es := l.cut(r)
	l.cuts[r] = es
	return es
}

// cut is entries without the cache.
func (l *Lazy) cut(r region) []entry {
	first := r.from
	if r.indent >= 0 {
		if _, value, ok := blockKey(l.line(r.from)[r.indent:]); !ok || len(value) > 0 {
			return nil
		}
		first++
	}
	var es []entry
	k := -1
	// explicit is set after a `? key` line, whose `: value` line comes next
	// at the same indentation (YAML emitters write a key longer than 128
	// characters so: Adyen's example names, Twilio's schema names).
	explicit := false
	for i := first; i < r.to; i++ {
		ind, empty := l.indentAt(i)
		if empty {
			continue
		}
		if k < 0 {
			k = ind
		}
		body := l.line(i)[ind:]
		if ind > k || ind == k && len(es) > 0 && (indentless(body) || explicit && valueLine(body)) {
			// deeper, an item of a list written at its key's indentation,
			// or the value of the explicit key above
			explicit = false
			continue
		}
		key, value, ok := blockKey(body)
		if explicit = !ok && ind == k; explicit {
			key, ok = explicitKey(body)
		}
		if ind < k || ind <= r.indent || !ok || !closed(value) || key == "<<" {
			return nil
		}
		if n := len(es); n > 0 {
			es[n-1].to = i
		}
		es = append(es, entry{key: key, region: region{from: i, to: r.to, indent: ind}})
	}
	return es
}

// blockKey reads a block mapping line ("key: value", "key:"): its key,
// plain or quoted without escapes, and its value with any comment and
// blanks trimmed. ok is false for anything else: a list item, a complex
// key, an escaped key, a line that is no key.
func blockKey(body []byte) (key string, value []byte, ok bool) {
	var rest []byte
	switch body[0] {
	case '-', '?', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`':
		return "", nil, false
	case '"', '\'':
		end := bytes.IndexByte(body[1:], body[0])
		if end < 0 || bytes.IndexByte(body[1:end+1], '\\') >= 0 {
			return "", nil, false
		}
		key, rest = string(body[1:end+1]), body[end+2:]
		if !bytes.HasPrefix(rest, []byte(":")) {
			return "", nil, false
		}
		rest = rest[1:]
	default:
		i := bytes.Index(body, []byte(": "))
		if i < 0 {
			if !bytes.HasSuffix(body, []byte(":")) {
				return "", nil, false
			}
			i = len(body) - 1
		}
		if bytes.Contains(body[:i], []byte(" #")) {
			return "", nil, false
		}
		key, rest = string(bytes.TrimRight(body[:i], " \t")), body[i+1:]
		if key == "" {
			return "", nil, false // `: value`, an explicit key's value
		}
	}
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return "", nil, false
	}
	rest = bytes.TrimSpace(rest)
	if bytes.HasPrefix(rest, []byte("#")) {
		rest = nil
	}
	return key, rest, true
}

// closed tells whether a value that begins a quoted scalar or a flow
// collection ends it on its line. It errs towards false (a closing quote
// followed by a comment), which only costs a larger parse.
func closed(value []byte) bool {
	if len(value) == 0 {
		return true
	}
	closer := value[0]
	switch closer {
	case '[':
		closer = ']'
	case '{':
		closer = '}'
	case '"', '\'':
	default:
		return true
	}
	return len(value) > 1 && value[len(value)-1] == closer
}

// explicitKey reads `? key` alone on its line: a plain key, or one quoted
// without escapes.
func explicitKey(body []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(body, []byte("? "))
	if !ok {
		return "", false
	}
	rest = bytes.TrimSpace(rest)
	key, value, ok := blockKey(append(append([]byte(nil), rest...), ':'))
	if !ok || len(value) > 0 || len(rest) == 0 || bytes.ContainsAny(rest[:1], "?:-[]{}&*!|>%@`#,") {
		return "", false
	}
	return key, true
}

// valueLine tells whether a line is the `: value` line of an explicit key.
func valueLine(body []byte) bool {
	return len(body) > 0 && body[0] == ':' && (len(body) == 1 || body[1] == ' ')
}

// indentless tells whether a line at an entry's indentation is an item of
// a list (`- x`, `-` alone), which YAML lets the key above hold.
func indentless(body []byte) bool {
	return len(body) > 0 && body[0] == '-' && (len(body) == 1 || body[1] == ' ')
}

// indentOf counts the spaces a line begins with.
func indentOf(line []byte) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

// parse reads region r with the parser, nil when it does not parse. The
// region keeps its indentation, which YAML allows of a document's root.
func (l *Lazy) parse(r region) *Doc {
	if d, ok := l.parsed[r]; ok {
		return d
	}
	d, err := Read(l.src[l.offset(r.from):l.offset(r.to)])
	if err != nil {
		d = nil
	}
	l.parsed[r] = d
	return d
}

// shift turns a place in region r's parse into one in the whole text.
func (l *Lazy) shift(p Place, r region) Place {
	at := l.offset(r.from)
	return Place{Line: p.Line + r.from, Column: p.Column, Start: p.Start + at, End: p.End + at}
}

// Entry is the parse of the smallest entry the cut finds around line
// (1-based), for a question about one line of a large text: the keys that
// lead to it from the document's root (its own key last), the mapping
// node the parse of the entry gives (its one key the entry's), and the
// lines before the entry, to add to the node's lines. ok is false when
// the cut cannot tell (see Lazy) or the parser disagrees with it: the
// caller reads the whole text then.
func (l *Lazy) Entry(line int) (keys []string, root *yaml.Node, before int, ok bool) {
	if !l.block {
		return nil, nil, 0, false
	}
	r := l.all()
	for l.size(r) > l.small {
		next, found := region{}, ""
		for _, e := range l.entries(r) {
			if e.from <= line-1 && line-1 < e.to {
				next, found = e.region, e.key
				break
			}
		}
		if found == "" {
			break
		}
		keys, r = append(keys, found), next
	}
	if len(keys) == 0 {
		return nil, nil, 0, false
	}
	d := l.parse(r)
	if d == nil || len(d.docs) != 1 || len(d.docs[0].Content) != 1 {
		return nil, nil, 0, false
	}
	root = d.docs[0].Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != keys[len(keys)-1] {
		return nil, nil, 0, false
	}
	return keys, root, r.from, true
}

// Span is one entry of a block mapping as the cut reads it, before any
// parse: the key as written and its lines [From, To), 0-based, the
// blank and comment lines after it included.
type Span struct {
	Key      string
	From, To int
}

// Outline is the entries of the block mapping path leads to, as the cut
// reads them (see Lazy), parsing nothing: the caller confirms each span
// with ReadEntry, and trusts the outline only when every span of the text
// it relies on parses so. ok is false when the text is not block YAML the
// cut can read down to path.
func (l *Lazy) Outline(path []string) (spans []Span, ok bool) {
	if !l.block {
		return nil, false
	}
	r := l.all()
	for _, key := range path {
		if r, ok = l.child(r, key); !ok {
			return nil, false
		}
	}
	es := l.entries(r)
	if es == nil {
		return nil, false
	}
	spans = make([]Span, len(es))
	for i, e := range es {
		spans[i] = Span{Key: e.key, From: e.from, To: e.to}
	}
	return spans, true
}

// Text is the text of span s, its lines as they stand in the document.
func (l *Lazy) Text(s Span) []byte { return l.src[l.offset(s.From):l.offset(s.To)] }

// ReadEntry parses text, one entry of a block mapping cut from its
// document (indented as it was there), and returns its value: the text
// must parse as one document holding a mapping of one key, key.
func ReadEntry(text []byte, key string) (*yaml.Node, error) {
	d, err := Read(text)
	switch {
	case err != nil:
		return nil, err
	case len(d.docs) != 1:
		return nil, errors.New("not one document")
	}
	root := d.docs[0].Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) != 2 || root.Content[0].Value != key {
		return nil, fmt.Errorf("not the one entry %q", key)
	}
	return root.Content[1], nil
}
