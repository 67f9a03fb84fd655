package openapi

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// The one reader of contract text. The loader and review both read a
// document through Parse's rewriting, so what review takes for a contract,
// and the $refs it follows, are what the loader reads and compares.

// surrogateRE is a JSON escape of a character outside the Basic
// Multilingual Plane (an emoji), written as a UTF-16 surrogate pair, which
// JSON allows and YAML refuses ("invalid Unicode character escape code").
var surrogateRE = regexp.MustCompile(`\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}`)

// shift is where a rewritten line's text moved left: from the rune column
// at (1-based, in the rewritten text) on, add by to get the original column.
type shift struct{ line, at, by int }

// Readable rewrites a JSON document into the same document the YAML parser
// accepts, so that it is read with positions: each surrogate-pair escape
// becomes the one \U escape YAML knows for the same character. Lines are
// kept; the shifts say how columns moved. Anything that is not JSON, or
// needs no rewriting, is returned as it is.
func Readable(b []byte) ([]byte, []shift) {
	b = asYAML11(b)
	if !bytes.Contains(b, []byte(`\u`)) {
		return b, nil
	}
	ms := surrogateRE.FindAllIndex(b, -1)
	if len(ms) == 0 || !json.Valid(b) && !json.Valid(dropTrailingCommas(b)) {
		return b, nil
	}
	var out bytes.Buffer
	var shifts []shift
	line, lineStart, last, moved, copied := 1, 0, 0, 0, 0
	for _, m := range ms {
		if escaped(b, m[0]) {
			continue // `\\ud83d...` is a backslash, then letters
		}
		// Count the lines between the last match and this one.
		for i := bytes.IndexByte(b[last:m[0]], '\n'); i >= 0; i = bytes.IndexByte(b[last:m[0]], '\n') {
			last += i + 1
			line, lineStart, moved = line+1, last, 0
		}
		hi, _ := strconv.ParseUint(string(b[m[0]+2:m[0]+6]), 16, 32)
		lo, _ := strconv.ParseUint(string(b[m[0]+8:m[0]+12]), 16, 32)
		r := (hi-0xD800)<<10 | (lo - 0xDC00) + 0x10000
		out.Write(b[copied:m[0]])
		esc := `\U` + strconv.FormatUint(0x100000000+r, 16)[1:]
		out.WriteString(esc)
		moved += (m[1] - m[0]) - len(esc)
		// What follows the escape, in the original and the rewritten text.
		after := 1 + utf8.RuneCount(b[lineStart:m[1]])
		shifts = append(shifts, shift{line: line, at: after - moved, by: moved})
		last, copied = m[1], m[1]
	}
	if shifts == nil {
		return b, nil
	}
	out.Write(b[copied:])
	return out.Bytes(), shifts
}

// docStart opens a document explicitly on the line of its brace.
var docStart = []byte("--- ")

// startDocument writes `--- ` before the brace of a JSON document that
// opens on a line of its own. yaml v4 keeps a flow collection that begins
// a document as a possible key until it closes, and with it every token
// read since: a JSON document's whole token stream queued, grown and
// copied as it was read (a third of a diff of Twilio's spec). After the
// document marker the brace cannot begin a key. Only where YAML reads the
// text as JSON does: the loader sends to JSON's parser, which the marker
// would stop, a text YAML refuses or reads otherwise (a character YAML
// does not print, U+0085 among them, invalid UTF-8, a name longer than
// the 1024 characters of a YAML key).
func startDocument(b []byte) ([]byte, *shift) {
	at := 0
	for at < len(b) && (b[at] == ' ' || b[at] == '\n' || b[at] == '\r' || b[at] == '\t') {
		at++
	}
	if at == len(b) || b[at] != '{' || at > 0 && b[at-1] != '\n' || !restOfLineBlank(b[at+1:]) || !printable(b) || longKey(b, 1000) {
		return b, nil
	}
	line := 1 + bytes.Count(b[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(b[:at], '\n') // 1-based
	out := make([]byte, 0, len(b)+len(docStart))
	out = append(append(append(out, b[:at]...), docStart...), b[at:]...)
	return out, &shift{line: line, at: col + len(docStart), by: -len(docStart)}
}

// printable reports whether b is valid UTF-8 holding only characters YAML
// prints (tab, line breaks, and no C0 or C1 control, DEL, U+FFFE or
// U+FFFF), U+0085 excluded, which YAML reads as a line break.
func printable(b []byte) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
			return false
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			return false
		case c == 0xef && i+2 < len(b) && b[i+1] == 0xbf && b[i+2] >= 0xbe:
			return false
		}
	}
	return utf8.Valid(b)
}

