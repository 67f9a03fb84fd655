package lsp

import (
	"regexp"
	"strings"

	tree "github.com/contractlint/contractlint/internal/places"
	"github.com/contractlint/contractlint/rules"
)

// Places in a buffer named the way findings name elements (a JSON pointer,
// an operation, a proto full name), for what a finding does not place
// itself: the enclosing element of something removed, and the operations it
// reaches. OpenAPI buffers are read by internal/places' lazy reader, which
// parses only the entries a question reaches, at about the cost of the
// line reader it replaced: a parse of a whole 4 MB document on every edit
// would cost more than the edit's comparison (internal/places
// BenchmarkLazy, lazy/whole 0.03 on Stripe; BenchmarkStripeEdit,
// edit-cpu-ms).

// pointerLine finds the line (0-based) of the deepest element of ptr that
// text has, and how many of ptr's segments it matched.
func pointerLine(text string, ptr string) (line, matched int) {
	at, matched := newPlaces(text).pointer(ptr)
	return at.line, matched
}

// places reads one buffer for the places of many findings: what it parses
// for one is kept for the next.
type places struct {
	text string
	tree *tree.Lazy // nil until asked
}

// at is a place in a buffer: a 0-based line and a 1-based column counted
// in characters (1 for a whole line).
type at struct{ line, col int }

func newPlaces(text string) *places { return &places{text: text} }

// pointer is the place of the deepest element of ptr the buffer has, and
// how many of ptr's segments it matched (line -1 when none).
func (p *places) pointer(ptr string) (at, int) {
	return p.find(rules.PointerSegments(ptr))
}

// find is the place of the deepest element of path the buffer has.
func (p *places) find(path []string) (at, int) {
	if p.tree == nil {
		p.tree = tree.NewLazy([]byte(p.text))
	}
	place, m := p.tree.Find(path)
	if m == 0 {
		return at{-1, 1}, 0
	}
	return at{place.Line - 1, place.Column}, m
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
		if o, m := p.find([]string{"paths", path, strings.ToLower(method)}); m == 3 {
			a = o
		}
	}
	if a.line < 0 {
		return otherwise
	}
	return lineSpan(p.text, a.line+1, a.col)
}
