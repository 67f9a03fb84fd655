package limits

import (
	"bytes"
	"math"
)

// DeepLine scans YAML or JSON text and returns the 1-based line where its
// nesting first goes deeper than max, or 0 when it never does.
//
// It runs before any parser sees the bytes, in one pass and constant memory,
// so a document nested thousands of levels is refused before a recursive
// parser, resolver or diff can spend seconds and gigabytes on it. Depth is
// counted as YAML sees it: every open block mapping or sequence (by
// indentation) plus every open flow [ or { (JSON is flow YAML). The count is
// an upper bound within one level per line on odd layouts (a plain scalar
// continued on deeper lines), never lower than the parsed depth.
func DeepLine(b []byte, max int) int {
	return Scan(b, max, math.MaxInt).DeepLine
}

// Shape is what one pass over YAML or JSON text finds before any parser
// sees it.
type Shape struct {
	// DeepLine is the line where nesting first passes the limit, else 0;
	// the scan stops there.
	DeepLine int
	// Elements counts every key of a mapping and every item of a list,
	// block or flow, before any alias is expanded: what a parser will
	// build, give or take the scalars themselves.
	Elements int
	// SecondDocument is the line of a "---" or "..." marker that follows
	// content and is followed by more: the start of a second document,
	// which the OpenAPI loader would silently ignore. 0 when there is none.
	SecondDocument int
	// WideLine is the line where one mapping first holds more than the
	// keys limit, else 0; the scan stops there.
	WideLine int
	// Counts are the operations and schemas found, and in Properties the
	// keys of the widest properties mapping (the other kinds are .proto's).
	Counts Counts
	// PropsLine is the line of the last key of that widest mapping.
	PropsLine int
	// Anchors is set when an anchor (&name) may begin a node: outside
	// quoted and block scalars and comments, at the start of a node or
	// after a blank (or, in a flow collection, after its punctuation). An
	// "&lt;" in a description, or "?&" in a pattern, is none, so such a
	// document is not parsed to count what its aliases expand to.
	Anchors bool
}

// Scan is DeepLine that also counts elements, finds a second document and
// stops at a mapping with more than maxKeys keys (the YAML library under
// kin-openapi compares every pair of a mapping's keys).
func Scan(b []byte, maxDepth, maxKeys int) Shape {
	s := scanner{max: maxDepth, maxKeys: maxKeys, scalarIndent: -1}
	for line := 1; len(b) > 0; line++ {
		l := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if s.line(l, line) {
			sh := Shape{Elements: s.elements, SecondDocument: s.second, WideLine: line, Counts: s.counts, PropsLine: s.propsLine, Anchors: s.anchors}
			if !s.wide {
				sh.DeepLine, sh.WideLine = line, 0
			}
			return sh
		}
	}
	return Shape{Elements: s.elements, SecondDocument: s.second, Counts: s.counts, PropsLine: s.propsLine, Anchors: s.anchors}
}

type scanner struct {
	max int
	// blocks holds the indentation of every open block collection.
	blocks []int
	// flow counts open [ and {; quote is the quote of an open scalar.
	flow  int
	quote byte
	// scalarIndent is the indentation of the line that opened a block
	// scalar (| or >) while its content lines are skipped, else -1.
	scalarIndent int
	// elements counts keys and list items seen so far.
	elements int
	// marker is the line of a document marker after content, pending
	// content after it; second is set once that content comes.
	marker, second int
	// keys holds, beside each open block, how many keys its mapping has
	// had so far (0 for an item); flowKeys the same for each open flow
	// collection (-1 for a list). wide is set when one passes maxKeys.
	keys     []int
	flowKeys []int
	maxKeys  int
	wide     bool
	// names holds, beside each open block, its key ("-" for an item);
	// flowNames the key being read in each open flow mapping. Both slice
	// the text, so keeping them costs no copy. keyDone is set once the
	// innermost flow mapping's entry has passed its key's colon.
	names     [][]byte
	flowNames [][]byte
	keyDone   bool
	path      [][]byte
	counts    Counts
	propsLine int
	num       int
	anchors   bool
}

var dash = []byte("-")

// key counts a mapping key of a limited kind: path is the keys on the way
// to it, keys how many its mapping holds so far.
func (s *scanner) key(path [][]byte, name []byte, keys int) {
	k, ok := openapiKind(path, name)
	switch {
	case !ok:
	case k == Properties:
		if keys > s.counts[Properties] {
			s.counts[Properties], s.propsLine = keys, s.num
		}
	default:
		s.counts[k]++
	}
}

