package openapi

import (
	"cmp"
	"fmt"
	"maps"
	"net/textproto"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Contract lowers the document into the facts single-contract rules read.
// Shared component schemas are lowered once (memoised by schema), and a
// $ref cycle ends at the first schema seen twice.
func (d *Doc) Contract() *rules.Contract {
	if d == nil {
		return &rules.Contract{Format: rules.OpenAPI}
	}
	// A language server's old side is one restricted model for every edit
	// planned alike (see Restrict): it is lowered once.
	d.lowered.once.Do(func() { d.lowered.c = d.lower() })
	return d.lowered.c
}

// lower is the contract d holds.
func (d *Doc) lower() *rules.Contract {
	l := &lowerer{d: d, c: &rules.Contract{Format: rules.OpenAPI},
		schemas: map[*openapi3.Schema]*rules.Schema{}, params: map[*openapi3.Parameter]*rules.Param{}}
	if d == nil || d.T == nil {
		return l.c
	}
	l.c.Invalid = d.Problems
	l.c.Key = l.globalKey()
	if info := d.T.Info; info != nil {
		l.c.Versions = []rules.DeclaredVersion{{What: "info.version", Value: info.Version, Loc: d.FieldLoc(info.Origin, "version")}}
	}
	if d.T.Paths != nil {
		for _, p := range d.T.Paths.InMatchingOrder() {
			l.pathItem(p, d.T.Paths.Value(p))
		}
	}
	// Unreferenced components still declare fields a later version may use.
	if d.T.Components != nil {
		for _, name := range sortedKeys(d.T.Components.Schemas) {
			l.schema(d.T.Components.Schemas[name], "#/components/schemas/"+escape(name), 0)
		}
	}
	slices.SortStableFunc(l.c.Operations, func(a, b *rules.Operation) int { return cmpLoc(a.Loc, b.Loc) })
	return l.c
}

type lowerer struct {
	d       *Doc
	c       *rules.Contract
	schemas map[*openapi3.Schema]*rules.Schema
	params  map[*openapi3.Parameter]*rules.Param
}

// idempotentMethods are safe to repeat by HTTP's definition (RFC 9110 §9.2.2).
var idempotentMethods = []string{"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}

var methodOrder = []string{"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "POST", "PATCH", "DELETE", "CONNECT", "QUERY"}

func (l *lowerer) pathItem(p string, item *openapi3.PathItem) {
	if item == nil {
		return
	}
	ops := item.Operations()
	methods := sortedKeys(ops)
	slices.SortStableFunc(methods, func(a, b string) int {
		return cmp.Compare(methodRank(a), methodRank(b))
	})
	for _, m := range methods {
		l.operation(p, m, item, ops[m])
	}
}

func methodRank(m string) int {
	if i := slices.Index(methodOrder, m); i >= 0 {
		return i
	}
	return len(methodOrder)
}

func (l *lowerer) operation(p, method string, item *openapi3.PathItem, op *openapi3.Operation) {
	if op == nil {
		return
	}
	at := "#/paths/" + escape(p) + "/" + strings.ToLower(method)
	o := &rules.Operation{
		ID:          method + " " + p,
		Method:      method,
		Path:        at,
		Loc:         l.d.KeyLoc(op.Origin),
		Idempotent:  slices.Contains(idempotentMethods, method) || truthy(op.Extensions["x-idempotent"]),
		Description: strings.TrimSpace(op.Summary + "\n" + op.Description),
		Deprecated:  op.Deprecated,
	}
	l.ignores(op.Extensions, op.Origin, at)
	l.c.Operations = append(l.c.Operations, o)
	l.opParams(o, p, at, item, op)
	if o.Key == nil && !o.Idempotent {
		o.Key = l.c.Key
	}
	types := slices.Concat(l.requestBody(o, at, op.RequestBody), l.responses(o, at, op.Responses))
	slices.Sort(types)
	o.MediaTypes = slices.Compact(types)
}

// opParams lowers op's parameters, its own merged over the path item's, in
// (in, name) order, and picks out the Idempotency-Key header.
func (l *lowerer) opParams(o *rules.Operation, p, at string, item *openapi3.PathItem, op *openapi3.Operation) {
	merged := params(p, item, op)
	keys := slices.SortedFunc(maps.Keys(merged), func(a, b paramKey) int {
		return cmp.Or(cmp.Compare(a.in, b.in), cmp.Compare(a.name, b.name))
	})
	for _, k := range keys {
		pr := merged[k]
		prm := l.param(pr.ref, paramPath(pr, p, at, item, op))
		o.Params = append(o.Params, prm)
		if prm.In == openapi3.ParameterInHeader && strings.EqualFold(prm.Name, "Idempotency-Key") {
			o.Key = prm
		}
	}
}

// localRef is ref when it points into the document itself, else "": an
// element in a file of its own (a split spec's responses/ok.yaml) is named
// where it is used, as the diff names it, so an ignore written in that file
// matches the findings about it.
func localRef(ref string) string {
	if strings.HasPrefix(ref, "#") {
		return ref
	}
	return ""
}

// requestBody lowers the body's schemas and returns its media types; the
// first media type's top-level properties are the request's fields.
func (l *lowerer) requestBody(o *rules.Operation, at string, ref *openapi3.RequestBodyRef) []string {
	if ref == nil || ref.Value == nil {
		return nil
	}
	base := cmp.Or(localRef(ref.Ref), at+"/requestBody")
	var types []string
	for _, mt := range sortedKeys(ref.Value.Content) {
		types = append(types, mt)
		sr, sat := media(ref.Value.Content[mt]).Schema, base+"/content/"+escape(mt)+"/schema"
		l.schema(sr, sat, rules.Request)
		if o.RequestFields == nil {
			o.RequestFields = l.topFields(sr, sat)
		}
	}
	return types
}

// responses lowers op's responses in status order and returns their media types.
func (l *lowerer) responses(o *rules.Operation, at string, rs *openapi3.Responses) []string {
	if rs == nil {
		return nil
	}
	var types []string
	m := rs.Map()
	for _, status := range sortedKeys(m) {
		rr := m[status]
		if rr == nil || rr.Value == nil {
			continue
		}
		r, ts := l.response(status, rr, cmp.Or(localRef(rr.Ref), at+"/responses/"+escape(status)))
		o.Responses = append(o.Responses, r)
		types = append(types, ts...)
	}
	return types
}

func (l *lowerer) response(status string, rr *openapi3.ResponseRef, base string) (*rules.OpResponse, []string) {
	r := &rules.OpResponse{Status: status, Loc: l.d.KeyLoc(originOf(rr.Origin, rr.Value.Origin))}
	for _, name := range sortedKeys(rr.Value.Headers) {
		canon := textproto.CanonicalMIMEHeaderKey(name)
		r.Headers = append(r.Headers, canon)
		if h := rr.Value.Headers[name]; canon == "Vary" && h != nil && h.Value != nil {
			r.Vary = headerText(&h.Value.Parameter)
		}
	}
	var types []string
	for _, mt := range sortedKeys(rr.Value.Content) {
		types = append(types, mt)
		l.schema(media(rr.Value.Content[mt]).Schema, base+"/content/"+escape(mt)+"/schema", rules.Response)
	}
	return r, types
}

// headerText gathers everything that documents a header's value: a Vary
// header may say what it names in its description, example, enum or default.
func headerText(p *openapi3.Parameter) string {
	parts := []string{p.Description}
	if p.Example != nil {
		parts = append(parts, fmt.Sprint(p.Example))
	}
	if p.Schema != nil && p.Schema.Value != nil {
		s := p.Schema.Value
		parts = append(parts, s.Description)
		for _, v := range slices.Concat(s.Enum, []any{s.Default, s.Example}) {
			if v != nil {
				parts = append(parts, fmt.Sprint(v))
			}
		}
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), " ")
}

// paramPath is the JSON pointer where a parameter is declared: the $ref
// target for a shared component, else its place in the path item or operation.
func paramPath(pr param, p, opAt string, item *openapi3.PathItem, op *openapi3.Operation) string {
	if r := localRef(pr.ref.Ref); r != "" {
		return r
	}
	if i := slices.Index(op.Parameters, pr.ref); i >= 0 {
		return fmt.Sprintf("%s/parameters/%d", opAt, i)
	}
	return fmt.Sprintf("#/paths/%s/parameters/%d", escape(p), slices.Index(item.Parameters, pr.ref))
}

// param lowers a parameter once: a component shared by many operations is
// one Param, so findings about it collapse into one.
func (l *lowerer) param(ref *openapi3.ParameterRef, at string) *rules.Param {
	p := ref.Value
	if x, ok := l.params[p]; ok {
		return x
	}
	x := &rules.Param{Name: p.Name, In: p.In, Required: p.Required, MaxLength: -1,
		Loc: l.d.KeyLoc(p.Origin), Path: at, Description: p.Description}
	if ref.Ref == "" {
		x.Loc = l.d.KeyLoc(originOf(ref.Origin, p.Origin))
	}
	sr := p.Schema
	if sr == nil {
		for _, mt := range sortedKeys(p.Content) {
			sr = media(p.Content[mt]).Schema
			break
		}
	}
	if sr != nil && sr.Value != nil {
		x.Type = primaryType(sr.Value)
		if sr.Value.MaxLength != nil {
			x.MaxLength = int(min(*sr.Value.MaxLength, 1<<31-1))
		}
		if x.Description == "" {
			x.Description = sr.Value.Description
		}
	}
	l.params[p] = x
	l.ignores(p.Extensions, p.Origin, at)
	return x
}

// schema lowers the schema at sr (written at `at`) and everything below it,
// reached in direction dir. A schema seen before only gains the direction.
func (l *lowerer) schema(sr *openapi3.SchemaRef, at string, dir rules.Direction) {
	if sr == nil || sr.Value == nil {
		return
	}
	s := sr.Value
	if sr.Ref != "" {
		at = l.d.refPath(sr)
	}
	n, seen := l.schemas[s]
	if seen && n.Dir&dir == dir {
		return
	}
	if !seen {
		n = l.newSchema(sr, at)
	}
	n.Dir |= dir
	for _, name := range sortedKeys(s.Properties) {
		l.schema(s.Properties[name], at+"/properties/"+escape(name), dir)
	}
	l.schema(s.Items, at+"/items", dir)
	l.schema(s.AdditionalProperties.Schema, at+"/additionalProperties", dir)
	for _, kw := range []struct {
		name string
		list openapi3.SchemaRefs
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i, x := range kw.list {
			l.schema(x, fmt.Sprintf("%s/%s/%d", at, kw.name, i), dir)
		}
	}
}

func (l *lowerer) newSchema(sr *openapi3.SchemaRef, at string) *rules.Schema {
	s := sr.Value
	n := &rules.Schema{Path: at, Title: s.Title, Loc: l.d.KeyLoc(s.Origin)}
	l.schemas[s] = n
	l.ignores(s.Extensions, s.Origin, at)
	if sr.Ref == "" && sr.Extensions != nil {
		l.ignores(sr.Extensions, sr.Origin, at)
	}
	if isClosed(s) {
		field := "additionalProperties"
		if s.UnevaluatedProperties.Has != nil && !*s.UnevaluatedProperties.Has {
			field = "unevaluatedProperties"
		}
		n.Closed, n.ClosedLoc = true, l.d.FieldLoc(s.Origin, field)
	}
	for _, v := range s.Enum {
		n.Enum = append(n.Enum, fmt.Sprint(v))
	}
	if len(n.Enum) > 0 {
		// Only an enum's description matters, and the expression over every
		// schema's description was 5 % of a run on Stripe's spec.
		_, ext := s.Extensions["x-extensible-enum"]
		n.EnumExtensible = ext || unknownValuesRE.MatchString(s.Description)
	}
	for _, name := range sortedKeys(s.Properties) {
		f := l.field(name, s.Properties[name], at+"/properties/"+escape(name), slices.Contains(s.Required, name))
		n.Fields = append(n.Fields, f)
		l.c.Fields = append(l.c.Fields, f)
	}
	if isObject(s) || len(n.Enum) > 0 {
		l.c.Schemas = append(l.c.Schemas, n)
	}
	return n
}

// unknownValuesRE finds the sentence that tells clients what to do with an
// enum value they do not know yet.
var unknownValuesRE = regexp.MustCompile(`(?i)\b(unknown|unrecognized|unrecognised|unexpected|new|future|additional)\s+values?\b`)

func (l *lowerer) field(name string, sr *openapi3.SchemaRef, at string, required bool) *rules.Field {
	f := l.d.Field(name, sr, required)
	f.Path = at
	return f
}

// topFields lists the properties a request body itself carries (its own and
// those of allOf parts), leaving out read-only ones the server fills.
func (l *lowerer) topFields(sr *openapi3.SchemaRef, at string) []*rules.Field {
	if sr == nil || sr.Value == nil {
		return nil
	}
	if sr.Ref != "" {
		at = l.d.refPath(sr)
	}
	var out []*rules.Field
	s := sr.Value
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if p == nil || p.Value == nil || p.Value.ReadOnly {
			continue
		}
		out = append(out, l.field(name, p, at+"/properties/"+escape(name), slices.Contains(s.Required, name)))
	}
	for i, part := range s.AllOf {
		if part != nil && part.Value != s {
			out = append(out, l.topFields(part, fmt.Sprintf("%s/allOf/%d", at, i))...)
		}
	}
	return out
}

// ignores records x-contractlint-ignore: {rule-id: reason} on a node. A
// missing reason is kept empty so the loader can refuse it with its place.
func (l *lowerer) ignores(ext map[string]any, o *openapi3.Origin, scope string) {
	v, ok := ext["x-contractlint-ignore"]
	if !ok {
		return
	}
	loc := l.d.FieldLoc(o, "x-contractlint-ignore")
	m, ok := v.(map[string]any)
	if !ok {
		// A bare rule id, or a list of them, has no reason: record each so
		// the missing reason is reported rather than silently dropped.
		for _, id := range idsOf(v) {
			l.c.Ignores = append(l.c.Ignores, rules.Ignore{Rule: id, Scope: scope, Loc: loc})
		}
		return
	}
	for _, id := range sortedKeys(m) {
		for _, e := range ignoreEntries(m[id]) {
			l.c.Ignores = append(l.c.Ignores, rules.Ignore{Rule: id, Reason: e.reason, Element: e.element, Owner: e.owner, Scope: scope, Loc: loc})
		}
	}
}

type ignoreEntry struct{ element, reason, owner string }

// ignoreEntries reads what one rule's ignore accepts: a reason (the whole
// node), or {element, reason, owner} (element and owner optional), or a
// list of those. Anything else is kept with an empty reason, so the loader
// refuses it at its place.
func ignoreEntries(v any) []ignoreEntry {
	switch x := v.(type) {
	case string:
		return []ignoreEntry{{reason: strings.TrimSpace(x)}}
	case map[string]any:
		el, _ := x["element"].(string)
		reason, _ := x["reason"].(string)
		owner, _ := x["owner"].(string)
		known := 1
		for _, k := range []string{"element", "owner"} {
			if _, ok := x[k]; ok {
				known++
			}
		}
		if len(x) > known {
			reason = "" // an unknown key: refuse rather than guess
		}
		return []ignoreEntry{{element: strings.TrimSpace(el), reason: strings.TrimSpace(reason), owner: strings.TrimSpace(owner)}}
	case []any:
		var out []ignoreEntry
		for _, e := range x {
			out = append(out, ignoreEntries(e)...)
		}
		if len(out) > 0 {
			return out
		}
	}
	return []ignoreEntry{{}}
}

func idsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return []string{fmt.Sprint(v)}
}

