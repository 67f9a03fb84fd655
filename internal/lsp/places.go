package lsp

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/fix"
	tree "github.com/contractlint/contractlint/internal/places"
	"github.com/contractlint/contractlint/rules"
)

// Places in a buffer named the way findings name elements (a JSON pointer,
// an operation, a proto full name), for what a finding does not place
// itself: the enclosing element of something removed, and the operations it
// reaches. Block YAML is read line by line: a parse of a 4 MB document is
// 20–60 times that (internal/places BenchmarkRead against BenchmarkPlaces),
// on every edit whose findings reach an operation. What the lines cannot
// follow, JSON and YAML in flow style, is read by internal/places.

// pointerLine finds the line (0-based) of the deepest element of ptr that
// text has, and how many of ptr's segments it matched.
func pointerLine(text string, ptr string) (line, matched int) {
	at, matched := newPlaces(text).pointer(ptr)
	return at.line, matched
}

// places reads one buffer for the places of many findings: its lines are
// split once, its operations indexed once, its parse (when the lines do not
// tell) made once.
type places struct {
	text  string
	lines []string
	ops   map[string]at // "get /v1/charges" -> its key's place
	read  bool
	doc   *tree.Doc // nil until read, or when the text does not parse
}

// at is a place in a buffer: a 0-based line and a 1-based column counted
// in characters (1 for a whole line).
type at struct{ line, col int }

func newPlaces(text string) *places { return &places{text: text} }

// pointer is the place of the deepest element of ptr the buffer has, and
// how many of ptr's segments it matched (line -1 when none).
func (p *places) pointer(ptr string) (at, int) {
	segs := rules.PointerSegments(ptr)
	line, matched := -1, 0
	if !flowRoot(p.text) {
		line, matched = p.blockPointer(segs)
		if matched == len(segs) || line < 0 || !flowValue(p.lines[line]) {
			return at{line, 1}, matched
		}
	}
	d := p.parsed()
	if d == nil {
		return at{line, 1}, matched
	}
	place, m := d.Find(segs)
	if m == 0 {
		return at{-1, 1}, 0
	}
	return at{place.Line - 1, place.Column}, m
}

// blockPointer follows segs through block YAML by indentation.
func (p *places) blockPointer(segs []string) (line, matched int) {
	if p.lines == nil {
		p.lines = strings.Split(p.text, "\n")
	}
	lines := p.lines
	from, to, parent := 0, len(lines), -1
	line = -1
	for _, seg := range segs {
		i, indent := childKey(lines[from:to], parent, seg)
		if i < 0 {
			break
		}
		line, matched = from+i, matched+1
		from = line + 1
		end := from
		for end < to && (fix.Blank(lines[end]) || fix.Indent(lines[end]) > indent) {
			end++
		}
		to, parent = end, indent
	}
	return line, matched
}

// parsed is the buffer read by internal/places, nil when it does not parse.
func (p *places) parsed() *tree.Doc {
	if !p.read {
		p.read = true
		p.doc, _ = tree.Read([]byte(p.text))
	}
	return p.doc
}

