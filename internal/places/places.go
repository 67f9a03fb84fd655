// Package places reads a YAML or JSON text with a real parser (JSON is
// YAML's flow style) and tells where its nodes sit: line, column and byte
// range, by the path of keys and indexes that leads to them. It reads every
// layout the same way: block and flow YAML, anchors, aliases and merge keys,
// several documents, a byte order mark, CRLF line ends, pretty and minified
// JSON.
//
// Read builds the whole node tree: on a 4 MB document that is 10–20 times
// the limits' pre-parse scan (internal/limits BenchmarkScanCorpus), which
// bounds what a parser may build before any runs, so the limits keep their
// own reader. Lazy answers the same questions parsing only the entries a
// path reaches (BenchmarkLazy); the editor places findings through it, and
// the diff's plan outlines a document with it (Outline, ReadEntry).
package places

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// Doc is one text read: the node tree of each of its documents.
type Doc struct {
	src  []byte
	docs []*yaml.Node
	// lines holds the byte offset where each line starts, made on the
	// first place asked for.
	lines []int
}

// Place is where a node sits. Line and Column are 1-based, the column
// counted in characters as the parser counts it. Start and End are the
// node's entry in bytes: from its key (the node itself for a list item or a
// document) to where the next entry of its parent begins, so a separator
// and comments after it belong to it. The parser does not say where a node
// ends: the last entry of a mapping or list ends where its parent does,
// its parent's closing brackets included.
type Place struct {
	Line, Column int
	Start, End   int
}

// Read parses src, every document of it. The parser refuses nesting deeper
// than 10,000 levels itself, and an alias is a reference in the tree, not a
// copy: the tree grows with the text, whatever its aliases expand to.
func Read(src []byte) (*Doc, error) {
	l, err := yaml.NewLoader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	d := &Doc{src: src}
	for {
		var n yaml.Node
		err := l.Load(&n)
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		if !empty(&n) {
			d.docs = append(d.docs, &n)
		}
	}
}

// empty tells whether a document holds nothing ("---" alone, or a
// comment), which a decoder reads as null.
func empty(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	n := doc.Content[0]
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" && n.Anchor == ""
}

// Documents counts the documents read (an empty one does not count).
func (d *Doc) Documents() int { return len(d.docs) }

// Root is the root node of the first document, nil when there is none.
func (d *Doc) Root() *yaml.Node {
	if len(d.docs) == 0 {
		return nil
	}
	return d.docs[0].Content[0]
}

// DocumentLine is the line where document i (0-based) begins.
func (d *Doc) DocumentLine(i int) int { return d.docs[i].Content[0].Line }

// Find walks path (mapping keys, or list indexes in decimal) from the root
// of the first document and returns the place of the deepest element it
// reached and how many of path's segments that took; matched is 0, and the
// place the document's, when not even the first segment is there. A key a
// merge key (<<) brings in is found where its anchor wrote it; an alias is
// followed to its anchor.
func (d *Doc) Find(path []string) (p Place, matched int) {
	_, p, matched = d.walk(path)
	return p, matched
}

// Entry is one key of a mapping and where its entry sits.
type Entry struct {
	Key string
	Place
}

// Entries lists the keys of the mapping at path, in the text's order (the
// keys a merge key brings in after those written), or nil when path does
// not lead to a mapping.
func (d *Doc) Entries(path []string) []Entry {
	n, p, matched := d.walk(path)
	if matched < len(path) || n == nil {
		return nil
	}
	var out []Entry
	d.eachEntry(resolve(n), p, func(k, _ *yaml.Node, place Place) bool {
		out = append(out, Entry{Key: k.Value, Place: place})
		return true
	})
	return out
}

// walk is Find that also returns the node reached (nil in an empty text).
func (d *Doc) walk(path []string) (n *yaml.Node, p Place, matched int) {
	if len(d.docs) == 0 {
		return nil, Place{Line: 1, Column: 1, End: len(d.src)}, 0
	}
	n, p = d.docs[0].Content[0], d.docPlace(0)
	for _, seg := range path {
		next, place, ok := d.child(n, p, seg)
		if !ok {
			break
		}
		n, p, matched = next, place, matched+1
	}
	return n, p, matched
}

// docPlace is the place of document i: its first node to the next
// document's.
func (d *Doc) docPlace(i int) Place {
	n := d.docs[i].Content[0]
	end := len(d.src)
	if i+1 < len(d.docs) {
		end = d.offset(d.docs[i+1].Content[0])
	}
	return Place{Line: n.Line, Column: n.Column, Start: d.offset(n), End: end}
}

// child is the element seg of n, whose entry is at parent.
func (d *Doc) child(n *yaml.Node, parent Place, seg string) (*yaml.Node, Place, bool) {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		var val *yaml.Node
		var at Place
		d.eachEntry(n, parent, func(k, v *yaml.Node, place Place) bool {
			if k.Value != seg {
				return true
			}
			val, at = v, place
			return false
		})
		return val, at, val != nil
	case yaml.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, Place{}, false
		}
		item := n.Content[i]
		end := parent.End
		if i+1 < len(n.Content) {
			end = d.offset(n.Content[i+1])
		}
		return item, Place{Line: item.Line, Column: item.Column, Start: d.offset(item), End: end}, true
	}
	return nil, Place{}, false
}

// eachEntry calls f with each key of mapping n and its entry's place, the
// keys written first and then those merge keys bring in (at their
// anchor's text), until f returns false. It returns false once f has.
func (d *Doc) eachEntry(n *yaml.Node, parent Place, f func(k, v *yaml.Node, p Place) bool) bool {
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merged = append(merged, n.Content[i+1])
			continue
		}
		end := parent.End
		if i+2 < len(n.Content) {
			end = d.offset(n.Content[i+2])
		}
		if !f(k, n.Content[i+1], Place{Line: k.Line, Column: k.Column, Start: d.offset(k), End: end}) {
			return false
		}
	}
	for _, m := range merged {
		m = resolve(m)
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, s := range sources {
			s = resolve(s)
			if s.Kind == yaml.MappingNode && !d.eachEntry(s, d.span(s), f) {
				return false
			}
		}
	}
	return true
}

// span is the place of a mapping reached through a merge key: from its
// first key to just past its last node's first character, since the tree
// does not say where a node ends. Its entries but the last are exact.
func (d *Doc) span(m *yaml.Node) Place {
	start := d.offset(m)
	end := start
	if len(m.Content) > 0 {
		end = d.offset(m.Content[len(m.Content)-1]) + 1
	}
	return Place{Line: m.Line, Column: m.Column, Start: start, End: end}
}

// resolve follows an alias to its anchor.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// offset is the byte offset of n's first character.
func (d *Doc) offset(n *yaml.Node) int {
	if d.lines == nil {
		d.lines = lineStarts(d.src)
	}
	if n.Line < 1 || n.Line > len(d.lines) {
		return len(d.src)
	}
	at := d.lines[n.Line-1]
	if n.Line == 1 && bytes.HasPrefix(d.src, bom) {
		at += len(bom)
	}
	// The column counts characters: walk them, mostly one byte each.
	for c := 1; c < n.Column && at < len(d.src); c++ {
		_, size := utf8.DecodeRune(d.src[at:])
		at += size
	}
	return at
}

var bom = []byte("\xef\xbb\xbf")

// lineStarts is where each line of src begins: after each LF, so a CRLF
// line's CR stays at its end.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte("\n"))+1)
	for at := 0; ; {
		i := bytes.IndexByte(src[at:], '\n')
		if i < 0 {
			return starts
		}
		at += i + 1
		starts = append(starts, at)
	}
}