// line scans line number num and reports whether the nesting went past max
// or a mapping past maxKeys (then wide is set).
func (s *scanner) line(l []byte, num int) bool {
	s.num = num
	ind := 0
	for ind < len(l) && (l[ind] == ' ' || l[ind] == '\t') {
		ind++
	}
	rest := bytes.TrimRight(l[ind:], " \t\r")
	if s.scalarIndent >= 0 {
		if len(rest) == 0 || ind > s.scalarIndent {
			return false
		}
		s.scalarIndent = -1
	}
	if s.quote != 0 || s.flow > 0 {
		return s.scan(rest, 0)
	}
	if len(rest) == 0 || rest[0] == '#' {
		return false
	}
	if ind == 0 && (bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) || rest[0] == '%') {
		s.blocks, s.keys, s.names = s.blocks[:0], s.keys[:0], s.names[:0] // a new document
		if s.elements > 0 && s.marker == 0 {
			s.marker = num
		}
		if len(bytes.TrimSpace(bytes.TrimLeft(rest, "-."))) == 0 || rest[0] == '%' {
			return false
		}
		rest = bytes.TrimSpace(rest[3:]) // "--- value": the document's content begins on the marker's line
	}
	if s.marker > 0 && s.second == 0 {
		s.second = s.marker
	}
	// A key at the indentation of the block it closes is that key's
	// sibling: its mapping's count carries over.
	siblings := 0
	for len(s.blocks) > 0 && s.blocks[len(s.blocks)-1] >= ind {
		last := len(s.blocks) - 1
		if s.blocks[last] == ind {
			siblings = s.keys[last]
		}
		s.blocks, s.keys, s.names = s.blocks[:last], s.keys[:last], s.names[:last]
	}
	col := ind
	// "- - key: v" opens a sequence per dash, then the item's own node.
	for len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t') {
		s.blocks, s.keys, s.names = append(s.blocks, col), append(s.keys, 0), append(s.names, dash)
		siblings = 0 // a key after a dash starts the item's own mapping
		s.elements++
		n := 1
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
			n++
		}
		rest, col = rest[n:], col+n
	}
	// A key (or scalar) opens a block node; a flow collection counts itself.
	if len(rest) > 0 && rest[0] != '#' && rest[0] != '[' && rest[0] != '{' {
		keys := 0
		var name []byte
		if isKey(rest) {
			s.elements++ // an item's scalar was counted with its dash
			keys = siblings + 1
			name = blockKey(rest)
			s.key(s.names, name, keys)
		}
		s.blocks, s.keys, s.names = append(s.blocks, col), append(s.keys, keys), append(s.names, name)
		if keys > s.maxKeys {
			s.wide = true
			return true
		}
	}
	if len(s.blocks) > s.max {
		return true
	}
	if blockScalar(rest) {
		s.scalarIndent = ind
		return false
	}
	return s.scan(rest, 0)
}

// scan follows quotes and flow collections through the rest of a line.
func (s *scanner) scan(rest []byte, prev byte) bool {
	keyStart := 0    // where the flow entry being read began on this line
	plain := noPlain // in a plain scalar, where & is text
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		if s.quote == 0 && c != ' ' && c != '\t' {
			plain = plainAt(plain, rest, j, prev, s.flow > 0)
		}
		switch {
		case s.quote == '"':
			if c == '\\' {
				j++
			} else if c == '"' {
				s.quote = 0
			}
			continue
		case s.quote == '\'':
			if c == '\'' {
				if j+1 < len(rest) && rest[j+1] == '\'' {
					j++
				} else {
					s.quote = 0
				}
			}
			continue
		case c == '#' && (j == 0 || rest[j-1] == ' ' || rest[j-1] == '\t'):
			return false
		case c == ' ' || c == '\t':
			continue
		case c == '&' && plain == noPlain && anchorAt(rest, j, s.flow > 0):
			s.anchors = true
		case (c == '"' || c == '\'') && valueStart(prev, s.flow > 0):
			s.quote = c
		case (c == '[' || c == '{') && valueStart(prev, s.flow > 0):
			s.flow++
			s.elements++ // its first entry; each comma adds one more
			keys := -1   // a list
			if c == '{' {
				keys = 1
			}
			s.flowKeys, s.flowNames = append(s.flowKeys, keys), append(s.flowNames, nil)
			s.keyDone, keyStart = false, j+1
			if len(s.blocks)+s.flow > s.max {
				return true
			}
		case (c == ']' || c == '}') && s.flow > 0:
			s.flow--
			s.flowKeys, s.flowNames = s.flowKeys[:len(s.flowKeys)-1], s.flowNames[:len(s.flowNames)-1]
			s.keyDone = true
		case c == ':' && s.flow > 0 && !s.keyDone && s.flowKeys[len(s.flowKeys)-1] >= 0:
			top := len(s.flowKeys) - 1
			s.keyDone = true
			s.flowNames[top] = keyName(rest[keyStart:j])
			s.path = append(append(s.path[:0], s.names...), s.flowNames[:top]...)
			s.key(s.path, s.flowNames[top], s.flowKeys[top])
		case c == ',' && s.flow > 0:
			s.keyDone, keyStart = false, j+1
			s.elements++
			if top := len(s.flowKeys) - 1; s.flowKeys[top] >= 0 {
				if s.flowKeys[top]++; s.flowKeys[top] > s.maxKeys {
					s.wide = true
					return true
				}
			}
		}
		prev = c
	}
	return false
}

