package openapi

import (
	"bytes"
	"regexp"
	"strings"
)

// scanner reads a block-style YAML document one line at a time and tells
// which lines start a node (structure) and which are the text of a scalar
// or flow collection begun earlier, and which anchor a line defines or
// aliases. It knows only what the cutter needs, and says ok=false on
// anything outside that: tags, an anchor on a key or in a flow collection,
// complex keys, directives, a document marker after content, a $ref in a
// flow collection over several lines. It reads one
// kind of explicit key, the one YAML emitters write for a key longer than
// 128 characters: `? key` alone on its line, then `: ` at the same
// indentation opening the value's block mapping (Adyen's example names).
type scanner struct {
	// block and plain are the indentation a block scalar's or a continuing
	// plain scalar's lines must exceed (-1: none open); quote is the quote
	// of a quoted scalar open across lines.
	block, plain int
	quote        byte
	// ref is 1 while a $ref's block scalar (`$ref: >-`, a long pointer on
	// the next line) waits for its one line, 2 once read.
	ref int
	// pointer holds a double-quoted $ref read so far while its lines,
	// each ending in an escaped line break, go on.
	pointer []byte
	// keep is set by a block scalar with keep chomping (|+), whose value
	// takes every blank line after it: the cutter must see the next node
	// in the same chunk (see cut).
	keep bool
	// explicit is the indentation of a `? key` line whose `: value` line
	// must come next (-1: none).
	explicit int
	// flow is how many flow collections are open across lines (Linode's
	// examples: `- {` then a JSON object over the lines below).
	flow int
	// content is set once a line holds a node: a `---` before any marks
	// the document's start, one after would start a second document.
	content bool
	// refKey is the column of a `$ref:` key with nothing after it on its
	// line (-1: none): a property named $ref (Okta's spec has one) when a
	// mapping follows, deeper; anything else is not read.
	refKey int
	// why is what the scanner was not sure of, once next says ok=false.
	why string
}

// fail records why the scanner gives up, for NoPlan.
func (s *scanner) fail(why string) bool {
	s.why = why
	return false
}

// lineInfo is what the scanner learns of one line.
type lineInfo struct {
	structure bool // the line starts a node (not blank, comment or scalar text)
	indent    int
	dash      bool // it starts with a sequence entry
	// key and value are slices of the line: most lines' are never read.
	key    []byte
	hasKey bool
	// bare: nothing after the key's colon, not even a comment.
	bare bool
	// scalar: value is a one-line scalar (unquoted).
	scalar bool
	value  []byte
	isRef  bool // the key is $ref
	// flowRefs are the pointers of the $refs in a one-line flow
	// collection ({$ref: '#/components/schemas/Order'}).
	flowRefs []string
	// anchor names the anchor the line's value defines (`key: &name`),
	// alias the one it is (`key: *name`).
	anchor, alias string
}

// flowAnchorRE finds an anchor or alias where a node of a flow collection
// begins, which the cutter does not follow.
var flowAnchorRE = regexp.MustCompile(`(?:^|[\[{,]|:\s)\s*[&*][^\s,\[\]{}]`)

// anchorName splits `&name rest` or `*name rest` (v[0] the indicator) into
// the name and what follows it.
func anchorName(v []byte) (string, []byte) {
	end := 1
	for end < len(v) && bytes.IndexByte([]byte(" ,[]{}"), v[end]) < 0 {
		end++
	}
	return string(v[1:end]), v[end:]
}

// flowRefRE reads one `$ref: pointer` inside a flow collection.
var flowRefRE = regexp.MustCompile(`["']?\$ref["']?\s*:\s*(?:"([^"\\]*)"|'([^']*)'|([^\s,{}\[\]'"]+))`)

func flowRefs(b []byte) []string {
	var out []string
	for _, m := range flowRefRE.FindAllSubmatch(b, -1) {
		out = append(out, string(m[1])+string(m[2])+string(m[3]))
	}
	return out
}

