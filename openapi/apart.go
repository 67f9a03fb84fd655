package openapi

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// toldApart names the property that keeps oneOf member j of parent from
// overlapping any other member: every member constrains it (enum, const, or
// the discriminator's mapping) and j's values are accepted by no other. A
// body that matched another member by that property cannot match j, so
// adding j rejects nothing clients sent. (A body that omits the property
// could still match two when j does not require it; an API that tells its
// alternatives apart by, say, type expects clients to send it, as Adyen's
// payment methods do.) "" when no property does.
func toldApart(parent *openapi3.Schema, members openapi3.SchemaRefs, j int) string {
	m := members[j]
	if m == nil || m.Value == nil {
		return ""
	}
	if by := wholeApart(m.Value, members, j); by != "" {
		return by
	}
	for _, prop := range candidates(parent, m.Value) {
		mine, ok := memberValues(parent, m, prop)
		if !ok {
			continue
		}
		apart := true
		for k, other := range members {
			if k == j {
				continue
			}
			theirs, ok := memberValues(parent, other, prop)
			if !ok || slices.ContainsFunc(mine, func(v string) bool { return slices.Contains(theirs, v) }) {
				apart = false
				break
			}
		}
		if apart {
			return prop
		}
	}
	return ""
}

// candidates lists the properties that may tell members apart, sorted: the
// discriminator's, and every property of s with an enum or const.
func candidates(parent, s *openapi3.Schema) []string {
	set := map[string]bool{}
	if parent.Discriminator != nil && parent.Discriminator.PropertyName != "" {
		set[parent.Discriminator.PropertyName] = true
	}
	eachPart(s, func(p *openapi3.Schema) {
		for name, ps := range p.Properties {
			if v := schemaOf(ps); v != nil && (v.Const != nil || len(v.Enum) > 0) {
				set[name] = true
			}
		}
	})
	return sortedKeys(set)
}

// eachPart calls f on s and, through allOf, on every schema s is made of.
func eachPart(s *openapi3.Schema, f func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(*openapi3.Schema)
	walk = func(s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		f(s)
		for _, m := range s.AllOf {
			if m != nil {
				walk(m.Value)
			}
		}
	}
	walk(s)
}

// memberValues lists the values member m accepts for prop, as text. With a
// discriminator on prop, a body is matched by its mapping alone: the
// mapping names that lead to m (or, when none does, m's own component
// name). Otherwise its property's enum or const. ok is false when m
// accepts any value there.
func memberValues(parent *openapi3.Schema, m *openapi3.SchemaRef, prop string) (vals []string, ok bool) {
	if m == nil || m.Value == nil {
		return nil, false
	}
	if d := parent.Discriminator; d != nil && d.PropertyName == prop && m.Ref != "" {
		name := memberName(m, 0)
		for v, to := range d.Mapping {
			if to.Ref == m.Ref || memberName((*openapi3.SchemaRef)(&to), 0) == name {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			vals = []string{name}
		}
		sort.Strings(vals)
		return vals, true
	}
	eachPart(m.Value, func(p *openapi3.Schema) {
		ps := schemaOf(p.Properties[prop])
		switch {
		case ok || ps == nil:
		case ps.Const != nil:
			vals, ok = []string{fmt.Sprint(ps.Const)}, true
		case len(ps.Enum) > 0:
			for _, v := range ps.Enum {
				vals = append(vals, fmt.Sprint(v))
			}
			ok = true
		}
	})
	return vals, ok
}

// wholeApart names the keyword that keeps member j from sharing any value
// with every other member as a whole: consts or enums with no value in
// common, types with none in common, or closed objects each requiring a
// property the other does not declare. "" when some pair may overlap.
func wholeApart(m *openapi3.Schema, members openapi3.SchemaRefs, j int) string {
	by := ""
	for k, other := range members {
		if k == j {
			continue
		}
		o := schemaOf(other)
		if o == nil {
			return ""
		}
		kw := disjoint(m, o)
		if kw == "" {
			return ""
		}
		by = cmp.Or(by, kw)
	}
	return by
}

// disjoint names why no value is valid against both a and b, or "".
func disjoint(a, b *openapi3.Schema) string {
	av, aok := values(a)
	bv, bok := values(b)
	if aok && bok && !slices.ContainsFunc(av, func(v string) bool { return slices.Contains(bv, v) }) {
		if a.Const != nil {
			return "const"
		}
		return "enum"
	}
	if at, bt := jsonTypes(a), jsonTypes(b); at != nil && bt != nil && !slices.ContainsFunc(at, func(t string) bool { return slices.Contains(bt, t) }) {
		return "type"
	}
	if excludes(a, b) || excludes(b, a) {
		return "additionalProperties"
	}
	return ""
}

// values lists the only values s accepts (its const or enum); ok is false
// when it states neither.
func values(s *openapi3.Schema) (vals []string, ok bool) {
	switch {
	case s.Const != nil:
		return []string{valueString(s.Const)}, true
	case len(s.Enum) > 0:
		for _, v := range s.Enum {
			vals = append(vals, valueString(v))
		}
		return vals, true
	}
	return nil, false
}

// jsonTypes is the JSON types s admits, with null when it is nullable and
// number covering integer; nil when it admits any.
func jsonTypes(s *openapi3.Schema) []string {
	ts := typeSet(s)
	if s.Type != nil && onlyNull(s.Type) {
		return []string{"null"}
	}
	if len(ts) == 0 {
		return nil
	}
	if slices.Contains(ts, "integer") && !slices.Contains(ts, "number") {
		ts = append(ts, "number")
	}
	if nullable(s) {
		ts = append(ts, "null")
	}
	return ts
}

// excludes reports an object a requires a property that the closed object
// b does not declare: no value is valid against both.
func excludes(a, b *openapi3.Schema) bool {
	if !isClosed(b) {
		return false
	}
	return slices.ContainsFunc(a.Required, func(p string) bool { _, ok := b.Properties[p]; return !ok })
}
