package openapi

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// paramKey identifies a parameter on the wire: header names are
// case-insensitive, and path parameters are known by position, not name.
type paramKey struct{ in, name string }

type param struct {
	p   *openapi3.Parameter
	ref *openapi3.ParameterRef
}

// params merges path-level and operation-level parameters (the operation's win).
// Path parameters are keyed by their position in the template tmpl.
func params(tmpl string, item *openapi3.PathItem, op *openapi3.Operation) map[paramKey]param {
	names := pathParams(tmpl)
	out := map[paramKey]param{}
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			p := ref.Value
			k := paramKey{p.In, p.Name}
			switch p.In {
			case openapi3.ParameterInHeader:
				k.name = strings.ToLower(p.Name)
			case openapi3.ParameterInPath:
				if i := slices.Index(names, p.Name); i >= 0 {
					k.name = "#" + strconv.Itoa(i)
				}
			}
			out[k] = param{p, ref}
		}
	}
	return out
}

// paramLoc is where a parameter is written: for a $ref'd one, in the file
// that defines it, as the operation's lowered parameters place it (so a rule
// that supersedes a parameter finding meets it on the same line, whether
// the parameter is inline or in a file of its own).
func (d *differ) paramLoc(doc *Doc, p param) rules.Location {
	if p.ref.Ref != "" && p.p.Origin != nil && p.p.Origin.Key != nil {
		return doc.KeyLoc(p.p.Origin)
	}
	if p.ref.Origin != nil && p.ref.Origin.Key != nil {
		return doc.Loc(p.ref.Origin.Key)
	}
	return doc.KeyLoc(p.p.Origin)
}

// anchor is the new operation, where a removed parameter is shown.
func (d *differ) parameters(id, base string, old, new map[paramKey]param, anchor rules.Location) {
	var idx []int
	for _, k := range sortedParamKeys(old) {
		o := old[k]
		n, ok := new[k]
		if !ok {
			idx = append(idx, d.paramGone(base, k, o, new, anchor))
			continue
		}
		path := base + "/parameters/" + k.in + "/" + escape(n.p.Name)
		if o.p.Required != n.p.Required && k.in != openapi3.ParameterInPath {
			idx = append(idx, d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectParameter,
				Aspect: rules.AspectRequired, Name: n.p.Name, Path: path, Old: rules.Value{Text: reqWord(o.p.Required)},
				New: rules.Value{Text: reqWord(n.p.Required)}, Required: n.p.Required, In: k.in, OldLoc: d.paramLoc(d.old, o), NewLoc: d.paramLoc(d.new, n)}))
		}
		d.reachSchema(d.schema(asText(o.p.Schema), spread(o.p, n.p), path+"/schema"), id, rules.Request)
	}
	for _, k := range sortedParamKeys(new) {
		if _, ok := old[k]; ok || movedIn(k, old) {
			continue
		}
		n := new[k]
		required := n.p.Required || k.in == openapi3.ParameterInPath
		idx = append(idx, d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectParameter,
			Name: n.p.Name, Old: rules.Value{Text: k.in}, New: rules.Value{Text: reqWord(required)}, Required: required, In: k.in,
			Path: base + "/parameters/" + k.in + "/" + escape(n.p.Name), NewLoc: d.paramLoc(d.new, n)}))
	}
	d.reach(idx, id, rules.Request)
}

// spread is the schema to compare a parameter's old one with: when a single
// value became a list of such values, the list's items, since one value is
// written the same either way (`?status=open` in form style, `open` in
// simple style) and every request clients send still passes.
func spread(o, n *openapi3.Parameter) *openapi3.SchemaRef {
	os, ns := schemaOf(o.Schema), schemaOf(n.Schema)
	if os == nil || ns == nil || ns.Items == nil || primaryType(ns) != "array" || primaryType(os) == "array" || primaryType(os) == "object" {
		return n.Schema
	}
	if o.Style != n.Style || n.Style == openapi3.SerializationDeepObject {
		return n.Schema
	}
	return ns.Items
}

// asText is a parameter's schema as its values travel: text. When string is
// among its types, integer, number and boolean values are strings too on the
// wire (`?id=5`), so a list like [string, integer] is compared as string and
// dropping integer refuses nothing clients send.
func asText(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	s := schemaOf(ref)
	if s == nil || s.Type == nil || !s.Type.Includes("string") || len(*s.Type) < 2 {
		return ref
	}
	text := openapi3.Types{}
	for _, t := range *s.Type {
		switch t {
		case "integer", "number", "boolean":
		default:
			text = append(text, t)
		}
	}
	if len(text) == len(*s.Type) {
		return ref
	}
	c := *s
	c.Type = &text
	return &openapi3.SchemaRef{Ref: ref.Ref, Value: &c}
}

