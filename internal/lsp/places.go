package lsp

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/fix"
	"github.com/contractlint/contractlint/rules"
)

// Places in a buffer named the way findings name elements (a JSON pointer,
// an operation, a proto full name), for what a finding does not place
// itself: the enclosing element of something removed, and the operations it
// reaches. Block YAML is read line by line (a whole parse of a 4 MB
// document on every keystroke is what the server must not do); JSON and
// flow YAML through a parse.

// pointerLine finds the line (0-based) of the deepest element of ptr that
// text has, and how many of ptr's segments it matched.
func pointerLine(text string, ptr string) (line, matched int) {
	return newPlaces(text).pointer(ptr)
}

// places reads one buffer for the places of many findings: its lines are
// split once, its operations indexed once.
type places struct {
	text  string
	lines []string
	ops   map[string]int // "get /v1/charges" -> line
}

func newPlaces(text string) *places { return &places{text: text} }

func (p *places) pointer(ptr string) (line, matched int) {
	segs := rules.PointerSegments(ptr)
	if strings.HasPrefix(strings.TrimSpace(p.text), "{") {
		return nodeLine(p.text, segs)
	}
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

// nodeLine is pointerLine for a document the line reader cannot follow.
func nodeLine(text string, segs []string) (line, matched int) {
	var doc yaml.Node
	if yaml.Unmarshal([]byte(text), &doc) != nil || len(doc.Content) == 0 {
		return -1, 0
	}
	n := doc.Content[0]
	line = -1
	for _, seg := range segs {
		var next, key *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					key, next = n.Content[i], n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
				key, next = n.Content[i], n.Content[i]
			}
		}
		if next == nil {
			break
		}
		line, matched, n = key.Line-1, matched+1, next
	}
	return line, matched
}

// enclosing places a finding about something the buffer no longer has at
// the deepest element of its path the buffer still has; the first line when
// none is found.
func enclosing(text string, f *rules.Finding) span {
	line := -1
	if f.Format == rules.Proto {
		line = protoLine(text, f.Path)
	} else {
		line, _ = pointerLine(text, f.Path)
	}
	return lineSpan(text, line+1, 1)
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
func (p *places) operationSpan(format rules.Format, op string, at span) span {
	line := -1
	if format == rules.Proto {
		parts := strings.Split(op, ".")
		re := regexp.MustCompile(`(?m)^\s*rpc\s+` + regexp.QuoteMeta(parts[len(parts)-1]) + `\b`)
		if loc := re.FindStringIndex(p.text); loc != nil {
			line = strings.Count(p.text[:loc[0]], "\n") + strings.Count(p.text[loc[0]:loc[1]], "\n")
		}
	} else if method, path, ok := strings.Cut(op, " "); ok {
		if l, ok := p.operations()[strings.ToLower(method)+" "+path]; ok {
			line = l
		}
	}
	if line < 0 {
		return at
	}
	return lineSpan(p.text, line+1, 1)
}

// operations indexes the lines of every operation under paths, in one
// pass over a block YAML document (through the pointer walk for JSON).
func (p *places) operations() map[string]int {
	if p.ops != nil {
		return p.ops
	}
	p.ops = map[string]int{}
	if strings.HasPrefix(strings.TrimSpace(p.text), "{") {
		return p.ops // JSON: operations are placed at the finding
	}
	if p.lines == nil {
		p.lines = strings.Split(p.text, "\n")
	}
	start, _ := p.pointer("#/paths")
	if start < 0 {
		return p.ops
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
			path, methodIndent = fix.KeyOf(l[ind:]), -1
		case ind > pathIndent && (methodIndent < 0 || ind == methodIndent):
			methodIndent = ind
			if k := fix.KeyOf(l[ind:]); k != "" && path != "" {
				p.ops[k+" "+path] = i
			}
		}
	}
	return p.ops
}