func (s *scanner) next(line []byte) (lineInfo, bool) {
	var l lineInfo
	ind := 0
	for ind < len(line) && line[ind] == ' ' {
		ind++
	}
	rest := line[ind:]
	if s.pointer != nil {
		return s.pointerLine(line)
	}
	if s.flow > 0 {
		return l, s.flowLine(line, ind)
	}
	if s.quote != 0 {
		end := closeQuote(line, 0, s.quote)
		if end < 0 {
			return l, true
		}
		s.quote = 0
		return l, trailer(line[end:]) || s.fail("text after a quoted scalar")
	}
	if len(rest) == 0 {
		if s.ref == 1 {
			return l, s.fail("a $ref's block scalar starting with a blank line") // a pointer does not start with a line break
		}
		return l, true
	}
	if s.block >= 0 {
		if ind > s.block {
			return s.refLine(rest)
		}
		if s.ref == 1 {
			return l, s.fail("a $ref's block scalar with no pointer")
		}
		s.block, s.ref = -1, 0
	}
	if s.plain >= 0 {
		if ind > s.plain && rest[0] != '#' {
			return l, true
		}
		s.plain = -1
	}
	if rest[0] == '#' {
		return l, true
	}
	if ind == 0 && !s.content && string(bytes.TrimRight(rest, " ")) == "---" {
		return l, true // the document's start marked, as PyYAML's explicit_start writes it
	}
	if ind == 0 && (bytes.HasPrefix(rest, []byte("---")) || bytes.HasPrefix(rest, []byte("...")) || rest[0] == '%') {
		return l, s.fail("a document marker or directive")
	}
	s.content = true
	valueLine := false
	if s.explicit >= 0 {
		// `: key: value` is the explicit key's value, a block mapping
		// whose first key sits past the colon, as if on its own line.
		at := s.explicit
		s.explicit = -1
		if ind != at || !bytes.HasPrefix(rest, []byte(": ")) {
			return l, s.fail("a complex key (?) whose value does not follow it")
		}
		n := 1
		for n < len(rest) && rest[n] == ' ' {
			n++
		}
		ind, rest, valueLine = ind+n, rest[n:], true
	} else if rest[0] == '?' && (len(rest) == 1 || rest[1] == ' ') {
		return s.explicitKey(ind, rest)
	}
	l.structure, l.indent = true, ind
	named := s.refKey
	if s.refKey = -1; named >= 0 && (ind <= named || rest[0] == '-') {
		return l, s.fail("a $ref whose value is not on its line")
	}
	// parent is the indentation a value's later lines must exceed: a
	// scalar alone on its line continues at its own indentation, one after
	// a dash past the dash, one after a key past the key.
	col, parent := ind, ind-1
	for len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ') {
		l.dash, parent = true, col
		n := 1
		for n < len(rest) && rest[n] == ' ' {
			n++
		}
		col, rest = col+n, rest[n:]
	}
	if len(rest) == 0 || rest[0] == '#' {
		return l, true
	}
	v, ok := s.key(&l, rest)
	if !ok {
		return l, false
	}
	if named >= 0 && !l.hasKey {
		return l, s.fail("a $ref whose value is not on its line")
	}
	if valueLine && (!l.hasKey || l.dash) {
		return l, s.fail("a complex key (?) whose value is not a block mapping")
	}
	if l.hasKey {
		parent = col
	} else {
		v = rest
	}
	return l, s.value(&l, v, parent)
}

// explicitKey reads `? key` at indentation ind: the key, a plain scalar
// on its one line, read as `key:` with its value below.
func (s *scanner) explicitKey(ind int, rest []byte) (lineInfo, bool) {
	k := bytes.TrimSpace(rest[1:])
	if len(k) == 0 || strings.IndexByte("'\"{[&*!|>%@`#-?:,]}", k[0]) >= 0 ||
		bytes.Contains(k, []byte(": ")) || bytes.Contains(k, []byte(" #")) || bytes.HasSuffix(k, []byte(":")) {
		return lineInfo{}, s.fail("a complex key (?)")
	}
	s.explicit, s.plain = ind, -1
	return lineInfo{structure: true, indent: ind, key: k, hasKey: true, bare: true}, true
}

// pointerLine reads a line of a double-quoted $ref continued from the line
// before with an escaped line break: its text joins the pointer from its
// first non-blank character. Any other escape or break is not read.
func (s *scanner) pointerLine(line []byte) (lineInfo, bool) {
	text := bytes.TrimLeft(line, " ")
	end := closeQuote(text, 0, '"')
	if end < 0 {
		if !bytes.HasSuffix(text, []byte("\\")) || bytes.IndexByte(text[:len(text)-1], '\\') >= 0 {
			return lineInfo{}, s.fail("a $ref broken over lines other than by escaped line breaks")
		}
		s.pointer = append(s.pointer, text[:len(text)-1]...)
		return lineInfo{}, true
	}
	p := append(s.pointer, text[:end-1]...)
	s.pointer = nil
	if bytes.IndexByte(p, '\\') >= 0 {
		return lineInfo{}, s.fail("an escape in a $ref")
	}
	return lineInfo{isRef: true, scalar: true, value: p}, trailer(text[end:]) || s.fail("text after a $ref")
}

