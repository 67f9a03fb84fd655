package replay

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// fill says which object properties a derived value carries.
type fill uint8

const (
	requiredOnly fill = iota + 1
	allFields
)

// maxDepth bounds derivation through nested (or cyclic) schemas; below
// half of it only required properties are filled, and past it nothing is.
const maxDepth = 8

// maxValues bounds the values one derived request holds: wide schemas
// nested a few levels deep (a payment API's expandable objects) would
// otherwise multiply into millions. Past it only required properties and
// single array items are filled.
const maxValues = 2000

// deriver builds one value, counting what it made.
type deriver struct {
	fill fill
	left int
}

// derive builds a request value from a schema alone: the schema's own
// example, default, const or first enum value where it gives one, else a
// value of its type inside its bounds. Read-only properties are never part of
// a request.
func derive(sr *openapi3.SchemaRef, f fill) any {
	d := &deriver{fill: f, left: maxValues}
	return d.at(sr, 0)
}

func (d *deriver) at(sr *openapi3.SchemaRef, depth int) any {
	if sr == nil || sr.Value == nil || depth > maxDepth {
		return nil
	}
	d.left--
	s := sr.Value
	if v, ok := given(s); ok {
		return v
	}
	switch {
	case len(s.AllOf) > 0:
		return d.allOf(s, depth)
	case len(s.OneOf) > 0:
		return d.at(s.OneOf[0], depth+1)
	case len(s.AnyOf) > 0:
		return d.at(s.AnyOf[0], depth+1)
	}
	switch typeOf(s) {
	case openapi3.TypeObject:
		return d.object(s, depth)
	case openapi3.TypeArray:
		n := max(1, int(min(s.MinItems, 3)))
		if d.left <= 0 {
			n = max(1, int(min(s.MinItems, maxValues)))
		}
		items := make([]any, 0, n)
		for range n {
			items = append(items, d.at(s.Items, depth+1))
		}
		return items
	case openapi3.TypeInteger:
		return math.Ceil(number(s))
	case openapi3.TypeNumber:
		return number(s)
	case openapi3.TypeBoolean:
		return true
	case openapi3.TypeNull:
		return nil
	}
	return text(s)
}

// given is a value the schema itself names.
func given(s *openapi3.Schema) (any, bool) {
	switch {
	case s.Example != nil:
		return s.Example, true
	case len(s.Examples) > 0:
		return s.Examples[0], true
	case s.Const != nil:
		return s.Const, true
	case s.Default != nil:
		return s.Default, true
	case len(s.Enum) > 0:
		return s.Enum[0], true
	}
	return nil, false
}

// typeOf is the schema's type, the first non-null one of a 3.1 list; a
// schema without a type but with properties is an object.
func typeOf(s *openapi3.Schema) string {
	if s.Type != nil {
		for _, t := range s.Type.Slice() {
			if t != openapi3.TypeNull {
				return t
			}
		}
		if s.Type.Is(openapi3.TypeNull) {
			return openapi3.TypeNull
		}
	}
	if len(s.Properties) > 0 || len(s.Required) > 0 {
		return openapi3.TypeObject
	}
	return openapi3.TypeString
}

func (d *deriver) object(s *openapi3.Schema, depth int) map[string]any {
	out := map[string]any{}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := s.Properties[name]
		optional := !slices.Contains(s.Required, name)
		if p == nil || p.Value == nil || p.Value.ReadOnly ||
			(optional && (d.fill != allFields || depth >= maxDepth/2 || d.left <= 0)) {
			continue
		}
		out[name] = d.at(p, depth+1)
	}
	return out
}

// allOf merges the objects its members derive; a member that is not an
// object decides the value alone.
func (d *deriver) allOf(s *openapi3.Schema, depth int) any {
	merged := map[string]any{}
	for _, m := range s.AllOf {
		v := d.at(m, depth+1)
		o, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for k, x := range o {
			merged[k] = x
		}
	}
	if len(s.Properties) > 0 {
		for k, x := range d.object(s, depth) {
			merged[k] = x
		}
	}
	return merged
}

// number is 1 moved inside the schema's bounds and onto its step.
func number(s *openapi3.Schema) float64 {
	v := 1.0
	if s.Min != nil && v < *s.Min {
		v = *s.Min
	}
	if s.Max != nil && v > *s.Max {
		v = *s.Max
	}
	if m := s.MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(v / *m) * *m
		if s.Max != nil && v > *s.Max {
			v -= *m
		}
	}
	return v
}

// formats are values for the string formats clients validate.
var formats = map[string]string{
	"date-time": "2026-01-02T03:04:05Z",
	"date":      "2026-01-02",
	"time":      "03:04:05Z",
	"email":     "replay@example.com",
	"uuid":      "00000000-0000-4000-8000-000000000000",
	"uri":       "https://example.com/replay",
	"url":       "https://example.com/replay",
	"hostname":  "example.com",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"byte":      "cmVwbGF5",
}

// text is a string the schema accepts: its format's shape, a match of its
// pattern, or "replay" padded or cut to its length bounds.
func text(s *openapi3.Schema) string {
	if v, ok := formats[s.Format]; ok {
		return v
	}
	if s.Pattern != "" {
		if v, ok := matching(s.Pattern); ok {
			return v
		}
	}
	v := "replay"
	if n := int(min(s.MinLength, 1024)); len(v) < n {
		v += strings.Repeat("x", n-len(v))
	}
	if s.MaxLength != nil && uint64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}

// matching returns a short string the pattern matches: literals as
// written, the first printable character of each class, each repetition
// at its minimum (once for +), the first branch of each alternation. The
// result is checked against the pattern, so a construct it cannot follow
// yields false rather than a wrong value.
func matching(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !generate(&b, re.Simplify()) {
		return "", false
	}
	out := b.String()
	if ok, err := regexp.MatchString(pattern, out); err != nil || !ok {
		return "", false
	}
	return out, true
}

func generate(b *strings.Builder, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
	case syntax.OpCapture, syntax.OpPlus:
		return generate(b, re.Sub[0])
	case syntax.OpRepeat:
		for range re.Min {
			if !generate(b, re.Sub[0]) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !generate(b, sub) {
				return false
			}
		}
	case syntax.OpAlternate:
		return generate(b, re.Sub[0])
	default:
		return false
	}
	return true
}

// classRune picks the first character of a class that is printable ASCII,
// preferring letters and digits, else the class's first character.
func classRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	for _, want := range [][2]rune{{'A', 'Z'}, {'a', 'z'}, {'0', '9'}, {'!', '~'}} {
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := max(ranges[i], want[0]), min(ranges[i+1], want[1])
			if lo <= hi {
				return lo, true
			}
		}
	}
	return ranges[0], true
}
