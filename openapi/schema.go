package openapi

import (
	"cmp"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// schema compares two schemas written at path and returns the node holding
// the changes in them; the changes below are reached through its kids. A pair
// is compared once. A $ref cycle that comes back to a pair still being
// compared links to its node, which is complete by the time reach is resolved.
func (d *differ) schema(oref, nref *openapi3.SchemaRef, path string) *node {
	o, n := schemaOf(oref), schemaOf(nref)
	if o == n {
		// Nothing, or one value on both sides (a model built from the
		// other's load shares what did not change, see Patch).
		return nil
	}
	// Wrapping needs a schema on both sides: one appearing from nothing
	// (a parameter that had none) is compared as added, below.
	// A composed schema is the wrapped one when it is the member's $ref:
	// `oneOf: [null, $ref X]` -> `$ref X` only stops admitting null.
	if ow, nw := unwrapNull(oref), unwrapNull(nref); o != nil && n != nil &&
		(ow == nil && nw != nil && (!composed(o) || refTo(oref, nw)) || ow != nil && nw == nil && (!composed(n) || refTo(nref, ow))) {
		return d.wrapped(oref, nref, cmp.Or(ow, oref), cmp.Or(nw, nref), path)
	}
	if o == nil {
		o = &openapi3.Schema{}
	}
	if n == nil {
		n = &openapi3.Schema{}
	}
	p := pair{o, n}
	if nd, ok := d.memo[p]; ok {
		return nd
	}
	nd := &node{}
	d.memo[p] = nd
	s := &sc{d: d, path: path, node: nd}
	if mo, mn, ok := mergeAllOf(o, n); ok {
		s.allOf = &allOfPair{o: o, n: n, mo: mo, mn: mn}
		o, n = mo.s, mn.s
	}
	o, n = constChoice(o), constChoice(n)
	if !composed(o) && composed(n) && (oref != nil && oref.Ref != "" || len(o.Properties) > 0) {
		// Only objects: a scalar that became a choice keeps its type change.
		o = wrapIn(oref, nref, o, n)
	}
	// A $ref'd schema is named by its $ref, as the lowering names it, so an
	// ignore inside a schema file matches the changes found there.
	if nref != nil && nref.Ref != "" {
		s.path = d.new.refPath(nref)
	}
	s.o, s.n = o, n
	s.compare()
	return nd
}

// unwrapNull sees through a schema whose only job is to let another be null
// (or to annotate it): anyOf/oneOf of one member plus {type: "null"}, or
// allOf/anyOf/oneOf of one member beside nullable or a description. It
// returns that member, or nil when ref is not such a wrapper.
func unwrapNull(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	s := schemaOf(ref)
	if s == nil || s.Type != nil && !onlyNull(s.Type) || len(s.Properties) > 0 || s.Items != nil ||
		s.Not != nil || len(s.Enum) > 0 || s.Discriminator != nil {
		return nil
	}
	var member *openapi3.SchemaRef
	lists := 0
	for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
		if len(list) > 0 {
			lists++
		}
		for _, m := range list {
			switch {
			case m == nil || m.Value == nil:
				return nil
			case isNullOnly(m.Value):
				continue
			case member != nil:
				return nil
			}
			member = m
		}
	}
	if lists != 1 || member != nil && member.Ref == "" && onlyValues(member.Value) {
		// A lone const or enum is not a wrapped schema: constChoice reads
		// it as the enum it is.
		return nil
	}
	return member
}

// wrapIn sees an old schema that the new version wrapped in oneOf or anyOf
// (`X` -> `oneOf: [X, Y]`) as the one-member composition it now is, so the
// members are compared (X with X, Y added) instead of X with the wrapper.
func wrapIn(oref, nref *openapi3.SchemaRef, o, n *openapi3.Schema) *openapi3.Schema {
	same := func(m *openapi3.SchemaRef) bool {
		return m != nil && oref != nil && (sameRef(oref, m) || (oref.Ref == "" || m.Ref == "") && sameShape(o, m.Value))
	}
	switch {
	case slices.ContainsFunc(n.OneOf, same):
		return &openapi3.Schema{OneOf: openapi3.SchemaRefs{oref}, Origin: o.Origin}
	case slices.ContainsFunc(n.AnyOf, same):
		return &openapi3.Schema{AnyOf: openapi3.SchemaRefs{oref}, Origin: o.Origin}
	case len(n.OneOf) > 0 && oref != nil && (oref.Ref == "" || nref != nil && sameRef(oref, nref)):
		// No member is the old schema: it was split into alternatives. Each is
		// compared with the old one by position, and the rest are added,
		// rather than the old properties read as removed from the wrapper.
		// Behind one $ref on both sides it is the same schema rewritten, and
		// gives the findings its inline form gives: the old schema stands
		// as an inline member, paired by position like the inline form's.
		if oref.Ref != "" {
			oref = &openapi3.SchemaRef{Value: o}
		}
		return &openapi3.Schema{OneOf: openapi3.SchemaRefs{oref}, Origin: o.Origin}
	}
	return o
}

