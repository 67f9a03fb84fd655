package rules

import (
	"fmt"
	"slices"
	"strings"
)

// redefinedProto judges a proto field that kept its number: the diff emits
// one Modified field change without an Aspect for every field whose meaning
// moved, carrying both sides' facts. A type change that old readers cannot
// decode is an error; one that only JSON clients see (int32 -> int64 is a
// number becoming a string) is a warning; so is an enum swapped for another.
func redefinedProto(c *Change) (msg string, sev Severity, ok bool) {
	o, n := c.OldField, c.NewField
	if c.Aspect != "" || o == nil || n == nil {
		return "", 0, false
	}
	var parts []string
	sev = Warning
	if o.Type != n.Type || o.Key != n.Key || o.Format != n.Format {
		parts = append(parts, fmt.Sprintf("type %s -> %s", protoType(o), protoType(n)))
		switch {
		case !wireCompatibleType(o, n):
			sev = Error
			parts[len(parts)-1] += " (old readers cannot decode it)"
		case !jsonCompatibleType(o, n):
			parts[len(parts)-1] += " (same wire encoding, but JSON clients see a different value)"
		}
	}
	if oc, nc := shape(o), shape(n); oc != nc {
		parts = append(parts, fmt.Sprintf("%s -> %s", oc, nc))
		sev = Error
	}
	if o.JSONName != n.JSONName {
		parts = append(parts, fmt.Sprintf("json_name %q -> %q", o.JSONName, n.JSONName))
		if len(parts) == 1 {
			sev = Warning // the binary wire is unchanged; JSON clients lose the field
		}
	}
	consequence := "existing clients read the new data with the old meaning"
	if part, growth, ok := unitChange(o, n); ok {
		parts = append(parts, part)
		sev = Error
		if growth != 0 && growth != 1 {
			m := meaning{growth: growth}
			consequence = m.consequence(protoDirection(n), o, n, unit{}, unit{})
		}
	}
	if len(parts) == 0 {
		return "", 0, false
	}
	return fmt.Sprintf("field %d (%s) keeps its number but changes meaning: %s; %s. Add a new field with a new number and deprecate this one",
		n.Number, n.Name, strings.Join(parts, ", "), consequence), sev, true
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
	if f.Map {
		return "map<" + f.Key + ", " + f.Type + ">"
	}
	if f.Array {
		return "repeated " + f.Type
	}
	return f.Type
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
