package openapi

import (
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// Direction by inclusion: a request change breaks when some value the old
// schema accepted is refused by the new one, a response change when the new
// schema can produce a value the old one could not. includes decides the
// relation under it (after Habib et al., "Finding Data Compatibility Bugs
// with JSON Subschema Checking", ISSTA 2021), for what contracts write:
// types, values, bounds, objects, arrays, alternatives and allOf.
//
// An object's properties are read as its declared shape: a value carrying
// a property that the other schema does not declare is one that schema
// was not written for, even when it is open (generated clients drop the
// property). Where the relation cannot be decided (patterns, formats, not,
// conditionals), the answer says so and why, and callers stay
// conservative.

// verdict is the answer: yes, no, or cannot tell (why is set).
type verdict struct {
	yes, known bool
	why        string
}

var (
	yes = verdict{yes: true, known: true}
	no  = verdict{known: true}
)

func cannotTell(format string, args ...any) verdict {
	return verdict{why: fmt.Sprintf(format, args...)}
}

// includes reports whether every value inner admits, outer admits too.
func includes(outer, inner *openapi3.Schema) verdict {
	return includesAt(outer, inner, 0)
}

func includesAt(outer, inner *openapi3.Schema, depth int) verdict {
	switch {
	case outer == inner || outer == nil || annotationOnly(&openapi3.SchemaRef{Value: outer}):
		return yes
	case booleanOf(outer) == "false":
		return verdict{yes: inner != nil && booleanOf(inner) == "false", known: true}
	case inner == nil || booleanOf(inner) == "false":
		return verdict{yes: inner != nil, known: true}
	case depth > 16:
		return cannotTell("schemas nest deeper than compared")
	}
	var ok bool
	if outer, ok = normalForm(outer); !ok {
		return cannotTell("allOf members contradict each other")
	}
	if inner, ok = normalForm(inner); !ok {
		return cannotTell("allOf members contradict each other")
	}
	if alts := slices.Concat(inner.OneOf, inner.AnyOf); len(alts) > 0 {
		// Every alternative's values must be admitted; the holder's own
		// keywords only narrow them.
		return every(alts, func(m *openapi3.Schema) verdict { return includesAt(outer, m, depth+1) })
	}
	if alts := slices.Concat(outer.OneOf, outer.AnyOf); len(alts) > 0 {
		return someAlternative(outer, alts, inner, depth)
	}
	if outer.Not != nil && !sameShape(schemaOf(outer.Not), schemaOf(inner.Not)) {
		return cannotTell("not: a negated schema is not compared")
	}
	for _, v := range []verdict{typesIn(outer, inner), valuesIn(outer, inner), limits(outer, inner), stringKeywords(outer, inner)} {
		if !v.yes {
			return v
		}
	}
	if v := objects(outer, inner, depth); !v.yes {
		return v
	}
	if outer.Items != nil {
		if v := includesAt(schemaOf(outer.Items), schemaOf(inner.Items), depth+1); !v.yes {
			return v
		}
	}
	for _, kw := range rules.Constraining {
		if ov := keyword(outer, kw); set(ov) != "" && !sameValue(ov, keyword(inner, kw)) {
			return cannotTell("%s differs and is not compared", kw)
		}
	}
	return yes
}

// normalForm is x with its allOf merged and a choice of consts as an enum.
func normalForm(x *openapi3.Schema) (*openapi3.Schema, bool) {
	if len(x.AllOf) > 0 {
		m, ok := fold(x, x.AllOf, map[*openapi3.Schema]bool{x: true})
		if !ok {
			return nil, false
		}
		x = m
	}
	return constChoice(x), true
}

// every is yes when f is yes for each alternative, no when it is no for one.
func every(alts openapi3.SchemaRefs, f func(*openapi3.Schema) verdict) verdict {
	out := yes
	for _, m := range alts {
		switch v := f(schemaOf(m)); {
		case v.known && !v.yes:
			return v
		case !v.known:
			out = v
		}
	}
	return out
}

// someAlternative is yes when one alternative of outer admits all of inner.
// A oneOf alternative admits it only when no other can also match (the
// alternatives are told apart); anyOf has no such condition.
func someAlternative(outer *openapi3.Schema, alts openapi3.SchemaRefs, inner *openapi3.Schema, depth int) verdict {
	if len(outer.Properties) > 0 || outer.Type != nil || len(outer.Enum) > 0 {
		return cannotTell("alternatives beside other keywords are not compared")
	}
	out := no
	for j, m := range alts {
		switch v := includesAt(schemaOf(m), inner, depth+1); {
		case v.yes && (len(outer.OneOf) == 0 || wholeApart(schemaOf(m), outer.OneOf, j) != ""):
			return yes
		case v.yes:
			out = cannotTell("a value may match two oneOf alternatives")
		case !v.known:
			out = v
		}
	}
	if out.known {
		// No alternative admits it whole: a value could still match one
		// alternative and another value another; for the declared shapes
		// contracts use, a shape no alternative describes is refused.
		return no
	}
	return out
}

func typesIn(outer, inner *openapi3.Schema) verdict {
	if jsonTypes(outer) == nil {
		return yes
	}
	if jsonTypes(inner) == nil {
		if _, ok := values(inner); ok {
			return yes // valuesIn compares them
		}
		return no
	}
	it := typeSet(inner)
	if nullable(inner) || inner.Type != nil && onlyNull(inner.Type) {
		it = append(it, "null")
	}
	for _, t := range it {
		if !admitsType(outer, t) {
			return no
		}
	}
	return yes
}

// admitsType reports whether x admits values of JSON type t (integers
// are numbers; null is nullable's).
func admitsType(x *openapi3.Schema, t string) bool {
	if t == "null" {
		return nullable(x) || x.Type != nil && onlyNull(x.Type)
	}
	ts := typeSet(x)
	return slices.Contains(ts, t) || t == "integer" && slices.Contains(ts, "number")
}

func valuesIn(outer, inner *openapi3.Schema) verdict {
	ov, ook := values(outer)
	if !ook {
		return yes
	}
	iv, iok := values(inner)
	if !iok {
		return no
	}
	for _, v := range iv {
		if !slices.Contains(ov, v) {
			return no
		}
	}
	return yes
}

// limits compares the numeric keywords: outer's must be as loose as
// inner's on every bound it states.
func limits(outer, inner *openapi3.Schema) verdict {
	within := func(o, i limit, upper bool) bool {
		switch {
		case o.l == nil:
			return true
		case i.l == nil:
			return false
		case upper:
			return i.l.Value < o.l.Value || i.l.Value == o.l.Value && (i.l.Exclusive || !o.l.Exclusive)
		default:
			return i.l.Value > o.l.Value || i.l.Value == o.l.Value && (i.l.Exclusive || !o.l.Exclusive)
		}
	}
	pairs := []struct {
		o, i  limit
		upper bool
	}{
		{u64(outer.MaxLength), u64(inner.MaxLength), true},
		{nonzero(outer.MinLength), nonzero(inner.MinLength), false},
		{bound(outer.Max, outer.ExclusiveMax, -1), bound(inner.Max, inner.ExclusiveMax, -1), true},
		{bound(outer.Min, outer.ExclusiveMin, 1), bound(inner.Min, inner.ExclusiveMin, 1), false},
		{u64(outer.MaxItems), u64(inner.MaxItems), true},
		{nonzero(outer.MinItems), nonzero(inner.MinItems), false},
		{u64(outer.MaxProps), u64(inner.MaxProps), true},
		{nonzero(outer.MinProps), nonzero(inner.MinProps), false},
	}
	for _, p := range pairs {
		if !within(p.o, p.i, p.upper) {
			return no
		}
	}
	if outer.UniqueItems && !inner.UniqueItems {
		return no
	}
	if outer.MultipleOf != nil && (inner.MultipleOf == nil || *inner.MultipleOf != *outer.MultipleOf) {
		return cannotTell("multipleOf differs")
	}
	return yes
}

func stringKeywords(outer, inner *openapi3.Schema) verdict {
	if outer.Pattern != "" && outer.Pattern != inner.Pattern {
		return cannotTell("patterns %q and %q are not compared", outer.Pattern, inner.Pattern)
	}
	if outer.Format != "" && outer.Format != inner.Format {
		return cannotTell("formats %q and %q are not compared", outer.Format, inner.Format)
	}
	return yes
}

// objects compares required properties, declared properties and closure.
func objects(outer, inner *openapi3.Schema, depth int) verdict {
	for _, r := range outer.Required {
		if !slices.Contains(inner.Required, r) {
			return no
		}
	}
	if isClosed(outer) && !isClosed(inner) {
		return no
	}
	out := yes
	for _, name := range sortedKeys(inner.Properties) {
		ip := schemaOf(inner.Properties[name])
		op, declared := outer.Properties[name]
		var v verdict
		switch {
		case declared:
			v = includesAt(schemaOf(op), ip, depth+1)
		case outer.AdditionalProperties.Schema != nil:
			v = includesAt(schemaOf(outer.AdditionalProperties.Schema), ip, depth+1)
		case isClosed(outer) || len(outer.Properties) > 0:
			v = no // a shape outer does not describe
		default:
			v = yes // a free-form object
		}
		if v.known && !v.yes {
			return v
		}
		if !v.known {
			out = v
		}
	}
	return out
}
