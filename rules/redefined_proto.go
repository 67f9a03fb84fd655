package rules

import (
	"fmt"
	"slices"
	"strings"
)

// redefinedProto judges a proto field that kept its number and name: the
// diff emits one Modified field change without an Aspect for every field
// whose type or shape moved, carrying both sides' facts. It reports what
// old readers misread: a type they cannot decode (an enum counts as
// another when its numbers differ), or another shape. Widening an integer or
// renaming the field is not a new meaning; the breaking rules (and
// field-number-reused) own those, and supersede this finding wherever
// they fire at the field, so one edit is one finding.
func redefinedProto(c *Change) (msg string, ok bool) {
	o, n := c.OldField, c.NewField
	if c.Aspect != "" || o == nil || n == nil || o.Name != n.Name {
		return "", false
	}
	m := protoMeaning(o, n)
	if len(m.parts) == 0 {
		return "", false
	}
	consequence := "existing clients read the new data with the old meaning"
	if m.growth != 0 && m.growth != 1 {
		consequence = m.consequence(protoDirection(n), o, n, unit{}, unit{})
	}
	return fmt.Sprintf("field %d (%s) keeps its number but changes meaning: %s; %s. Add a new field with a new number and deprecate this one",
		n.Number, n.Name, strings.Join(m.parts, ", "), consequence), true
}

// protoMeaning collects what changed about the meaning of a proto field
// that kept its number and name.
func protoMeaning(o, n *Field) meaning {
	var m meaning
	if o.Type != n.Type || o.Key != n.Key || o.Format != n.Format {
		if !wireCompatibleType(o, n) {
			m.add("type %s -> %s (old readers misread it)", protoType(o), protoType(n))
		}
	}
	if oc, nc := shape(o), shape(n); oc != nc && !wireCompatibleCard(card(o), card(n)) {
		m.add("%s -> %s", oc, nc)
	}
	if part, growth, ok := unitChange(o, n); ok {
		m.parts = append(m.parts, part)
		m.growth = growth
	}
	return m
}

// unitChange compares the units a field's comments (leading and trailing)
// or unit option state on both sides: "// Price in dollars." becoming
// "// Price in cents." is a new meaning under the same number.
func unitChange(o, n *Field) (part string, growth float64, ok bool) {
	ou, oKnown := fieldUnit(o)
	nu, nKnown := fieldUnit(n)
	if !oKnown || !nKnown || ou.Name == nu.Name {
		return "", 0, false
	}
	if ou.Dim != "" && ou.Dim == nu.Dim {
		growth = ou.Scale / nu.Scale
	}
	return fmt.Sprintf("unit %s -> %s", ou.Name, nu.Name), growth, true
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
