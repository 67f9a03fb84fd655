package openapi

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// Field describes the property name whose schema is ref: the facts that carry
// its meaning, for the evolution and evolvability rules.
func (d *Doc) Field(name string, ref *openapi3.SchemaRef, required bool) *rules.Field {
	f := &rules.Field{Name: name, Required: required, Loc: d.refLoc(ref)}
	s := schemaOf(ref)
	if s == nil {
		return f
	}
	if inner := unwrapNull(ref); inner != nil {
		// A nullable wrapper means what its member means.
		wrapper := s
		f2 := d.Field(name, inner, required)
		f2.Loc, f2.Nullable = f.Loc, admitsNull(ref)
		f2.Deprecated = f2.Deprecated || wrapper.Deprecated
		if wrapper.Description != "" {
			f2.Description = wrapper.Description
		}
		return f2
	}
	if primaryType(s) == "array" && s.Items != nil && s.Items.Value != nil {
		f.Array = true
		s = s.Items.Value
	}
	f.Type = primaryType(s)
	f.Format = s.Format
	f.Nullable = nullable(schemaOf(ref))
	f.Deprecated = schemaOf(ref).Deprecated
	f.Description = s.Description
	f.HasDefault = s.Default != nil
	if f.Description == "" {
		f.Description = schemaOf(ref).Description
	}
	f.Unit = unitExtension(s)
	f.Title = cmp.Or(s.Title, schemaOf(ref).Title)
	f.Pattern = s.Pattern
	if s.MultipleOf != nil {
		f.MultipleOf = *s.MultipleOf
	}
	f.Example, f.HasExample = numericExample(s)
	f.StringExample = stringExample(s)
	f.Enum = enumStrings(s.Enum)
	f.Map = f.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties.Schema != nil
	return f
}

func schemaOf(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	return ref.Value
}

// refLoc is where a schema is written: the key that names it ("price:").
func (d *Doc) refLoc(ref *openapi3.SchemaRef) rules.Location {
	if ref == nil {
		return d.Loc(nil)
	}
	if ref.Origin != nil && ref.Origin.Key != nil {
		return d.Loc(ref.Origin.Key)
	}
	if ref.Value != nil {
		return d.KeyLoc(ref.Value.Origin)
	}
	return d.Loc(nil)
}

// primaryType is the schema's type ignoring "null" (that is nullability);
// "" means any type.
func primaryType(s *openapi3.Schema) string {
	if s == nil || s.Type == nil {
		return ""
	}
	for _, t := range *s.Type {
		if t != "null" {
			return t
		}
	}
	return ""
}

// typeSet lists the schema's non-null types, sorted.
func typeSet(s *openapi3.Schema) []string {
	if s == nil || s.Type == nil {
		return nil
	}
	var out []string
	for _, t := range *s.Type {
		if t != "null" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// nullable covers both spellings: 3.0's nullable: true and 3.1's type: [x, "null"].
func nullable(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	return s.Nullable || (s.Type != nil && s.Type.Includes("null"))
}

func unitExtension(s *openapi3.Schema) string {
	for _, k := range []string{"x-unit", "x-units"} {
		if v, ok := s.Extensions[k]; ok {
			return fmt.Sprint(v)
		}
	}
	return ""
}

func numericExample(s *openapi3.Schema) (float64, bool) {
	for _, v := range append([]any{s.Example}, s.Examples...) {
		switch x := v.(type) {
		case float64:
			return x, true
		case int:
			return float64(x), true
		case int64:
			return float64(x), true
		case uint64:
			return float64(x), true
		}
	}
	return 0, false
}

// stringExample is the first example written as a string: money sent as
// text ("40.00") keeps its scale there.
func stringExample(s *openapi3.Schema) string {
	for _, v := range append([]any{s.Example}, s.Examples...) {
		if x, ok := v.(string); ok {
			return x
		}
	}
	return ""
}

func enumStrings(vs []any) []string {
	if len(vs) == 0 {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = valueString(v)
	}
	return out
}

// valueString renders an enum or default value so equal values compare
// equal whatever the source format (YAML 1 and JSON 1.0 are the same).
func valueString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	case int:
		return fmt.Sprint(float64(x))
	case int64:
		return fmt.Sprint(float64(x))
	case uint64:
		return fmt.Sprint(float64(x))
	}
	return fmt.Sprint(v)
}