func isObject(s *openapi3.Schema) bool {
	return s.Type.Includes(openapi3.TypeObject) || len(s.Properties) > 0 ||
		s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(x, "true")
	}
	return false
}

func originOf(os ...*openapi3.Origin) *openapi3.Origin {
	for _, o := range os {
		if o != nil && o.Key != nil {
			return o
		}
	}
	return nil
}

func cmpLoc(a, b rules.Location) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
}

// IgnoreProblems reports every x-contractlint-ignore in c that gives no
// reason as an input error at its line: an unexplained suppression cannot be
// reviewed, so it is refused like a malformed document.
func IgnoreProblems(c *rules.Contract) error {
	var ps source.Problems
	for _, ig := range c.Unexplained() {
		msg := fmt.Sprintf("x-contractlint-ignore of %q needs a reason: {%s: \"why this is fine\"}", ig.Rule, ig.Rule)
		if strings.TrimSpace(ig.Reason) != "" {
			msg = fmt.Sprintf("x-contractlint-ignore of %q needs a reason, not the placeholder %q: write why no client breaks", ig.Rule, ig.Reason)
		}
		ps = append(ps, source.Problem{File: ig.Loc.File, Line: ig.Loc.Line, Column: ig.Loc.Column, Msg: msg})
	}
	if len(ps) == 0 {
		return nil
	}
	return ps
}
