package openapi

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Schemas are compared by what they accept, not by how they are written:
// before a pair is compared, the allOf members that do not stand for the
// same component on both sides are merged into the schema that holds them
// (properties, required and every constraint), so a property that moves
// between members, or an object rewritten as `allOf: [$ref Base, {…}]`,
// compares as the one object it always was. Members that are the same $ref
// on both sides stay members: their changes belong to the component, and
// are found there once.

// merged is one side of a pair with its unshared allOf members folded in.
// refs are the $ref members kept apart: the same component on both sides.
// The others, merged in, are reported as added or removed when they bring
// what the other side never had (foldedNews).
type merged struct {
	s    *openapi3.Schema
	refs openapi3.SchemaRefs
}

// mergeAllOf folds the allOf members of o and n that are not the same
// component on both sides. ok is false when neither side has allOf, or when
// members contradict each other (a property or keyword stated twice
// differently, two types): then the pair is compared as written, which
// reports the members rather than guessing what they mean together.
func mergeAllOf(o, n *openapi3.Schema) (mo, mn merged, ok bool) {
	if len(o.AllOf) == 0 && len(n.AllOf) == 0 {
		return merged{}, merged{}, false
	}
	apart := !crossesShared(o, n)
	shared := func(m *openapi3.SchemaRef, other openapi3.SchemaRefs) bool {
		return apart && m != nil && m.Ref != "" && slices.ContainsFunc(other, func(x *openapi3.SchemaRef) bool { return x != nil && sameRef(m, x) })
	}
	fold := func(x *openapi3.Schema, other openapi3.SchemaRefs) (merged, bool) {
		out := merged{}
		var rest openapi3.SchemaRefs
		for _, m := range x.AllOf {
			switch {
			case shared(m, other):
				out.refs = append(out.refs, m)
			case m == nil || m.Value == nil:
				return out, false
			default:
				rest = append(rest, m)
			}
		}
		s, ok := fold(x, rest, map[*openapi3.Schema]bool{x: true})
		out.s = s
		return out, ok
	}
	mo, okO := fold(o, n.AllOf)
	mn, okN := fold(n, o.AllOf)
	if !okO || !okN {
		return mo, mn, false
	}
	typeFromShared(mo.s, mn.s, mo.refs)
	typeFromShared(mn.s, mo.s, mn.refs)
	return mo, mn, true
}

// typeFromShared gives x, merged without its shared members, the type
// other states when those members already stated it: a member added beside
// them that says `type: object` again changes no type, and without them
// x would read as any.
func typeFromShared(x, other *openapi3.Schema, refs openapi3.SchemaRefs) {
	if x.Type != nil || other.Type == nil || len(refs) == 0 {
		return
	}
	if w, ok := normalForm(&openapi3.Schema{AllOf: refs}); ok && w.Type != nil && slices.Equal(*w.Type, *other.Type) {
		x.Type = other.Type
	}
}

// crossesShared reports a property that left (or joined) a component
// that is a $ref member on both sides, while the holder as a whole still
// has it (or had it): it moved between members across the component's
// edge. Kept apart, the component would report it removed (or added) and
// the holder's merge would not see it; then no member is kept apart, and
// the holders compare whole, as what they accept.
func crossesShared(o, n *openapi3.Schema) bool {
	var wo, wn *openapi3.Schema
	for _, om := range o.AllOf {
		for _, nm := range n.AllOf {
			if om == nil || nm == nil || om.Ref == "" || !sameRef(om, nm) {
				continue
			}
			co, okO := normalForm(schemaOf(om))
			cn, okN := normalForm(schemaOf(nm))
			if !okO || !okN {
				continue
			}
			if wo == nil {
				if wo, okO = normalForm(o); !okO {
					return false
				}
				if wn, okN = normalForm(n); !okN {
					return false
				}
			}
			if leftFor(co, cn, wn) || leftFor(cn, co, wo) {
				return true
			}
		}
	}
	return false
}