// refLine reads a line of a block scalar: the pointer of a `$ref: >-`
// when one waits (a second line would fold into it: not read).
func (s *scanner) refLine(text []byte) (lineInfo, bool) {
	switch s.ref {
	case 1:
		s.ref = 2
		return lineInfo{isRef: true, scalar: true, value: bytes.TrimRight(text, " ")}, true
	case 2:
		return lineInfo{}, s.fail("a $ref's block scalar over more than one line")
	}
	return lineInfo{}, true
}

// key reads a mapping key at the start of rest and returns the text after
// its colon; without a key (a scalar, or a flow collection) hasKey stays false.
func (s *scanner) key(l *lineInfo, rest []byte) ([]byte, bool) {
	switch rest[0] {
	case '\'', '"':
		end := closeQuote(rest, 1, rest[0])
		if end < 0 {
			return nil, true // a quoted scalar over several lines
		}
		after := bytes.TrimLeft(rest[end:], " ")
		if len(after) == 0 || after[0] != ':' || len(after) > 1 && after[1] != ' ' {
			return nil, true
		}
		k, ok := unquote(rest[:end])
		l.key, l.hasKey = k, true
		if !ok {
			return nil, s.fail("an escape in a quoted key")
		}
		return after[1:], true
	case '?':
		return nil, s.fail("a complex key (?)")
	}
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == '#' && i > 0 && rest[i-1] == ' ':
			return nil, true // a comment: no key on this line
		case rest[i] == ':' && (i+1 == len(rest) || rest[i+1] == ' '):
			if strings.IndexByte("{[&*!|>%@`", rest[0]) >= 0 {
				return nil, true // an indicator: the value's reader decides
			}
			l.key, l.hasKey = bytes.TrimRight(rest[:i], " "), true
			return rest[i+1:], true
		}
	}
	return nil, true
}

// value reads what follows a key (or a dash) on its line and opens the
// scalar state that continues onto later lines.
func (s *scanner) value(l *lineInfo, v []byte, parent int) bool {
	l.bare = len(v) == 0 || len(bytes.TrimRight(v, " ")) == 0
	v = bytes.TrimLeft(v, " ")
	l.isRef = l.hasKey && string(l.key) == "$ref"
	if len(v) == 0 || v[0] == '#' {
		if l.isRef {
			// A mapping must follow (see refKey): the key names a property.
			l.isRef, s.refKey = false, parent
		}
		return true
	}
	switch v[0] {
	case '|', '>':
		hdr := v[1:]
		if i := bytes.Index(hdr, []byte(" #")); i >= 0 {
			hdr = hdr[:i]
		}
		if len(bytes.Trim(hdr, "+-0123456789 ")) > 0 {
			return s.fail("a block scalar header it does not read")
		}
		s.keep = s.keep || bytes.IndexByte(hdr, '+') >= 0
		if l.isRef {
			if string(bytes.TrimRight(hdr, " ")) != "-" {
				return s.fail("a $ref's block scalar keeping its line break") // a pointer with a line break in it
			}
			s.ref = 1
		}
		s.block = parent
		return true
	case '\'', '"':
		end := closeQuote(v, 1, v[0])
		if end < 0 && l.isRef && v[0] == '"' && bytes.HasSuffix(v, []byte("\\")) {
			// A long pointer broken with an escaped line break.
			s.pointer = append([]byte(nil), v[1:len(v)-1]...)
			return true
		}
		if end < 0 {
			s.quote = v[0]
			return !l.isRef || s.fail("a $ref quoted over several lines")
		}
		l.value, l.scalar = unquote(v[:end])
		if !l.scalar && (l.isRef || string(l.key) == "operationId") {
			return s.fail("an escape in a $ref or operationId") // a value the cutter reads
		}
		return trailer(v[end:]) || s.fail("text after a quoted scalar")
	case '{', '[':
		end := closeFlow(v)
		switch {
		case end < 0 && l.isRef:
			return s.fail("a $ref whose value is a collection")
		case end < 0:
			return s.flowLine(v, 1)
		case !trailer(v[end:]):
			return s.fail("text after a flow collection")
		case l.isRef:
			return s.fail("a $ref whose value is a collection")
		case flowAnchorRE.Match(v[:end]):
			return s.fail("an anchor or alias in a flow collection")
		}
		if n := bytes.Count(v[:end], []byte("$ref")); n > 0 {
			l.flowRefs = flowRefs(v[:end])
			return len(l.flowRefs) == n || s.fail("a $ref in a flow collection it does not read")
		}
		return true
	case '&':
		// An anchor (js-yaml's &ref_0, PyYAML's &id001): the node after it
		// is read as it would be without; the cutter keeps its chunk with
		// every chunk that aliases it.
		name, rest := anchorName(v)
		rest = bytes.TrimLeft(rest, " ")
		if name == "" || len(rest) > 0 && (rest[0] == '&' || rest[0] == '*' || rest[0] == '!' || bytes.Contains(rest, []byte(": ")) || bytes.HasSuffix(rest, []byte(":"))) {
			return s.fail("an anchor on a key, or with a tag")
		}
		l.anchor = name
		if len(rest) == 0 || rest[0] == '#' {
			return true
		}
		return s.value(l, rest, parent)
	case '*':
		name, rest := anchorName(v)
		if name == "" || !trailer(rest) {
			return s.fail("an alias used as a key")
		}
		l.alias = name
		return true
	case '!':
		return s.fail("a tag")
	case '%', '@', '`':
		return s.fail("a reserved indicator")
	}
	if i := bytes.Index(v, []byte(" #")); i >= 0 {
		v = v[:i]
	}
	l.value, l.scalar = bytes.TrimRight(v, " "), true
	s.plain = parent
	return true
}