// refTo reports two $refs to the same schema.
func refTo(a, b *openapi3.SchemaRef) bool { return a != nil && b != nil && sameRef(a, b) }

func composed(s *openapi3.Schema) bool { return s != nil && len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) > 0 }

func onlyNull(t *openapi3.Types) bool { return len(*t) == 1 && t.Is("null") }

// isNullOnly is the {type: "null"} member a nullable wrapper adds.
func isNullOnly(s *openapi3.Schema) bool {
	return s.Type != nil && onlyNull(s.Type) && len(s.Properties) == 0 && len(s.OneOf)+len(s.AnyOf)+len(s.AllOf) == 0
}

// admitsNull says whether a value may be null, seeing through a wrapper.
func admitsNull(ref *openapi3.SchemaRef) bool {
	s := schemaOf(ref)
	if nullable(s) {
		return true
	}
	if inner := unwrapNull(ref); inner != nil {
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
			if slices.ContainsFunc(list, func(m *openapi3.SchemaRef) bool { return isNullOnly(m.Value) }) {
				return true
			}
		}
		return admitsNull(inner)
	}
	return false
}

// wrapped compares a schema with the same schema wrapped to allow null
// (Stripe's `$ref: X` becoming `anyOf: [$ref: X], nullable: true`): the
// members are compared as one schema, and only the nullability is a change.
// Comparing the wrapper itself would invent a removed property for each of
// the member's.
func (d *differ) wrapped(oref, nref, oin, nin *openapi3.SchemaRef, path string) *node {
	p := pair{schemaOf(oref), schemaOf(nref)}
	if nd, ok := d.memo[p]; ok {
		return nd
	}
	nd := &node{}
	d.memo[p] = nd
	if on, nn := admitsNull(oref), admitsNull(nref); on != nn {
		s := &sc{d: d, o: p.o, n: p.n, path: path, node: nd}
		field := "nullable"
		if !p.n.Nullable && !p.o.Nullable {
			field = "anyOf"
		}
		s.flag(rules.AspectNullable, field, on, nn)
	}
	if k := d.schema(oin, nin, path); k != nil {
		nd.kids = append(nd.kids, edge{k, rules.Request | rules.Response})
	}
	return nd
}

// sc is a schema pair being compared, with both documents to locate fields.
type sc struct {
	d    *differ
	o, n *openapi3.Schema
	path string
	node *node
	// allOf is set when the pair's allOf members were merged (normal.go).
	allOf *allOfPair
}

// allOfPair holds both sides as written and as merged.
type allOfPair struct {
	o, n   *openapi3.Schema
	mo, mn merged
}

// own records a change found in this pair.
func (s *sc) own(i int) { s.node.own = append(s.node.own, i) }

// below links the pair compared under this one (nil when neither side has
// it), in every direction.
func (s *sc) below(k *node) { s.belowIn(k, rules.Request|rules.Response) }

func (s *sc) belowIn(k *node, dir rules.Direction) {
	if k != nil {
		s.node.kids = append(s.node.kids, edge{k, dir})
	}
}

// ownIn records a change whose data travels only in dir.
func (s *sc) ownIn(i int, dir rules.Direction) {
	s.d.sent[i] = dir
	s.own(i)
}

// travels says in which directions a property's data goes: readOnly data
// is never sent by clients, writeOnly data never returned to them. A side
// that lacks the property does not constrain it.
func travels(refs ...*openapi3.SchemaRef) rules.Direction {
	dir := rules.Request | rules.Response
	for _, r := range refs {
		if x := schemaOf(r); x != nil {
			if x.ReadOnly {
				dir &^= rules.Request
			}
			if x.WriteOnly {
				dir &^= rules.Response
			}
		}
	}
	if dir == 0 {
		return rules.Request | rules.Response
	}
	return dir
}

// mod records a modified aspect, located at the field that states it.
func (s *sc) mod(aspect rules.Aspect, field, old, new string) {
	s.own(s.d.add(s.change(aspect, field, old, new)))
}

// flag is mod for a boolean aspect, typed.
func (s *sc) flag(aspect rules.Aspect, field string, old, new bool) {
	c := s.change(aspect, field, fmt.Sprint(old), fmt.Sprint(new))
	c.Old.Bool, c.New.Bool = old, new
	s.own(s.d.add(c))
}

