package openapi

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// A $ref where OpenAPI expects text (`tags: [{name: a, description: {$ref:
// intro.yml#/intro}}]`, as some split specs write) makes kin-openapi refuse
// the whole document. Such a place is found from the parser's own error (the
// mapping it could not read as a string), blanked to an empty string of the
// same width, and the document read again: the text is not compared, which a
// contract-invalid warning says, and nothing else moves.

// maxTextRefFiles bounds the reloads: each one clears every such $ref of one
// file.
const maxTextRefFiles = 32

// blankSpan is a byte range of a served file to read as "".
// empty is what it reads as: `""` where text was expected, `{}` where a
// map was.
type blankSpan struct {
	start, end int
	empty      string
}

var pointerRE = regexp.MustCompile(` in (/\S*)$`)

// textRefs notes the places of err, a decode error in the file read last,
// that are lone $refs where text was expected, so the next load reads them
// as empty text. false when any error is another kind (a reload would fail
// the same way) or there is nothing new to note.
func (d *Doc) textRefs(err error) bool {
	var le *yaml.LoadErrors
	if !errors.As(err, &le) || d.lastKey == "" || len(le.Errors) == 0 {
		return false
	}
	var root yaml.Node
	if yaml.Unmarshal(d.lastServed, &root) != nil {
		return false
	}
	var spans []blankSpan
	var first *rules.Invalid
	for _, e := range le.Errors {
		if e == nil {
			return false
		}
		var n *yaml.Node
		empty, what := `""`, "text (%s: $ref %s): the text is read as empty, so it is not compared"
		switch {
		case strings.Contains(e.Message, "into string"):
			n = nodeAt(&root, e.Mark.Line, e.Mark.Column)
		case strings.Contains(e.Message, "into openapi3.Schema") && strings.HasSuffix(e.Message, "/properties/$ref"):
			// properties: {$ref: file#/props}, as DigitalOcean writes
			// its models: the parser reads "$ref" as a property's name.
			n, empty = refHolding(&root, e.Mark.Line, e.Mark.Column), "{}"
			what = "a map of properties (%s: $ref %s): it is read as no properties, so they are not compared"
		}
		if n == nil || n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Value != "$ref" || n.Content[1].Kind != yaml.ScalarNode {
			return false
		}
		sp, ok := mappingSpan(d.lastServed, n)
		if !ok {
			return false
		}
		sp.empty = empty
		spans = append(spans, sp)
		if first == nil {
			at := "a field"
			if m := pointerRE.FindStringSubmatch(e.Message); m != nil {
				at = m[1]
			}
			loc := d.Loc(&openapi3.Location{File: d.lastKey, Line: n.Line, Column: n.Column})
			first = &rules.Invalid{Loc: loc, Msg: "a $ref stands where OpenAPI expects " + fmt.Sprintf(what, at, quote(n.Content[1].Value)) +
				"; bundle the document (redocly bundle) to compare it"}
		}
	}
	if d.blanks == nil {
		d.blanks = map[string][]blankSpan{}
	}
	if len(d.blanks) >= maxTextRefFiles || d.blanks[d.lastKey] != nil {
		return false
	}
	d.blanks[d.lastKey] = spans
	d.bundled = append(d.bundled, *first)
	return true
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// refHolding is the one-entry mapping `{$ref: X}` whose X starts at line
// and column.
func refHolding(n *yaml.Node, line, col int) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[1].Line == line && n.Content[1].Column == col {
		return n
	}
	for _, c := range n.Content {
		if c.Line > line {
			break
		}
		if found := refHolding(c, line, col); found != nil {
			return found
		}
	}
	return nil
}

// nodeAt is the shallowest node starting at line and column.
func nodeAt(n *yaml.Node, line, col int) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.DocumentNode && n.Line == line && n.Column == col {
		return n
	}
	for _, c := range n.Content {
		if c.Line > line {
			break
		}
		if found := nodeAt(c, line, col); found != nil {
			return found
		}
	}
	return nil
}