// plainState says whether the scan is in a plain scalar, one begun
// outside a flow collection (which holds brackets and commas as text) or
// in one (which they end).
type plainState int

const (
	noPlain plainState = iota
	blockPlain
	flowPlain
)

// plainAt is the plain state at rest[j], not blank and outside quotes
// (Okta's `expression: x.?[a eq 'b'] && y` is all text): a plain scalar
// begins where a node may, with no indicator, and ends at a key's colon
// or, begun in a flow collection, at its punctuation.
func plainAt(plain plainState, rest []byte, j int, prev byte, inFlow bool) plainState {
	c := rest[j]
	blankNext := j+1 == len(rest) || rest[j+1] == ' ' || rest[j+1] == '\t'
	switch {
	case plain == blockPlain && !(c == ':' && blankNext),
		plain == flowPlain && !(c == ',' || c == ']' || c == '}' || c == ':' && blankNext):
		return plain
	case plain != noPlain:
		return noPlain
	}
	indicator := bytes.IndexByte([]byte("[]{},#&*!|>'\"%@`"), c) >= 0 || (c == '-' || c == '?' || c == ':') && blankNext
	switch {
	case !valueStart(prev, inFlow) || indicator:
		return noPlain
	case inFlow:
		return flowPlain
	}
	return blockPlain
}

// anchorAt tells whether the & at rest[j] may begin an anchor: a name
// follows it, and it starts the line's node or follows a blank, or in a
// flow collection its punctuation.
func anchorAt(rest []byte, j int, inFlow bool) bool {
	if j+1 >= len(rest) || rest[j+1] == ' ' || rest[j+1] == '\t' {
		return false
	}
	if j == 0 {
		return true
	}
	switch rest[j-1] {
	case ' ', '\t':
		return true
	case '[', '{', ',', ':':
		return inFlow
	}
	return false
}

// blockKey is the key of a block mapping line ("k: v" or "k:").
func blockKey(rest []byte) []byte {
	if i := bytes.Index(rest, []byte(": ")); i >= 0 {
		return keyName(rest[:i])
	}
	return keyName(rest[:len(rest)-1])
}

// isKey tells whether a block line's node is a mapping key ("k: v", "k:").
func isKey(rest []byte) bool {
	return bytes.Contains(rest, []byte(": ")) || bytes.HasSuffix(rest, []byte(":"))
}

// valueStart tells whether a quote or bracket after prev (the last
// non-blank byte, 0 at the start) opens a node rather than sitting inside a
// plain scalar such as "see [1]" or "don't".
func valueStart(prev byte, inFlow bool) bool {
	switch prev {
	case 0, ':', '-', '?':
		return true
	case ',', '[', '{':
		return inFlow
	}
	return false
}

// blockScalar tells whether a line's value is | or > (with indicators),
// whose content lines follow, more indented, as text.
func blockScalar(rest []byte) bool {
	if i := bytes.Index(rest, []byte(" #")); i >= 0 {
		rest = bytes.TrimRight(rest[:i], " \t")
	}
	i := len(rest)
	for i > 0 && (rest[i-1] == '-' || rest[i-1] == '+' || (rest[i-1] >= '0' && rest[i-1] <= '9')) {
		i--
	}
	if i == 0 || (rest[i-1] != '|' && rest[i-1] != '>') {
		return false
	}
	i--
	return i == 0 || rest[i-1] == ' ' || rest[i-1] == ':'
}