// paramGone reports a removed parameter, or one that moved to another
// location (`in`) under the same name.
func (d *differ) paramGone(base string, k paramKey, o param, new map[paramKey]param, anchor rules.Location) int {
	c := rules.Change{Kind: rules.Removed, Subject: rules.SubjectParameter, Name: o.p.Name,
		Path: base + "/parameters/" + k.in + "/" + escape(o.p.Name), Old: rules.Value{Text: k.in}, In: k.in,
		Required: o.p.Required || k.in == openapi3.ParameterInPath, OldLoc: d.paramLoc(d.old, o), Anchor: anchor}
	for nk, n := range new {
		if strings.EqualFold(nk.name, k.name) && nk.in != k.in {
			c.Kind, c.Aspect, c.Old.Text, c.New.Text = rules.Modified, rules.AspectIn, k.in, nk.in
			c.NewLoc = d.paramLoc(d.new, n)
		}
	}
	return d.add(c)
}

func movedIn(k paramKey, old map[paramKey]param) bool {
	for ok := range old {
		if strings.EqualFold(ok.name, k.name) && ok.in != k.in {
			return true
		}
	}
	return false
}

func sortedParamKeys(m map[paramKey]param) []paramKey {
	keys := make([]paramKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b paramKey) int { return cmp.Or(cmp.Compare(a.in, b.in), cmp.Compare(a.name, b.name)) })
	return keys
}

func reqWord(b bool) string {
	if b {
		return "required"
	}
	return "optional"
}

func (d *differ) requestBody(id, base string, o, n *openapi3.Operation) {
	path := base + "/requestBody"
	var ob, nb *openapi3.RequestBody
	obRef, nbRef := o.RequestBody, n.RequestBody
	if obRef != nil {
		ob = obRef.Value
	}
	if nbRef != nil {
		nb = nbRef.Value
	}
	var idx []int
	switch {
	case nb == nil:
		if ob != nil {
			idx = append(idx, d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectRequestBody,
				Name: "requestBody", Path: path, Old: rules.Value{Text: reqWord(ob.Required)}, Required: ob.Required, OldLoc: d.old.FieldLoc(o.Origin, "requestBody")}))
		}
	case ob == nil:
		if nb.Required {
			idx = append(idx, d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectRequestBody,
				Name: "requestBody", Path: path, New: rules.Value{Text: "required"}, Required: true, NewLoc: d.new.FieldLoc(n.Origin, "requestBody")}))
		}
	default:
		if !ob.Required && nb.Required {
			idx = append(idx, d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectRequestBody,
				Aspect: rules.AspectRequired, Name: "requestBody", Path: path, Old: rules.Value{Text: "optional"}, New: rules.Value{Text: "required"}, Required: true,
				OldLoc: d.old.FieldLoc(ob.Origin, "required"), NewLoc: d.new.FieldLoc(nb.Origin, "required")}))
		}
		d.content(id, path, ob.Content, nb.Content, rules.Request)
	}
	d.reach(idx, id, rules.Request)
}

// content compares media types; a removed one breaks whoever uses it.
func (d *differ) content(id, path string, old, new openapi3.Content, dir rules.Direction) {
	var idx []int
	for _, mt := range sortedKeys(old) {
		om := media(old[mt])
		nm, ok := findMedia(new, mt)
		if !ok && dir.Has(rules.Response) {
			nm, ok = findParameterised(new, mt)
		}
		nm = media(nm)
		mpath := path + "/content/" + escape(mt)
		if !ok {
			idx = append(idx, d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectMediaType,
				Name: mt, Path: mpath, OldLoc: d.old.KeyLoc(om.Origin)}))
			continue
		}
		os, ns := om.Schema, nm.Schema
		if os != nil || ns != nil {
			os, ns = schemaAt(os, om.Origin), schemaAt(ns, nm.Origin)
		}
		d.reachSchema(d.schema(os, ns, mpath+"/schema"), id, dir)
	}
	d.reach(idx, id, dir)
}

// schemaAt stands an empty schema placed at its media type in for a missing
// one, so a change to or from "no schema" points at a line.
func schemaAt(s *openapi3.SchemaRef, at *openapi3.Origin) *openapi3.SchemaRef {
	if s != nil {
		return s
	}
	return &openapi3.SchemaRef{Value: &openapi3.Schema{Origin: at}}
}

// media stands an empty media type in for a null one ("application/json:"
// with nothing under it), which the loader accepts and keeps as nil.
func media(m *openapi3.MediaType) *openapi3.MediaType {
	if m == nil {
		return &openapi3.MediaType{}
	}
	return m
}

func findMedia(c openapi3.Content, mt string) (*openapi3.MediaType, bool) {
	if m, ok := c[mt]; ok {
		return m, true
	}
	for k, m := range c {
		if strings.EqualFold(k, mt) {
			return m, true
		}
	}
	return nil, false
}

// findParameterised finds the media type an unparameterised one became by
// gaining parameters ("application/json" -> "application/json;
// charset=utf-8"): a client that accepts the bare type accepts it too.
func findParameterised(c openapi3.Content, mt string) (*openapi3.MediaType, bool) {
	if strings.Contains(mt, ";") {
		return nil, false
	}
	for _, k := range sortedKeys(c) {
		if base, _, ok := strings.Cut(k, ";"); ok && strings.EqualFold(strings.TrimSpace(base), mt) {
			return c[k], true
		}
	}
	return nil, false
}

// pathParams lists the parameter names of a path template in order.
func pathParams(tmpl string) []string {
	var out []string
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			return out
		}
		out = append(out, tmpl[i+1:j])
		tmpl = tmpl[j+1:]
	}
}