// flowRoot tells whether the document is one flow collection (JSON).
func flowRoot(text string) bool {
	t := strings.TrimLeft(strings.TrimPrefix(text, "\ufeff"), " \t\r\n")
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// flowValue tells whether a block line's value is a flow collection
// ("key: {", "- ["), whose insides the line reader does not follow.
func flowValue(l string) bool {
	body := strings.TrimSpace(stripYAMLComment(l))
	if strings.HasPrefix(body, "- ") {
		body = strings.TrimSpace(body[2:])
	} else if i := strings.Index(body, ": "); i >= 0 {
		body = strings.TrimSpace(body[i+2:])
	}
	return strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[")
}

// childKey finds, among lines, the key seg one level below parent's
// indentation (a list item's index when seg is a number).
func childKey(lines []string, parent int, seg string) (int, int) {
	child := -1
	item := -1
	n, isIndex := strconv.Atoi(seg)
	for i, l := range lines {
		if fix.Blank(l) {
			continue
		}
		ind := fix.Indent(l)
		if child < 0 {
			if ind <= parent {
				return -1, 0
			}
			child = ind
		}
		if ind < child {
			return -1, 0
		}
		if ind != child {
			continue
		}
		body := l[ind:]
		if isIndex == nil && strings.HasPrefix(body, "- ") || body == "-" {
			item++
			if isIndex == nil && item == n {
				return i, ind
			}
			continue
		}
		if fix.KeyOf(body) == seg {
			return i, ind
		}
	}
	return -1, 0
}

// enclosing places a finding about something the buffer no longer has at
// the deepest element of its path the buffer still has; the first line when
// none is found.
func enclosing(text string, f *rules.Finding) span {
	a := at{-1, 1}
	if f.Format == rules.Proto {
		a.line = protoLine(text, f.Path)
	} else {
		a, _ = newPlaces(text).pointer(f.Path)
	}
	return lineSpan(text, a.line+1, a.col)
}

// protoLine finds the declaration of the deepest enclosing element of a
// proto full name (pkg.Message.field -> message Message).
func protoLine(text, full string) int {
	parts := strings.Split(full, ".")
	for n := len(parts) - 1; n > 0; n-- {
		re := regexp.MustCompile(`(?m)^\s*(message|enum|service|oneof)\s+` + regexp.QuoteMeta(parts[n-1]) + `\b`)
		if loc := re.FindStringIndex(text); loc != nil {
			return strings.Count(text[:loc[0]], "\n") + strings.Count(text[loc[0]:loc[1]], "\n")
		}
	}
	return -1
}

// operationSpan places an operation as findings name it ("POST /v1/charges"
// or pkg.Service.Method); at when the buffer does not show it.
func (p *places) operationSpan(format rules.Format, op string, otherwise span) span {
	a := at{-1, 1}
	if format == rules.Proto {
		parts := strings.Split(op, ".")
		re := regexp.MustCompile(`(?m)^\s*rpc\s+` + regexp.QuoteMeta(parts[len(parts)-1]) + `\b`)
		if loc := re.FindStringIndex(p.text); loc != nil {
			a.line = strings.Count(p.text[:loc[0]], "\n") + strings.Count(p.text[loc[0]:loc[1]], "\n")
		}
	} else if method, path, ok := strings.Cut(op, " "); ok {
		if o, ok := p.operations()[strings.ToLower(method)+" "+path]; ok {
			a = o
		}
	}
	if a.line < 0 {
		return otherwise
	}
	return lineSpan(p.text, a.line+1, a.col)
}

// operations indexes the places of every operation under paths: in one
// pass over the lines of block YAML, through the parse when paths or one of
// its entries is written in flow style, or the document is JSON.
func (p *places) operations() map[string]at {
	if p.ops != nil {
		return p.ops
	}
	if !flowRoot(p.text) && p.blockOperations() {
		return p.ops
	}
	p.ops = p.parsedOperations()
	return p.ops
}

// parsedOperations is operations read through the parse.
func (p *places) parsedOperations() map[string]at {
	ops := map[string]at{}
	if d := p.parsed(); d != nil {
		for _, path := range d.Entries([]string{"paths"}) {
			for _, m := range d.Entries([]string{"paths", path.Key}) {
				ops[m.Key+" "+path.Key] = at{m.Line - 1, m.Column}
			}
		}
	}
	return ops
}

// blockOperations is operations over the lines of block YAML; false when a
// flow collection stands where paths or a path's operations are.
func (p *places) blockOperations() bool {
	p.ops = map[string]at{}
	start, _ := p.blockPointer([]string{"paths"})
	if start < 0 {
		return true
	}
	if flowValue(p.lines[start]) {
		return false
	}
	pathIndent, methodIndent := -1, -1
	var path string
	for i := start + 1; i < len(p.lines); i++ {
		l := p.lines[i]
		if fix.Blank(l) {
			continue
		}
		ind := fix.Indent(l)
		if ind == 0 {
			break
		}
		if pathIndent < 0 {
			pathIndent = ind
		}
		switch {
		case ind == pathIndent:
			if flowValue(l) {
				return false
			}
			path, methodIndent = fix.KeyOf(l[ind:]), -1
		case ind > pathIndent && (methodIndent < 0 || ind == methodIndent):
			methodIndent = ind
			if k := fix.KeyOf(l[ind:]); k != "" && path != "" {
				p.ops[k+" "+path] = at{i, 1}
			}
		}
	}
	return true
}