// ProtoDeepLine is DeepLine for .proto text: depth is the nesting of { }
// (messages, enums, services, option values), outside strings and comments.
func ProtoDeepLine(b []byte, max int) int {
	line, _ := ProtoScan(b, max)
	return line
}

// ProtoScan is ProtoDeepLine that also counts elements: every declaration
// (a statement ending in ; or a block opening {) and every further entry of
// a list (the commas of reserved 1, 2, 3; of options; of map<k, v>).
func ProtoScan(b []byte, max int) (deepLine, elements int) {
	sh := ProtoShape(b, max)
	return sh.DeepLine, sh.Elements
}

// ProtoShape is ProtoScan that also counts messages, fields and reserved
// entries, telling a statement by its first word and a field by the block
// it sits in.
func ProtoShape(b []byte, max int) Shape {
	p := protoScanner{max: max, line: 1, fresh: true}
	for i := 0; i < len(b); i++ {
		if i = p.byte(b, i); p.deep {
			break
		}
	}
	sh := Shape{Elements: p.elements, Counts: p.counts}
	if p.deep {
		sh.DeepLine = p.line
	}
	return sh
}

type protoScanner struct {
	max, depth, line, elements int
	deep                       bool
	// word is the first word of the statement being read; fresh is set
	// until that statement's first token. blocks holds the first word of
	// each open { } block; brackets counts open [ (field options, where
	// a { } is a value, not a block).
	word     []byte
	fresh    bool
	blocks   [][]byte
	brackets int
	counts   Counts
}

// byte reads the token at b[i] and returns the index of its last byte.
func (p *protoScanner) byte(b []byte, i int) int {
	switch c := b[i]; c {
	case '\n':
		p.line++
	case ' ', '\t', '\r':
	case '"', '\'':
		for i++; i < len(b) && b[i] != c && b[i] != '\n'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		if i < len(b) && b[i] == '\n' {
			p.line++
		}
		p.fresh = false
	case '/':
		switch {
		case i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			p.line++
		case i+1 < len(b) && b[i+1] == '*':
			for i += 2; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] == '\n' {
					p.line++
				}
			}
			i++
		}
	case '{', '<':
		p.elements++
		if p.depth++; p.depth > p.max {
			p.deep = true
		}
		if c == '{' && p.brackets == 0 {
			if string(p.word) == "message" {
				p.counts[Messages]++
			}
			p.blocks = append(p.blocks, p.word)
			p.word, p.fresh = nil, true
		}
	case '}', '>':
		if p.depth > 0 {
			p.depth--
		}
		if c == '}' && p.brackets == 0 && len(p.blocks) > 0 {
			p.blocks = p.blocks[:len(p.blocks)-1]
			p.word, p.fresh = nil, true
		}
	case ';', ',':
		p.elements++
		p.entry(c == ';')
	case '[':
		p.brackets++
		p.fresh = false
	case ']':
		if p.brackets > 0 {
			p.brackets--
		}
	default:
		j := i
		for j < len(b) && isIdent(b[j]) {
			j++
		}
		if p.fresh && j > i {
			p.word = b[i:j]
		}
		p.fresh = false
		if j > i {
			i = j - 1
		}
	}
	return i
}

// entry counts the statement (end) or list entry just finished.
func (p *protoScanner) entry(end bool) {
	switch w := string(p.word); {
	case w == "reserved":
		p.counts[Reserved]++
	case !end || p.brackets > 0:
		return
	case w == "" || w == "option" || w == "extensions":
	case len(p.blocks) > 0 && fieldBlock(p.blocks[len(p.blocks)-1]):
		p.counts[Fields]++
	}
	if end {
		p.word, p.fresh, p.brackets = nil, true, 0
	}
}

// fieldBlock tells whether a block opened by word holds fields.
func fieldBlock(word []byte) bool {
	switch string(word) {
	case "message", "oneof", "extend", "group", "optional", "required", "repeated":
		return true
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// LongLine returns the 1-based number of the first line longer than max
// bytes, or 0 when there is none.
func LongLine(b []byte, max int) int {
	for line := 1; len(b) > 0; line++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		if i > max {
			return line
		}
		b = b[min(i+1, len(b)):]
	}
	return 0
}