// change is a Modified change to this schema's aspect, located at the
// keyword field on both sides.
func (s *sc) change(aspect rules.Aspect, field, old, new string) rules.Change {
	return rules.Change{Kind: rules.Modified, Subject: rules.SubjectSchema,
		Aspect: aspect, Name: subjectName(s.path), Path: s.path, Old: rules.Value{Text: old}, New: rules.Value{Text: new},
		OldLoc: s.d.old.FieldLoc(s.o.Origin, field), NewLoc: s.d.new.FieldLoc(s.n.Origin, field)}
}

func (s *sc) compare() {
	if s.boolean() {
		return
	}
	s.types()
	s.keywords()
	s.bounds()
	s.enum()
	s.properties()
	s.closed()
	s.children()
	s.composition()
	s.discriminator()
}

func (s *sc) types() {
	ot, nt := typeSet(s.o), typeSet(s.n)
	if !slices.Equal(ot, nt) && !slices.Equal(orChoice(ot, s.o), orChoice(nt, s.n)) {
		c := s.change(rules.AspectType, "type", typeText(ot), typeText(nt))
		c.Old.Types, c.New.Types = ot, nt
		s.own(s.d.add(c))
	}
	if s.o.Format != s.n.Format {
		s.mod(rules.AspectFormat, "format", s.o.Format, s.n.Format)
	}
	if on, nn := nullable(s.o), nullable(s.n); on != nn {
		field := "nullable"
		if s.n.Type != nil && s.n.Type.Includes("null") || s.o.Type != nil && s.o.Type.Includes("null") {
			field = "type"
		}
		s.flag(rules.AspectNullable, field, on, nn)
	}
}