// leftFor reports a property from that to lacks and whole has.
func leftFor(from, to, whole *openapi3.Schema) bool {
	for name := range from.Properties {
		if _, ok := to.Properties[name]; !ok {
			if _, ok := whole.Properties[name]; ok {
				return true
			}
		}
	}
	return false
}

// fold merges members into a copy of x (whose allOf it replaces), each
// member's own allOf merged first; seen stops a member that contains itself.
func fold(x *openapi3.Schema, members openapi3.SchemaRefs, seen map[*openapi3.Schema]bool) (*openapi3.Schema, bool) {
	out := *x
	out.AllOf = nil
	out.Properties = maps.Clone(x.Properties)
	if out.Properties == nil {
		out.Properties = openapi3.Schemas{}
	}
	out.Required = slices.Clone(x.Required)
	var closed []*openapi3.Schema
	if isClosed(x) {
		closed = append(closed, x)
	}
	for _, m := range members {
		if m == nil || m.Value == nil || seen[m.Value] {
			return nil, false
		}
		v := m.Value
		if len(v.AllOf) > 0 {
			seen[v] = true
			inner, ok := fold(v, v.AllOf, seen)
			delete(seen, v)
			if !ok {
				return nil, false
			}
			v = inner
		}
		if isClosed(v) {
			closed = append(closed, v)
		}
		if !absorb(&out, v) {
			return nil, false
		}
	}
	for _, c := range closed {
		// A closed part refuses the properties the others add: what the
		// whole accepts is not what the merge would say.
		for name := range out.Properties {
			if _, ok := c.Properties[name]; !ok {
				return nil, false
			}
		}
	}
	return &out, true
}

// absorb adds member m's constraints to out: properties by name (the same
// property stated twice is the narrower of the two, when one admits all the
// other does, as `nullable` beside a non-null statement of it), required as
// a union, and every
// other keyword set on at most one side or equal on both. Annotations keep
// the holder's.
func absorb(out, m *openapi3.Schema) bool {
	for name, p := range m.Properties {
		q, ok := out.Properties[name]
		switch {
		case !ok:
			out.Properties[name] = p
		case q == p || sameShape(schemaOf(q), schemaOf(p)) || includes(schemaOf(p), schemaOf(q)).yes:
			// The one already held admits no more than p: it is what
			// both together admit.
		case includes(schemaOf(q), schemaOf(p)).yes:
			out.Properties[name] = p
		default:
			return false
		}
	}
	for _, r := range m.Required {
		if !slices.Contains(out.Required, r) {
			out.Required = append(out.Required, r)
		}
	}
	ov, mv := reflect.ValueOf(out).Elem(), reflect.ValueOf(m).Elem()
	for i := range ov.NumField() {
		f := schemaType.Field(i)
		if skipMerge[f.Name] || !f.IsExported() {
			continue
		}
		a, b := ov.Field(i), mv.Field(i)
		switch {
		case set(b) == "":
		case set(a) == "":
			if annotation[f.Name] {
				continue
			}
			a.Set(b)
			takeOrigin(out, m, f)
		case annotation[f.Name]:
		case !sameValue(a, b):
			return false
		}
	}
	return true
}