// flowLine reads a line of flow collections open across lines (s.flow of
// them): brackets counted outside quoted scalars to the one that closes
// the outermost, after which only a comment may follow. The parser reads
// such lines at any indentation but the document's own (ind 0), which is
// not read; nor is a quoted scalar left open at the line's end, or a $ref
// (which the cutter would have to follow).
func (s *scanner) flowLine(line []byte, ind int) bool {
	switch {
	case len(bytes.TrimLeft(line, " ")) == 0:
		return true
	case ind == 0:
		return s.fail("a flow collection over several lines, a line of it at the document's indentation")
	case bytes.Contains(line, []byte("$ref")):
		return s.fail("a $ref in a flow collection over several lines")
	case flowAnchorRE.Match(bytes.TrimLeft(line, " ")):
		return s.fail("an anchor or alias in a flow collection")
	}
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '{', '[':
			s.flow++
		case '}', ']':
			if s.flow--; s.flow == 0 {
				return trailer(line[i+1:]) || s.fail("text after a flow collection")
			}
		case '\'', '"':
			end := closeQuote(line, i+1, line[i])
			if end < 0 {
				return s.fail("a quoted scalar over several lines in a flow collection")
			}
			i = end - 1
		case '#':
			if i == 0 || line[i-1] == ' ' {
				return true
			}
		}
	}
	return true
}

// closeQuote is the index just past the quote closing a scalar quoted with
// q whose text starts at b[from:]; -1 when it does not close on this line.
func closeQuote(b []byte, from int, q byte) int {
	for i := from; i < len(b); i++ {
		switch {
		case q == '"' && b[i] == '\\':
			i++
		case b[i] == q && q == '\'' && i+1 < len(b) && b[i+1] == '\'':
			i++
		case b[i] == q:
			return i + 1
		}
	}
	return -1
}

// closeFlow is the index just past the bracket closing the flow collection
// b starts with; -1 when it does not close on this line.
func closeFlow(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '\'', '"':
			end := closeQuote(b, i+1, b[i])
			if end < 0 {
				return -1
			}
			i = end - 1
		}
	}
	return -1
}

// trailer reports whether b, what follows a closed scalar or collection on
// its line, is only spaces and a comment.
func trailer(b []byte) bool {
	b = bytes.TrimLeft(b, " ")
	return len(b) == 0 || b[0] == '#'
}

// unquote is a quoted scalar's text: ” is a quote in single quotes; a
// double-quoted one with an escape is not read (ok false).
func unquote(b []byte) ([]byte, bool) {
	inner := b[1 : len(b)-1]
	if b[0] == '\'' {
		if bytes.Contains(inner, []byte("''")) {
			inner = bytes.ReplaceAll(inner, []byte("''"), []byte("'"))
		}
		return inner, true
	}
	return inner, bytes.IndexByte(inner, '\\') < 0
}