// mappingSpan is the byte range of n, a one-entry mapping, in b: to its
// closing brace when written in flow style, else to the end of its value.
// false when the end cannot be found for sure.
func mappingSpan(b []byte, n *yaml.Node) (blankSpan, bool) {
	start, ok := offsetOf(b, n.Line, n.Column)
	if !ok {
		return blankSpan{}, false
	}
	v := n.Content[1]
	vs, ok := offsetOf(b, v.Line, v.Column)
	if !ok {
		return blankSpan{}, false
	}
	end := scalarEnd(b, vs, v.Style)
	if end < 0 {
		return blankSpan{}, false
	}
	if n.Style&yaml.FlowStyle != 0 {
		i := end
		for i < len(b) && strings.IndexByte(" \t\r\n", b[i]) >= 0 {
			i++
		}
		if i >= len(b) || b[i] != '}' {
			return blankSpan{}, false
		}
		end = i + 1
	}
	return blankSpan{start: start, end: end}, true
}

// scalarEnd is the offset just past the scalar starting at i, or -1 when it
// spans lines or its end is not certain.
func scalarEnd(b []byte, i int, style yaml.Style) int {
	switch {
	case style&yaml.DoubleQuotedStyle != 0:
		for j := i + 1; j < len(b) && b[j] != '\n'; j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
	case style&yaml.SingleQuotedStyle != 0:
		for j := i + 1; j < len(b) && b[j] != '\n'; j++ {
			if b[j] == '\'' {
				if j+1 < len(b) && b[j+1] == '\'' {
					j++
					continue
				}
				return j + 1
			}
		}
	case style == 0:
		j := i
		for j < len(b) && strings.IndexByte("\n\r,}]", b[j]) < 0 && !(b[j] == '#' && j > i && (b[j-1] == ' ' || b[j-1] == '\t')) {
			j++
		}
		for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
			j--
		}
		return j
	}
	return -1
}

// offsetOf is the byte offset of a 1-based line and rune column.
func offsetOf(b []byte, line, col int) (int, bool) {
	i := 0
	for l := 1; l < line; l++ {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			return 0, false
		}
		i += nl + 1
	}
	for c := 1; c < col; c++ {
		if i >= len(b) || b[i] == '\n' {
			return 0, false
		}
		_, n := utf8.DecodeRune(b[i:])
		i += n
	}
	return i, true
}

// blank is b with each span read as its empty value: every character of
// the span a space but its line breaks, so that every other line and
// column stays where it was, and the empty value written where a line of
// the span first has room for it (see emptyAt).
func blank(b []byte, spans []blankSpan) []byte {
	out := append([]byte(nil), b...)
	// From the last span back: a replacement may be shorter in bytes (a
	// character becomes one space), which would move the spans after it.
	spans = slices.SortedFunc(slices.Values(spans), func(a, b blankSpan) int { return b.start - a.start })
	for _, sp := range spans {
		empty := cmp.Or(sp.empty, `""`)
		text := string(b[sp.start:sp.end])
		at := max(0, emptyAt(text, empty))
		repl := make([]byte, 0, len(text))
		i := 0
		for _, r := range text {
			switch {
			case i == at:
				repl = append(repl, empty...)
			case i > at && i < at+len(empty):
			case r == '\n':
				repl = append(repl, '\n')
			default:
				repl = append(repl, ' ')
			}
			i++
		}
		out = append(out[:sp.start:sp.start], append(repl, out[sp.end:]...)...)
	}
	return out
}

// emptyAt is where, in characters from the start of span, empty is written
// in its place: at the first non-blank character of the first line of it
// with room for empty from there (a JSON mapping's brace stands alone on
// its line, its $ref on the next); -1 when no line has.
func emptyAt(span, empty string) int {
	at := 0
	for line := range strings.SplitSeq(span, "\n") {
		n := utf8.RuneCountInString(line)
		lead := n - utf8.RuneCountInString(strings.TrimLeft(line, " \t"))
		if n-lead >= len(empty) {
			return at + lead
		}
		at += n + 1
	}
	return -1
}
