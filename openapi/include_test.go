package openapi

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestIncludes checks the inclusion relation on the shapes the diff asks
// about: yes, no, or cannot tell with a reason.
func TestIncludes(t *testing.T) {
	str, num, integer := openapi3.NewStringSchema, openapi3.NewFloat64Schema, openapi3.NewIntegerSchema
	obj := func(props map[string]*openapi3.Schema, required ...string) *openapi3.Schema {
		s := openapi3.NewObjectSchema()
		for k, v := range props {
			s.WithProperty(k, v)
		}
		s.Required = required
		return s
	}
	nullable := func(s *openapi3.Schema) *openapi3.Schema { s.Nullable = true; return s }
	consts := func(vs ...string) *openapi3.Schema {
		var alts []*openapi3.Schema
		for _, v := range vs {
			alts = append(alts, &openapi3.Schema{Const: v})
		}
		return openapi3.NewOneOfSchema(alts...)
	}
	allOf := func(ms ...*openapi3.Schema) *openapi3.Schema { return openapi3.NewAllOfSchema(ms...) }
	closed := func(s *openapi3.Schema) *openapi3.Schema { s.WithoutAdditionalProperties(); return s }
	for _, c := range []struct {
		name         string
		outer, inner *openapi3.Schema
		want         string // yes, no, or the start of a reason
	}{
		{"anything admits a string", &openapi3.Schema{}, str(), "yes"},
		{"a string does not admit anything", str(), &openapi3.Schema{}, "no"},
		{"number admits integer", num(), integer(), "yes"},
		{"integer does not admit number", integer(), num(), "no"},
		{"nullable admits its non-null self", nullable(str()), str(), "yes"},
		{"non-null does not admit null", str(), nullable(str()), "no"},
		{"wider maxLength", str().WithMaxLength(10), str().WithMaxLength(5), "yes"},
		{"narrower maxLength", str().WithMaxLength(5), str().WithMaxLength(10), "no"},
		{"enum as consts", str().WithEnum("a", "b"), consts("b", "a"), "yes"},
		{"a const more", consts("a"), consts("a", "b"), "no"},
		{"allOf split", obj(map[string]*openapi3.Schema{"a": str(), "b": integer()}, "a"),
			allOf(obj(map[string]*openapi3.Schema{"a": str()}, "a"), obj(map[string]*openapi3.Schema{"b": integer()})), "yes"},
		{"newly required", obj(map[string]*openapi3.Schema{"a": str()}, "a"), obj(map[string]*openapi3.Schema{"a": str()}), "no"},
		{"closed refuses open", closed(obj(map[string]*openapi3.Schema{"a": str()})), obj(map[string]*openapi3.Schema{"a": str()}), "no"},
		{"undeclared property", obj(map[string]*openapi3.Schema{"a": str()}), obj(map[string]*openapi3.Schema{"b": str()}), "no"},
		{"free-form object admits any object", openapi3.NewObjectSchema(), obj(map[string]*openapi3.Schema{"b": str()}), "yes"},
		{"one alternative admits it", openapi3.NewOneOfSchema(str(), obj(nil)), str().WithMaxLength(3), "yes"},
		{"alternatives each admitted", openapi3.NewObjectSchema(), openapi3.NewAnyOfSchema(obj(nil), obj(map[string]*openapi3.Schema{"x": str()})), "yes"},
		{"patterns", str().WithPattern("^a"), str().WithPattern("^b"), "patterns"},
		{"formats", str().WithFormat("uuid"), str(), "formats"},
		{"contradicting allOf", str(), allOf(str(), integer()), "allOf members"},
		{"closed member beside another's property", openapi3.NewObjectSchema(),
			allOf(closed(obj(map[string]*openapi3.Schema{"a": str()})), obj(map[string]*openapi3.Schema{"b": str()})), "allOf members"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := includes(c.outer, c.inner)
			got := "no"
			switch {
			case !v.known:
				got = v.why
			case v.yes:
				got = "yes"
			}
			if len(got) < len(c.want) || got[:len(c.want)] != c.want {
				t.Errorf("includes = %q, want %q", got, c.want)
			}
		})
	}
}