// choiceTypes is the types a oneOf/anyOf without a type of its own admits:
// every member's, when every member states one; nil otherwise. A free-form
// object that became a choice of objects is still an object.
func choiceTypes(x *openapi3.Schema) []string {
	var out []string
	for _, m := range slices.Concat(x.OneOf, x.AnyOf) {
		ts := typeSet(schemaOf(m))
		if len(ts) == 0 {
			return nil
		}
		out = append(out, ts...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func orChoice(ts []string, x *openapi3.Schema) []string {
	if len(ts) > 0 {
		return ts
	}
	return choiceTypes(x)
}

func typeText(ts []string) string {
	if len(ts) == 0 {
		return "any"
	}
	return strings.Join(ts, "|")
}

func (s *sc) bounds() {
	s.num(rules.AspectMaxLength, "maxLength", u64(s.o.MaxLength), u64(s.n.MaxLength))
	s.num(rules.AspectMinLength, "minLength", nonzero(s.o.MinLength), nonzero(s.n.MinLength))
	s.num(rules.AspectMaximum, boundField("maximum", s.n.ExclusiveMax), bound(s.o.Max, s.o.ExclusiveMax, -1), bound(s.n.Max, s.n.ExclusiveMax, -1))
	s.num(rules.AspectMinimum, boundField("minimum", s.n.ExclusiveMin), bound(s.o.Min, s.o.ExclusiveMin, 1), bound(s.n.Min, s.n.ExclusiveMin, 1))
	s.num(rules.AspectMaxProperties, "maxProperties", u64(s.o.MaxProps), u64(s.n.MaxProps))
	s.num(rules.AspectMinProperties, "minProperties", nonzero(s.o.MinProps), nonzero(s.n.MinProps))
	s.num(rules.AspectMaxItems, "maxItems", u64(s.o.MaxItems), u64(s.n.MaxItems))
	s.num(rules.AspectMinItems, "minItems", nonzero(s.o.MinItems), nonzero(s.n.MinItems))
	s.num(rules.AspectMultipleOf, "multipleOf", f64(s.o.MultipleOf), f64(s.n.MultipleOf))
	s.num(rules.AspectMinContains, "minContains", u64(s.o.MinContains), u64(s.n.MinContains))
	s.num(rules.AspectMaxContains, "maxContains", u64(s.o.MaxContains), u64(s.n.MaxContains))
	if s.o.UniqueItems != s.n.UniqueItems {
		s.flag(rules.AspectUniqueItems, "uniqueItems", s.o.UniqueItems, s.n.UniqueItems)
	}
	if s.o.Pattern != s.n.Pattern {
		s.mod(rules.AspectPattern, "pattern", s.o.Pattern, s.n.Pattern)
	}
}

// bound is the effective limit of maximum (sign -1) or minimum (sign 1) with
// its exclusive form, 3.0's boolean modifier or 3.1's own number, so that
// moving from `maximum: 10` to `exclusiveMaximum: 10` is seen as narrowing.
func bound(v *float64, ex openapi3.ExclusiveBound, sign float64) limit {
	exclusive := ex.IsTrue()
	if b := ex.Value; b != nil && (v == nil || sign*(*b) >= sign*(*v)) {
		v, exclusive = b, true
	}
	if v == nil {
		return limit{}
	}
	l := &rules.Limit{Value: *v, Exclusive: exclusive}
	return limit{l.String(), l}
}

// boundField is the keyword that states a bound, to locate its change.
func boundField(plain string, ex openapi3.ExclusiveBound) string {
	if ex.Value != nil {
		return "exclusive" + strings.ToUpper(plain[:1]) + plain[1:]
	}
	return plain
}

// limit is one side of a numeric keyword: the text messages show (as
// written: an integer keyword keeps every digit) and the typed value rules
// judge; nil and "" when the side states none.
type limit struct {
	text string
	l    *rules.Limit
}

func (s *sc) num(a rules.Aspect, field string, old, new limit) {
	if (old.l == nil || new.l == nil) && composed(s.o) != composed(s.n) {
		// A value that became oneOf/anyOf (Stripe's expandable ids) keeps
		// its bounds in the members; the type change says what changed.
		return
	}
	if old.text != new.text {
		c := s.change(a, field, old.text, new.text)
		c.Old.Limit, c.New.Limit = old.l, new.l
		s.own(s.d.add(c))
	}
}

func u64(p *uint64) limit {
	if p == nil {
		return limit{}
	}
	return limit{fmt.Sprint(*p), &rules.Limit{Value: float64(*p)}}
}

func nonzero(v uint64) limit {
	if v == 0 {
		return limit{}
	}
	return u64(&v)
}

func f64(p *float64) limit {
	if p == nil {
		return limit{}
	}
	return limit{fmt.Sprint(*p), &rules.Limit{Value: *p}}
}

// enum reports each removed and added value at its own line, and a schema
// that became an enum.
func (s *sc) enum() {
	s.extensible()
	ov, nv := enumStrings(s.o.Enum), enumStrings(s.n.Enum)
	if len(ov) == 0 && len(nv) == 0 {
		return
	}
	if len(ov) == 0 {
		s.mod(rules.AspectEnum, "enum", "", strings.Join(nv, ", "))
		return
	}
	if len(nv) == 0 {
		// No longer an enum: widened for senders, new values for readers.
		s.mod(rules.AspectEnum, "enum", strings.Join(ov, ", "), "")
		return
	}
	for i, v := range ov {
		if !slices.Contains(nv, v) {
			s.value(rules.Removed, v, s.d.old, s.o, i)
		}
	}
	for i, v := range nv {
		if !slices.Contains(ov, v) {
			s.value(rules.Added, v, s.d.new, s.n, i)
		}
	}
}

// extensible reports values removed from x-extensible-enum (Zalando's
// open enum): senders of a removed value are rejected like any enum's, while
// values added to it are what it exists for.
func (s *sc) extensible() {
	list := func(x *openapi3.Schema) []string {
		vs, _ := x.Extensions["x-extensible-enum"].([]any)
		return enumStrings(vs)
	}
	ov, nv := list(s.o), list(s.n)
	if len(nv) == 0 {
		return
	}
	for _, v := range ov {
		if !slices.Contains(nv, v) {
			s.own(s.d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectEnumValue, Name: v, Old: rules.Value{Text: v},
				Path: s.path + "/x-extensible-enum/" + escape(v), OldLoc: s.d.old.FieldLoc(s.o.Origin, "x-extensible-enum")}))
		}
	}
}

func (s *sc) value(k rules.Kind, v string, doc *Doc, x *openapi3.Schema, i int) {
	loc := doc.FieldLoc(x.Origin, "enum")
	if x.Origin != nil {
		if seq := x.Origin.Sequences["enum"]; i < len(seq) {
			loc = doc.Loc(&seq[i])
		}
	}
	c := rules.Change{Kind: k, Subject: rules.SubjectEnumValue, Name: v, Path: s.path + "/enum/" + escape(v)}
	if k == rules.Removed {
		c.OldLoc, c.Old.Text, c.Anchor = loc, v, s.d.new.FieldLoc(s.n.Origin, "enum")
	} else {
		c.NewLoc, c.New.Text = loc, v
	}
	s.own(s.d.add(c))
}

// boolean compares schemas written as `false` (nothing is valid) with the
// rest; there is nothing more to compare when one side is false.
func (s *sc) boolean() bool {
	ob, nb := booleanOf(s.o), booleanOf(s.n)
	if ob != "false" && nb != "false" {
		return false
	}
	if ob != nb {
		c := s.change(rules.AspectBoolean, "", ob, nb)
		c.Old.Bool, c.New.Bool = ob == "false", nb == "false"
		s.own(s.d.add(c))
	}
	return true
}

func booleanOf(x *openapi3.Schema) string {
	if x.Always != nil && !*x.Always {
		return "false"
	}
	return "schema"
}

// keywords compares const and the constraining JSON Schema 2020-12
// keywords, each as set or not and whether its value changed.
func (s *sc) keywords() {
	if oc, nc := constOf(s.o), constOf(s.n); oc != nc {
		s.mod(rules.AspectConst, "const", oc, nc)
	}
	for _, kw := range rules.Constraining {
		ov, nv := keyword(s.o, kw), keyword(s.n, kw)
		if unchanged(ov, nv) {
			continue
		}
		if ov, nv = constraint(s.o, kw, ov), constraint(s.n, kw, nv); unchanged(ov, nv) {
			continue
		}
		s.mod(kw, string(kw), set(ov), set(nv))
	}
}

func constOf(x *openapi3.Schema) string {
	if x.Const == nil {
		return ""
	}
	return valueString(x.Const)
}

// keywordField is the index of each 2020-12 keyword's field in
// openapi3.Schema, found once by its JSON name.
var keywordField = func() map[rules.Aspect]int {
	out := map[rules.Aspect]int{}
	t := reflect.TypeFor[openapi3.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if slices.Contains(rules.Constraining, rules.Aspect(name)) {
			out[rules.Aspect(name)] = i
		}
	}
	return out
}()

// keyword is the value of a 2020-12 keyword.
func keyword(x *openapi3.Schema, kw rules.Aspect) reflect.Value {
	i, ok := keywordField[kw]
	if !ok {
		return reflect.Value{}
	}
	return reflect.ValueOf(x).Elem().Field(i)
}

// constraint is a keyword's value less what constrains nothing beyond the
// rest of the schema: prefixItems that repeat items, and unevaluatedProperties
// as a boolean (true admits all; false is closed()).
// It is consulted only when the written values differ.
func constraint(x *openapi3.Schema, kw rules.Aspect, v reflect.Value) reflect.Value {
	switch {
	case kw == "unevaluatedProperties":
		return reflect.ValueOf(x.UnevaluatedProperties.Schema)
	case kw == "prefixItems" && repeatsItems(x):
		return reflect.Value{}
	}
	return v
}

func unchanged(o, n reflect.Value) bool {
	return set(o) == "" && set(n) == "" || set(o) != "" && set(n) != "" && sameValue(o, n)
}

// repeatsItems reports prefixItems each the same as items: the array
// accepts what it accepted without them.
func repeatsItems(x *openapi3.Schema) bool {
	if x.Items == nil || len(x.PrefixItems) == 0 {
		return false
	}
	for _, p := range x.PrefixItems {
		if p == nil || !sameShape(schemaOf(p), schemaOf(x.Items)) {
			return false
		}
	}
	return true
}

// set is "set" when a keyword's value is present.
func set(v reflect.Value) string {
	if !v.IsValid() || v.IsZero() || (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0 {
		return ""
	}
	return "set"
}

// properties compares properties by name: removed, added (with whether they
// are required), required-ness, the meaning of each, and then their schemas.
func (s *sc) properties() {
	path := s.path + "/properties/"
	for _, name := range sortedKeys(s.o.Properties) {
		oref := s.o.Properties[name]
		nref, ok := s.n.Properties[name]
		ppath := path + escape(name)
		oreq, nreq := slices.Contains(s.o.Required, name), slices.Contains(s.n.Required, name)
		of := s.d.old.Field(name, oref, oreq)
		if !ok {
			s.ownIn(s.d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectField,
				Name: name, Path: ppath, OldLoc: of.Loc, OldField: of, Required: of.Required,
				Anchor: s.d.new.FieldLoc(s.n.Origin, "properties")}), travels(oref))
			continue
		}
		dir := travels(oref, nref)
		nf := s.d.new.Field(name, nref, nreq)
		if oreq != nreq {
			s.ownIn(s.d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectField,
				Aspect: rules.AspectRequired, Name: name, Path: ppath, Old: rules.Value{Text: reqWord(oreq)}, New: rules.Value{Text: reqWord(nreq)}, Required: nreq,
				OldLoc: of.Loc, NewLoc: nf.Loc, OldField: of, NewField: nf}), dir)
		}
		s.access(name, ppath, oref, nref, of, nf)
		if !sameMeaning(of, nf) {
			s.ownIn(s.d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectField,
				Name: name, Path: ppath, OldLoc: of.Loc, NewLoc: nf.Loc, OldField: of, NewField: nf}), dir)
		}
		s.belowIn(s.d.schema(oref, nref, ppath), dir)
	}
	for _, name := range sortedKeys(s.n.Properties) {
		if _, ok := s.o.Properties[name]; ok {
			continue
		}
		nf := s.d.new.Field(name, s.n.Properties[name], slices.Contains(s.n.Required, name))
		s.ownIn(s.d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectField,
			Name: name, Path: path + escape(name), NewLoc: nf.Loc, NewField: nf, New: rules.Value{Text: reqWord(nf.Required)}, Required: nf.Required}),
			travels(s.n.Properties[name]))
	}
}

