package rules

import (
	"fmt"
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
func redefinedProto(c *Change) (msg string, sev Severity, ok bool) {
	o, n := c.OldField, c.NewField
	if c.Aspect != "" || o == nil || n == nil || o.Name != n.Name {
		return "", 0, false
	}
	var parts []string
	if o.Type != n.Type || o.Key != n.Key || o.Format != n.Format {
		if !wireCompatibleType(o, n) {
			parts = append(parts, fmt.Sprintf("type %s -> %s (old readers misread it)", protoType(o), protoType(n)))
		}
	}
	if oc, nc := shape(o), shape(n); oc != nc && !wireCompatibleCard(card(o), card(n)) {
		parts = append(parts, fmt.Sprintf("%s -> %s", oc, nc))
	}
	if len(parts) == 0 {
		return "", 0, false
	}
	return fmt.Sprintf("field %d (%s) keeps its number but changes meaning: %s; existing clients read the new data with the old meaning. Add a new field with a new number and deprecate this one",
		n.Number, n.Name, strings.Join(parts, ", ")), Error, true
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
