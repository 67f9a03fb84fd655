package rules

import (
	"fmt"
	"slices"
	"strings"
)

// redefinedProto judges a proto field that kept its number and name: the
// diff emits one Modified field change without an Aspect for every field
// whose type or shape moved, carrying both sides' facts. It reports what
// old readers misread (a type they cannot decode, an enum whose numbers
// differ, another shape, another unit) in the words field-redefined uses
// for OpenAPI, since it is the same edit: `double price` becoming `int64
// price` is `price: {type: number}` becoming `{type: integer}`. It
// supersedes the breaking type and cardinality rules at the field, whose
// buf rules its finding carries. Widening an integer or renaming the field
// is not a new meaning: the breaking rules (and field-number-reused) own those.
func redefinedProto(c *Change) (msg string, ok bool) {
	o, n := c.OldField, c.NewField
	if c.Aspect != "" || o == nil || n == nil || o.Name != n.Name {
		return "", false
	}
	m, ou, nu, nKnown := protoMeaning(o, n)
	if len(m.parts) == 0 {
		return "", false
	}
	return fmt.Sprintf("%s: %s: %s; %s", n.Name, strings.Join(m.parts, ", "),
		m.consequence(protoDirection(n), o, n, ou, nu), advice(n.Name, nu, nKnown)), true
}

// protoMeaning collects what changed about the meaning of a proto field
// that kept its number and name, and the units each side states.
func protoMeaning(o, n *Field) (m meaning, ou, nu unit, nKnown bool) {
	if (o.Type != n.Type || o.Key != n.Key || o.Format != n.Format) && !wireCompatibleType(o, n) {
		m.add("type %s -> %s", protoType(o), protoType(n))
	} else if !wireCompatibleCard(card(o), card(n)) {
		m.shape(o, n)
	}
	ou, oKnown := fieldUnit(o)
	nu, nKnown = fieldUnit(n)
	if oKnown && nKnown && ou.Name != nu.Name {
		m.add("unit %s -> %s", ou.Name, nu.Name)
		if ou.Dim != "" && ou.Dim == nu.Dim {
			m.growth = ou.Scale / nu.Scale
		}
	}
	return m, ou, nu, nKnown
}

// protoDirection reads (google.api.field_behavior): OUTPUT_ONLY fields are
// only read by clients, INPUT_ONLY ones only sent; others go both ways.
func protoDirection(f *Field) Direction {
	switch {
	case slices.Contains(f.Behavior, "OUTPUT_ONLY"):
		return Response
	case slices.Contains(f.Behavior, "INPUT_ONLY"):
		return Request
	}
	return Request | Response
}

func protoType(f *Field) string {
	if f.Format == "group" {
		return f.Type + " (delimited)"
	}
	if f.Map {
		return "map<" + f.Key + ", " + f.Type + ">"
	}
	if f.Array {
		return "repeated " + f.Type
	}
	return f.Type
}

// card is a field's cardinality as the wire sees it.
func card(f *Field) string {
	if s := shape(f); s != "scalar" {
		return s
	}
	return "optional"
}

func shape(f *Field) string {
	switch {
	case f.Map:
		return "map"
	case f.Array:
		return "repeated"
	}
	return "scalar"
}