// access reports a property that became readOnly (clients may no longer
// send it), stopped being readOnly while required (clients never sent it),
// became writeOnly (clients no longer read it), or lost stability. Each is owned by the
// object, in the direction it breaks: the property's own schema is no
// longer reached in that direction.
func (s *sc) access(name, path string, oref, nref *openapi3.SchemaRef, of, nf *rules.Field) {
	o, n := schemaOf(oref), schemaOf(nref)
	if o == nil || n == nil {
		return
	}
	change := func(a rules.Aspect, old, new bool, dir rules.Direction) {
		s.ownIn(s.d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectField, Aspect: a, Name: name, Path: path,
			Old: rules.Value{Text: fmt.Sprint(old), Bool: old}, New: rules.Value{Text: fmt.Sprint(new), Bool: new},
			OldLoc: of.Loc, NewLoc: s.d.new.FieldLoc(n.Origin, string(a)), OldField: of, NewField: nf}), dir)
	}
	switch {
	case !o.ReadOnly && n.ReadOnly:
		change(rules.AspectReadOnly, false, true, rules.Request)
	case o.ReadOnly && !n.ReadOnly && nf.Required:
		change(rules.AspectReadOnly, true, false, rules.Request)
	}
	if !o.WriteOnly && n.WriteOnly {
		change(rules.AspectWriteOnly, false, true, rules.Response)
	}
	if ol, nl, down := lowered(o.Extensions, n.Extensions); down {
		s.own(s.d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectField, Aspect: rules.AspectStability,
			Name: name, Path: path, Old: rules.Value{Text: ol}, New: rules.Value{Text: nl}, OldLoc: of.Loc, NewLoc: s.d.new.FieldLoc(n.Origin, "x-stability-level")}))
	}
}