// takeOrigin gives out, for keyword f taken from member m, the place m
// writes it, so a change found in the merge (an enum value added) is
// reported where the member holds it, not at the holder.
func takeOrigin(out, m *openapi3.Schema, f reflect.StructField) {
	if m.Origin == nil {
		return
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	loc, okF := m.Origin.Fields.Lookup(name)
	seq, okS := m.Origin.Sequences[name]
	if !okF && !okS {
		return
	}
	o := openapi3.Origin{}
	if out.Origin != nil {
		o = *out.Origin
	}
	o.Fields = slices.DeleteFunc(slices.Clone(o.Fields), func(l openapi3.Location) bool { return l.Name == name })
	if okF {
		o.Fields = append(o.Fields, loc)
	}
	o.Sequences = maps.Clone(o.Sequences)
	if okS {
		if o.Sequences == nil {
			o.Sequences = map[string][]openapi3.Location{}
		}
		o.Sequences[name] = seq
	}
	out.Origin = &o
}

// skipMerge are the fields absorb merges by hand, or that say where a
// schema is written rather than what it accepts.
var skipMerge = map[string]bool{"Properties": true, "Required": true, "AllOf": true, "Origin": true, "Extensions": true}

// foldedNews reports whether member m, merged into one side, constrains
// values more than the other side as a whole already does: only such a
// member is reported as added or removed. other is the other side as
// written, every member counted (those kept apart too: what a shared
// component states, the whole states). A member written the same there, or
// one whose content the other side already states (a schema extracted
// into a component or inlined from one, a property moved between members),
// changes nothing; the merged comparison reports what differs inside it.
func foldedNews(m *openapi3.SchemaRef, other *openapi3.Schema) bool {
	v := schemaOf(m)
	if v == nil {
		return true
	}
	if slices.ContainsFunc(other.AllOf, func(x *openapi3.SchemaRef) bool { return x != nil && sameShape(schemaOf(x), v) }) {
		return false
	}
	whole, ok := normalForm(other)
	if v, okV := normalForm(v); ok && okV {
		return !implied(v, whole)
	}
	return true
}

// implied reports whether whole states what member m states: each
// property m names (how it changed inside is the merged comparison's to
// report, once, at the property), and every other keyword at least as
// tightly. A property m names and whole does not is news even when whole
// is open. Undecided is news.
func implied(m, whole *openapi3.Schema) bool {
	for name := range m.Properties {
		if _, ok := whole.Properties[name]; !ok {
			return false
		}
	}
	rest, inner := *m, *whole
	rest.Properties, inner.Properties = nil, nil
	return includes(&rest, &inner).yes
}

// constChoice writes a oneOf or anyOf whose members each only name values
// (const or enum, with or without their type, or {type: "null"}) as the
// enum it is: `oneOf: [{const: a}, {const: b}]` accepts what
// `enum: [a, b]` does. The enum's type is its values' when it states none,
// so `{type: string, enum: [a]}` and the choice compare equal. x is
// returned as is when it is not such a choice.
func constChoice(x *openapi3.Schema) *openapi3.Schema {
	if len(x.OneOf) > 0 == (len(x.AnyOf) > 0) || x.Type != nil || len(x.Enum) > 0 || x.Const != nil ||
		len(x.Properties) > 0 || len(x.AllOf) > 0 || x.Not != nil || x.Discriminator != nil {
		return x
	}
	var vals []any
	null := false
	for _, m := range slices.Concat(x.OneOf, x.AnyOf) {
		v := schemaOf(m)
		switch {
		case v == nil:
			return x
		case isNullOnly(v):
			null = true
			continue
		case !onlyValues(v):
			return x
		case v.Const != nil:
			vals = append(vals, v.Const)
		default:
			vals = append(vals, v.Enum...)
		}
	}
	t := valuesType(vals)
	if len(vals) == 0 || t == "" {
		return x
	}
	out := *x
	out.OneOf, out.AnyOf = nil, nil
	out.Enum = vals
	out.Type = &openapi3.Types{t}
	out.Nullable = out.Nullable || null
	return &out
}

// onlyValues reports a schema that states its values and nothing else
// beyond their type and annotations.
func onlyValues(v *openapi3.Schema) bool {
	bare := *v
	bare.Const, bare.Enum, bare.Type = nil, nil, nil
	return (v.Const != nil || len(v.Enum) > 0) && (v.Type == nil || len(*v.Type) == 1) && sameShape(&bare, &openapi3.Schema{})
}

// valuesType is the one JSON type of every value, or "".
func valuesType(vals []any) string {
	t := ""
	for _, v := range vals {
		var vt string
		switch v.(type) {
		case string:
			vt = "string"
		case bool:
			vt = "boolean"
		case float64, int, int64:
			vt = "number"
		default:
			return ""
		}
		if t != "" && t != vt {
			return ""
		}
		t = vt
	}
	return t
}