// restOfLineBlank reports whether b holds only blanks up to its first line
// break.
func restOfLineBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\n', '\r':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// longKey reports whether a JSON object name in b may be longer than n
// bytes: a quote that ends a string and is followed by a colon, on a line
// longer than n, with no other unescaped quote within n bytes before it.
func longKey(b []byte, n int) bool {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) <= n {
			continue
		}
		for i := n; i < len(line); i++ {
			if line[i] != '"' || escaped(line, i) || !bytes.HasPrefix(bytes.TrimLeft(line[i+1:], " \t"), []byte(":")) {
				continue
			}
			start := i - 1
			for start >= i-n && (line[start] != '"' || escaped(line, start)) {
				start--
			}
			if start < i-n {
				return true
			}
		}
	}
	return false
}

// dropTrailingCommas is b with each comma that ends a JSON mapping or
// sequence (`,` then blanks then `}` or `]`, outside strings) made a space.
// A subset plan's text of a JSON document (see cutJSON) has one where it
// blanked a mapping's last entries: JSON but for those, which YAML reads as
// JSON means it, so Readable rewrites its escapes as the whole document's.
func dropTrailingCommas(b []byte) []byte {
	out := slices.Clone(b)
	inString := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == ',':
			j := i + 1
			for j < len(out) && (out[j] == ' ' || out[j] == '\n' || out[j] == '\t' || out[j] == '\r') {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

// yamlDirectiveRE is a `%YAML 1.x` directive (x from 2) opening the text,
// after a BOM, blank lines and comments; its group is the version.
var yamlDirectiveRE = regexp.MustCompile(`\A(?:\xef\xbb\xbf)?(?:[ \t]*(?:#[^\n]*)?\r?\n)*%YAML[ \t]+(1\.[2-9])[ \t]*(?:#[^\n]*)?\r?\n`)

// asYAML11 has a `%YAML 1.2` directive read as `%YAML 1.1`: OpenAPI 3.1
// names YAML 1.2, and the parser refuses any version but its own 1.1,
// though it reads a contract's YAML the same. The version is rewritten in
// place, so every line and column stays where it was.
func asYAML11(b []byte) []byte {
	m := yamlDirectiveRE.FindSubmatchIndex(b)
	if m == nil {
		return b
	}
	out := slices.Clone(b)
	copy(out[m[2]:m[3]], "1.1")
	return out
}

// escaped reports whether the backslash at i is itself escaped: preceded by
// an odd run of backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n, i = n+1, i-1
	}
	return n%2 == 1
}

// column maps a column of the rewritten text back to the original's.
func column(shifts []shift, line, col int) int {
	add := 0
	for _, s := range shifts {
		if s.line == line && col >= s.at {
			add = s.by
		}
	}
	return col + add
}

// Parse reads a YAML or JSON document into a node tree the way the loader
// does: its YAML parser over the rewritten text, then, as kin-openapi falls
// back, encoding/json (a JSON document with a duplicate key, which YAML
// refuses). A document neither reads is nil. The marked text is tried
// first, for speed; where the marker's guards let a text through that YAML
// refuses (a duplicate key, which the limits refuse before the loader sees
// it), the unmarked text is, so that review still finds the contract and
// the limits name the key.
func Parse(b []byte) *yaml.Node {
	b, _ = Readable(b)
	if marked, at := startDocument(b); at != nil {
		var doc yaml.Node
		if yaml.Unmarshal(marked, &doc) == nil && len(doc.Content) > 0 {
			return doc.Content[0]
		}
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) == nil && len(doc.Content) > 0 {
		return doc.Content[0]
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var n yaml.Node
	if n.Encode(v) != nil {
		return nil
	}
	return &n
}

// readable is the text of name the parser is given, remembering how its
// columns moved.
func (d *Doc) readable(name string, b []byte) []byte {
	out, shifts := Readable(b)
	if shifts != nil {
		d.shifted(name, func([]shift) []shift { return shifts })
	}
	return out
}

// shifted sets name's shifts to what f makes of them.
func (d *Doc) shifted(name string, f func([]shift) []shift) {
	d.refs.mu.Lock()
	defer d.refs.mu.Unlock()
	if d.refs.shifts == nil {
		d.refs.shifts = map[string][]shift{}
	}
	d.refs.shifts[name] = f(d.refs.shifts[name])
}

// shiftAs records the columns Readable moves in src, the text of name,
// for a model parsed from parts of it (each part rewritten alike: its
// lines are src's).
func (d *Doc) shiftAs(name string, src []byte) {
	text, shifts := Readable(src)
	if _, at := startDocument(text); at != nil {
		shifts = append(shifts, *at)
	}
	if shifts != nil {
		d.refs.shifts = map[string][]shift{name: shifts}
	}
}

// startDocument is startDocument of a whole document the loader is given,
// recording how its columns moved.
func (d *Doc) startDocument(name string, b []byte) []byte {
	out, at := startDocument(b)
	if at != nil {
		d.shifted(name, func(s []shift) []shift { return append(s, *at) })
	}
	return out
}

// column is the original column of a place in name's rewritten text.
func (d *Doc) column(name string, line, col int) int {
	d.refs.mu.Lock()
	defer d.refs.mu.Unlock()
	return column(d.refs.shifts[name], line, col)
}