// sameMeaning compares the facts the evolution rules read (not location).
// Nullability is not among them: it is a schema change of its own
// (response-became-nullable, request-became-not-nullable), and allowing
// null in a request redefines nothing.
func sameMeaning(a, b *rules.Field) bool {
	return a.Type == b.Type && a.Format == b.Format && a.Array == b.Array && a.Map == b.Map &&
		a.Unit == b.Unit && a.Description == b.Description &&
		a.MultipleOf == b.MultipleOf && a.Example == b.Example && a.HasExample == b.HasExample &&
		a.Title == b.Title && a.Pattern == b.Pattern && a.StringExample == b.StringExample &&
		slices.Equal(a.Enum, b.Enum)
}

// closed reports an object that stopped accepting unknown properties.
func (s *sc) closed() {
	if !isClosed(s.o) && isClosed(s.n) {
		field := "additionalProperties"
		if s.n.UnevaluatedProperties.Has != nil && !*s.n.UnevaluatedProperties.Has {
			field = "unevaluatedProperties"
		}
		s.mod(rules.AspectAdditionalProps, field, "open", "closed")
	}
}

func apClosed(ap openapi3.AdditionalProperties) bool { return ap.Has != nil && !*ap.Has }

func isClosed(x *openapi3.Schema) bool {
	ap, up := x.AdditionalProperties.Has, x.UnevaluatedProperties.Has
	return ap != nil && !*ap || up != nil && !*up
}

func (s *sc) children() {
	if s.o.Items != nil || s.n.Items != nil {
		s.below(s.d.schema(s.o.Items, s.n.Items, s.path+"/items"))
	}
	// An open object's extra values are of any type; one that starts (or stops)
	// typing them narrows (or widens) what they may be. A closed side is
	// reported by closed().
	oa, na := s.o.AdditionalProperties, s.n.AdditionalProperties
	if (oa.Schema != nil || na.Schema != nil) && !apClosed(oa) && !apClosed(na) {
		s.below(s.d.schema(oa.Schema, na.Schema, s.path+"/additionalProperties"))
	}
	if s.o.Not != nil && s.n.Not != nil {
		s.below(s.d.schema(s.o.Not, s.n.Not, s.path+"/not"))
	}
}

// composition matches oneOf/anyOf/allOf members by $ref name, else by
// position, and reports members removed or added.
func (s *sc) composition() {
	s.members("oneOf", s.o.OneOf, s.n.OneOf)
	s.members("anyOf", s.o.AnyOf, s.n.AnyOf)
	if s.allOf != nil {
		s.mergedMembers()
		return
	}
	s.members("allOf", s.o.AllOf, s.n.AllOf)
}

// mergedMembers compares the allOf members kept apart by mergeAllOf (the
// same component on both sides) and reports a merged $ref member added or
// removed only when it brings what the other side lacks.
func (s *sc) mergedMembers() {
	a := s.allOf
	// A member paired with one on the other side (inline members left at
	// the same position are the same member edited) is no member added or
	// removed: what changed inside it, the merged comparison reports at
	// the keyword that changed (an enum that gained values is those values
	// added).
	match := pairMembers(a.o.AllOf, a.n.AllOf)
	paired := make([]bool, len(a.n.AllOf))
	for _, j := range match {
		if j >= 0 {
			paired[j] = true
		}
	}
	for i, o := range a.o.AllOf {
		switch {
		case slices.Contains(a.mo.refs, o):
			if j := slices.IndexFunc(a.n.AllOf, func(n *openapi3.SchemaRef) bool { return n != nil && sameRef(o, n) }); j >= 0 {
				s.below(s.d.schema(o, a.n.AllOf[j], fmt.Sprintf("%s/allOf/%d", s.path, i)))
			}
		case match[i] < 0 && foldedNews(o, a.n):
			s.own(s.d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectSchema,
				Aspect: rules.AspectComposition, Name: "allOf " + memberName(o, i), Path: fmt.Sprintf("%s/allOf/%d", s.path, i),
				Old: rules.Value{Text: "allOf"}, OldLoc: s.d.old.refLoc(o)}))
		}
	}
	for j, n := range a.n.AllOf {
		if !paired[j] && !slices.Contains(a.mn.refs, n) && foldedNews(n, a.o) && !annotationOnly(n) {
			s.own(s.d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectSchema,
				Aspect: rules.AspectComposition, Name: "allOf " + memberName(n, j), New: rules.Value{Text: "allOf"},
				Path: fmt.Sprintf("%s/allOf/%d", s.path, j), NewLoc: s.d.new.refLoc(n)}))
		}
	}
}

func (s *sc) members(kw string, old, new openapi3.SchemaRefs) {
	if len(old) == 0 && len(new) == 0 {
		return
	}
	match := pairMembers(old, new)
	matched := make([]bool, len(new))
	for i, o := range old {
		j := match[i]
		mpath := fmt.Sprintf("%s/%s/%d", s.path, kw, i)
		if j < 0 {
			// A member whose values the new schema still admits (one that
			// dropped every constraint admits all) was not removed for
			// senders; one it cannot tell about is reported as such.
			// Only where no alternative is left: while the new schema
			// still offers alternatives, one removed is a shape generated
			// clients can no longer pick.
			v := no
			if kw != "allOf" && len(new) == 0 {
				v = includes(s.n, schemaOf(o))
			}
			if v.yes {
				continue
			}
			s.own(s.d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectSchema,
				Aspect: rules.AspectComposition, Name: kw + " " + memberName(o, i), Path: mpath, Old: rules.Value{Text: kw},
				OldLoc: s.d.old.refLoc(o), Undecided: v.why}))
			continue
		}
		matched[j] = true
		s.below(s.d.schema(o, new[j], mpath))
	}
	for j, n := range new {
		if kw == "allOf" && annotationOnly(n) {
			continue
		}
		if !matched[j] && len(old) > 0 || !matched[j] && kw == "allOf" {
			c := rules.Change{Kind: rules.Added, Subject: rules.SubjectSchema,
				Aspect: rules.AspectComposition, Name: kw + " " + memberName(n, j), New: rules.Value{Text: kw},
				Path: fmt.Sprintf("%s/%s/%d", s.path, kw, j), NewLoc: s.d.new.refLoc(n)}
			if kw == "oneOf" {
				c.ToldApartBy = toldApart(s.n, new, j)
			}
			if kw != "allOf" && includes(s.o, schemaOf(n)).yes {
				// Readers already handle every value it admits: only
				// senders may meet an overlap.
				s.ownIn(s.d.add(c), rules.Request)
				continue
			}
			s.own(s.d.add(c))
		}
	}
}

// annotationOnly reports an inline member that only names or describes:
// as an allOf member it lets every value through, so adding it narrows nothing.
func annotationOnly(m *openapi3.SchemaRef) bool {
	return m != nil && m.Ref == "" && m.Value != nil && sameShape(m.Value, &openapi3.Schema{})
}

// pairMembers matches old members to new ones (-1: none): the same $ref,
// then a $ref to a schema of the same name, then the same schema however written (inlined in one version, $ref'd or
// moved in the other), then inline members left at the same position, which
// are the same member edited.
func pairMembers(old, new openapi3.SchemaRefs) []int {
	match := make([]int, len(old))
	used := make([]bool, len(new))
	for i := range match {
		match[i] = -1
	}
	try := func(same func(o, n *openapi3.SchemaRef, i, j int) bool) {
		for i, o := range old {
			for j, n := range new {
				if match[i] < 0 && !used[j] && o != nil && n != nil && same(o, n, i, j) {
					match[i], used[j] = j, true
				}
			}
		}
	}
	try(func(o, n *openapi3.SchemaRef, _, _ int) bool { return o.Ref != "" && o.Ref == n.Ref })
	try(func(o, n *openapi3.SchemaRef, _, _ int) bool { return sameRef(o, n) })
	// Two different $refs are different members; comparing shapes only where
	// one side is inline keeps this from walking large components.
	try(func(o, n *openapi3.SchemaRef, _, _ int) bool {
		return (o.Ref == "" || n.Ref == "") && sameShape(o.Value, n.Value)
	})
	try(func(o, n *openapi3.SchemaRef, i, j int) bool { return i == j && o.Ref == "" && n.Ref == "" })
	return match
}

// memberName names a oneOf/anyOf/allOf member by what its $ref names: the
// component (`#/components/schemas/Bank`), or, for a schema in a file of its
// own, the file without its extension (`schemas/Bank.yaml`, however the
// $ref spells it), so a split spec's messages read as its bundled form's.
// sameRef reports whether two $refs name the same schema, however spelled:
// `#/components/schemas/Card` in the root, `../openapi.yaml#/components/
// schemas/Card` from an operation's file, `../schemas/Card.yaml` once split.
// Matched, the schemas' changes are compared like any others'.
func sameRef(a, b *openapi3.SchemaRef) bool {
	return a.Ref != "" && b.Ref != "" && (a.Ref == b.Ref || memberName(a, 0) == memberName(b, 0))
}

func memberName(r *openapi3.SchemaRef, i int) string {
	if r.Ref == "" {
		return fmt.Sprintf("#%d", i)
	}
	file, frag, _ := strings.Cut(r.Ref, "#")
	if frag != "" {
		return frag[strings.LastIndex(frag, "/")+1:]
	}
	return fileStem(file)
}

// fileStem is a $ref'd file's name without directory, query or extension,
// percent-decoded: what a bundler names the component it makes of it.
func fileStem(file string) string {
	file, _, _ = strings.Cut(file, "?")
	name := file[strings.LastIndex(file, "/")+1:]
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	if ext := filepath.Ext(name); ext != "" && ext != name {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// freeForm is an object with no properties that admits any: every object.
func freeForm(x *openapi3.Schema) bool {
	return slices.Equal(typeSet(x), []string{"object"}) && len(x.Properties) == 0 && !isClosed(x) &&
		(x.AdditionalProperties.Schema == nil || annotationOnly(x.AdditionalProperties.Schema)) && !composed(x)
}

func (s *sc) discriminator() {
	od, nd := s.o.Discriminator, s.n.Discriminator
	if od == nil || nd == nil {
		if od == nil && nd != nil {
			c := s.d.add(s.change(rules.AspectPropertyName, "discriminator", "", nd.PropertyName))
			if freeForm(s.o) && slices.Equal(choiceTypes(s.n), []string{"object"}) {
				// Readers of any object read each alternative: only senders
				// must now say which one they send.
				s.ownIn(c, rules.Request)
				return
			}
			s.own(c)
		}
		return
	}
	if od.PropertyName != nd.PropertyName {
		s.mod(rules.AspectPropertyName, "discriminator", od.PropertyName, nd.PropertyName)
	}
	for _, k := range sortedKeys(od.Mapping) {
		ov := od.Mapping[k]
		if nv, ok := nd.Mapping[k]; !ok || nv.Ref != ov.Ref {
			s.own(s.d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectDiscriminator,
				Aspect: rules.AspectMapping, Name: k, Path: s.path + "/discriminator/mapping/" + escape(k),
				Old: rules.Value{Text: ov.Ref}, New: rules.Value{Text: nv.Ref}, OldLoc: s.d.old.FieldLoc(s.o.Origin, "discriminator"),
				NewLoc: s.d.new.FieldLoc(s.n.Origin, "discriminator")}))
		}
	}
}

// subjectName names what a schema path is about for messages: the property,
// parameter or component it belongs to, skipping the keywords in between
// (".../parameters/query/limit/schema" is "limit", ".../tags/items" is "tags").
func subjectName(p string) string {
	if file, ok := strings.CutSuffix(p, "#"); ok && file != "" {
		return fileStem(file) // a whole file's schema, named as once bundled
	}
	toks := strings.Split(p, "/")
	for i := len(toks) - 1; i > 0; i-- {
		switch t := toks[i]; {
		case t == "schema" || t == "items" || t == "additionalProperties" || t == "not" ||
			t == "oneOf" || t == "anyOf" || t == "allOf" || isIndex(t):
			continue
		case toks[i-1] == "content":
			return "body"
		case strings.HasSuffix(t, "#"):
			return fileStem(strings.TrimSuffix(t, "#")) // a member of a file's schema
		default:
			return strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
		}
	}
	return p
}

func isIndex(t string) bool {
	return t != "" && strings.Trim(t, "0123456789") == ""
}
