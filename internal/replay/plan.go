package replay

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// Operation is one operation of the contract, with what validation needs.
type Operation struct {
	// ID is "METHOD /template", as every finding names operations.
	ID       string
	Name     string // operationId, or ID without one
	Method   string
	Template string
	Item     *openapi3.PathItem
	Op       *openapi3.Operation
	Loc      rules.Location
}

// Request is one planned request. Param values are strings as they go on
// the wire; a path parameter may be replaced at send time by a value an
// earlier response carried (Feeds names where it would come from).
type Request struct {
	Op      *Operation
	Variant string
	Path    map[string]string
	Query   [][2]string
	Header  http.Header
	Body    []byte
	// ContentType is the body's media type ("" without a body).
	ContentType string
	// Feeds maps a path parameter to the collection path whose earlier
	// response supplies it.
	Feeds map[string]string
}

// Skip is an operation the plan leaves out, and why.
type Skip struct {
	Op     *Operation
	Reason string
}

// Plan is every request a run will send, in order, and what it will not.
type Plan struct {
	Requests []*Request
	Skipped  []Skip
}

// Options are what planning needs beyond the contract.
type Options struct {
	Fixtures Fixtures
	// SideEffects allows operations other than GET, HEAD and OPTIONS.
	SideEffects bool
}

// safe methods change nothing on the server; everything else needs
// --allow-side-effects.
var safe = []string{http.MethodGet, http.MethodHead, http.MethodOptions}

// NewPlan derives the requests for every operation of doc: one from the
// operation's examples when it has any, one from its schemas with required
// fields only, one with all fields (identical requests are sent once). A
// fixture's body replaces the derived ones, and its parameters override
// every variant's. Operations are ordered so that what creates a resource
// comes before what reads, changes or deletes it.
func NewPlan(doc *openapi.Doc, o Options) *Plan {
	p := &Plan{}
	ops := operations(doc)
	for _, op := range ops {
		if !o.SideEffects && !slices.Contains(safe, op.Method) {
			p.Skipped = append(p.Skipped, Skip{op, op.Method + " changes state on the server; pass --allow-side-effects to send it"})
			continue
		}
		fx := o.Fixtures.of(op)
		reqs, why := variants(op, fx)
		if why != "" {
			p.Skipped = append(p.Skipped, Skip{op, why})
			continue
		}
		for _, r := range reqs {
			r.Feeds = feeds(r, p.Requests, fx)
			if !slices.ContainsFunc(p.Requests, r.same) {
				p.Requests = append(p.Requests, r)
			}
		}
	}
	return p
}

// operations lists doc's operations in send order: by method (POST creates,
// then PUT, PATCH, reads, and DELETE last), then by path depth, so a
// collection comes before its members.
func operations(doc *openapi.Doc) []*Operation {
	var ops []*Operation
	if doc.T == nil || doc.T.Paths == nil {
		return nil
	}
	for tmpl, item := range doc.T.Paths.Map() {
		for method, op := range item.Operations() {
			o := &Operation{ID: method + " " + tmpl, Name: op.OperationID, Method: method, Template: tmpl,
				Item: item, Op: op, Loc: doc.KeyLoc(op.Origin)}
			if o.Name == "" {
				o.Name = o.ID
			}
			ops = append(ops, o)
		}
	}
	slices.SortFunc(ops, func(a, b *Operation) int {
		return cmp.Or(
			cmp.Compare(sendRank(a.Method), sendRank(b.Method)),
			cmp.Compare(strings.Count(a.Template, "/"), strings.Count(b.Template, "/")),
			cmp.Compare(a.Template, b.Template),
		)
	})
	return ops
}

func sendRank(method string) int {
	order := []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodGet, http.MethodHead, http.MethodOptions}
	if i := slices.Index(order, method); i >= 0 {
		return i
	}
	return len(order) // DELETE, TRACE and the rest
}

// variants builds the operation's requests, or says why it cannot.
func variants(op *Operation, fx *Fixture) ([]*Request, string) {
	mt, media, why := bodyMedia(op.Op)
	if why != "" {
		return nil, why
	}
	var out []*Request
	add := func(variant string, pick func(*openapi3.Parameter) (any, bool), body func() (any, bool)) {
		r := &Request{Op: op, Variant: variant, Path: map[string]string{}, Header: http.Header{}}
		params(op, r, pick)
		if fx != nil && fx.Body != nil {
			r.Variant += ", fixture body"
			r.setBody(mt, fx.Body)
		} else if v, ok := body(); ok {
			r.setBody(mt, v)
		}
		if fx != nil && len(fx.Params) > 0 {
			r.Variant += ", fixture params"
			r.override(op, fx.Params)
		}
		out = append(out, r)
	}
	if hasExamples(op, media) {
		add("examples", paramExample, func() (any, bool) { return mediaExample(media) })
	}
	for _, f := range []fill{requiredOnly, allFields} {
		name := map[fill]string{requiredOnly: "required fields", allFields: "all fields"}[f]
		add(name, derivedParam(f), func() (any, bool) {
			if media == nil || media.Schema == nil {
				return nil, false
			}
			return derive(media.Schema, f), true
		})
	}
	return out, ""
}

// bodyMedia picks the request body's media type: JSON first, then a form.
// A body that can only be sent in another media type (multipart, a file)
// is left out when it is optional, and the operation skipped when it is
// required.
func bodyMedia(op *openapi3.Operation) (string, *openapi3.MediaType, string) {
	if op.RequestBody == nil || op.RequestBody.Value == nil || len(op.RequestBody.Value.Content) == 0 {
		return "", nil, ""
	}
	content := op.RequestBody.Value.Content
	names := make([]string, 0, len(content))
	for name := range content {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, want := range []func(string) bool{isJSON, isForm} {
		for _, name := range names {
			if want(name) {
				return name, content[name], ""
			}
		}
	}
	if !op.RequestBody.Value.Required {
		return "", nil, ""
	}
	return "", nil, fmt.Sprintf("its request body is %s; replay builds JSON and form bodies only", strings.Join(names, ", "))
}

func isJSON(mediaType string) bool {
	mt := baseType(mediaType)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func isForm(mediaType string) bool { return baseType(mediaType) == "application/x-www-form-urlencoded" }

func baseType(mediaType string) string {
	mt, _, _ := strings.Cut(strings.ToLower(mediaType), ";")
	return strings.TrimSpace(mt)
}

func hasExamples(op *Operation, media *openapi3.MediaType) bool {
	if media != nil && (media.Example != nil || len(media.Examples) > 0) {
		return true
	}
	return slices.ContainsFunc(allParams(op), func(p *openapi3.Parameter) bool {
		_, ok := paramExample(p)
		return ok
	})
}

// mediaExample is the body's example, or its first named example.
func mediaExample(media *openapi3.MediaType) (any, bool) {
	if media == nil {
		return nil, false
	}
	if v, ok := firstExample(media.Example, media.Examples); ok {
		return v, true
	}
	if media.Schema != nil {
		return derive(media.Schema, requiredOnly), true
	}
	return nil, false
}

// paramExample is a parameter's own example.
func paramExample(p *openapi3.Parameter) (any, bool) {
	if p == nil {
		return nil, false
	}
	return firstExample(p.Example, p.Examples)
}

// firstExample is example, else the value of the first of the named
// examples (by name, so a run is repeatable).
func firstExample(example any, examples openapi3.Examples) (any, bool) {
	if example != nil {
		return example, true
	}
	names := make([]string, 0, len(examples))
	for name := range examples {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if ex := examples[name]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			return ex.Value.Value, true
		}
	}
	return nil, false
}

func derivedParam(f fill) func(*openapi3.Parameter) (any, bool) {
	return func(p *openapi3.Parameter) (any, bool) {
		if p == nil || (!p.Required && f == requiredOnly) {
			return nil, false
		}
		if v, ok := paramExample(p); ok {
			return v, true
		}
		if p.Schema == nil {
			return "replay", true
		}
		return derive(p.Schema, f), true
	}
}

// params fills the request's parameters (path-level ones first, overridden
// by the operation's). A path parameter always gets a value.
func params(op *Operation, r *Request, pick func(*openapi3.Parameter) (any, bool)) {
	for _, p := range allParams(op) {
		v, ok := pick(p)
		if !ok && p.In == openapi3.ParameterInPath {
			v, ok = derivedParam(requiredOnly)(p)
		}
		if ok {
			r.set(p, v)
		}
	}
}

func allParams(op *Operation) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	for _, list := range []openapi3.Parameters{op.Item.Parameters, op.Op.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			p := ref.Value
			out = slices.DeleteFunc(out, func(q *openapi3.Parameter) bool { return q.In == p.In && q.Name == p.Name })
			out = append(out, p)
		}
	}
	return out
}

// set places one parameter value; an array in a query repeats the name.
func (r *Request) set(p *openapi3.Parameter, v any) {
	switch p.In {
	case openapi3.ParameterInPath:
		r.Path[p.Name] = scalar(v)
	case openapi3.ParameterInQuery:
		r.Query = slices.DeleteFunc(r.Query, func(kv [2]string) bool { return kv[0] == p.Name })
		if list, ok := v.([]any); ok {
			for _, x := range list {
				r.Query = append(r.Query, [2]string{p.Name, scalar(x)})
			}
			return
		}
		r.Query = append(r.Query, [2]string{p.Name, scalar(v)})
	case openapi3.ParameterInHeader:
		r.Header.Set(p.Name, scalar(v))
	case openapi3.ParameterInCookie:
		r.Header.Add("Cookie", p.Name+"="+scalar(v))
	}
}

// override applies a fixture's parameters by name; a name the operation
// does not declare is ignored here (Fixtures.Check reports it).
func (r *Request) override(op *Operation, values map[string]any) {
	for _, p := range allParams(op) {
		if v, ok := values[p.Name]; ok {
			r.set(p, v)
		}
	}
}

// scalar renders a parameter value as it goes on the wire.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.Trim(b, `"`))
}

func (r *Request) setBody(mediaType string, v any) {
	if isForm(mediaType) {
		r.Body, r.ContentType = []byte(formEncode(v)), mediaType
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.Body, r.ContentType = b, mediaType
}

// formEncode writes an object as a form, as OpenAPI's default form
// encoding does: each property its own field, an array's items repeated
// under its name, a nested object's properties as name[property].
func formEncode(v any) string {
	q := url.Values{}
	var add func(key string, v any)
	add = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if key != "" {
					k = key + "[" + k + "]"
				}
				add(k, y)
			}
		case []any:
			for _, y := range x {
				add(key, y)
			}
		default:
			if key != "" {
				q.Add(key, scalar(x))
			}
		}
	}
	add("", v)
	return q.Encode()
}

// same reports whether two planned requests would send the same thing.
func (r *Request) same(o *Request) bool {
	return r.Op == o.Op && fmt.Sprint(r.Path, r.Query, r.sentHeader()) == fmt.Sprint(o.Path, o.Query, o.sentHeader()) &&
		bytes.Equal(r.Body, o.Body)
}

// sentHeader is the planned header as it counts for sameness: a request
// that gets a fresh Idempotency-Key when sent is not made different by the
// value planned for it (else one fixture body would be created twice).
func (r *Request) sentHeader() http.Header {
	if !freshKey(r.Op) {
		return r.Header
	}
	h := r.Header.Clone()
	h.Del("Idempotency-Key")
	return h
}

// freshKey reports whether op's requests carry a fresh Idempotency-Key:
// every POST, and every operation that declares the header.
func freshKey(op *Operation) bool {
	return op.Method == http.MethodPost || declares(op, "Idempotency-Key")
}

// feeds finds, for each path parameter, the collection path an earlier
// planned request answers about: "/v1/charges" for the id in
// "/v1/charges/{id}". Its response's id (or a field named like the
// parameter) replaces the derived value when the request is sent.
func feeds(r *Request, earlier []*Request, fx *Fixture) map[string]string {
	out := map[string]string{}
	for name := range r.Path {
		if _, given := fx.param(name); given {
			continue // a fixture's value wins
		}
		prefix, _, ok := strings.Cut(r.Op.Template, "/{"+name+"}")
		if !ok {
			continue
		}
		if slices.ContainsFunc(earlier, func(e *Request) bool { return e.Op.Template == prefix }) {
			out[name] = prefix
		}
	}
	return out
}

// Write prints the plan: every request in order, then what is left out.
func (p *Plan) Write(w io.Writer, clean func(string) string) {
	for i, r := range p.Requests {
		fmt.Fprintf(w, "  %d. %s (%s): %s\n", i+1, clean(r.Op.ID), clean(r.Op.Name), clean(r.describe()))
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  not sent: %s (%s): %s\n", clean(s.Op.ID), clean(s.Op.Name), clean(s.Reason))
	}
}

// describe names the variant and where path values will come from.
func (r *Request) describe() string {
	s := r.Variant
	names := make([]string, 0, len(r.Feeds))
	for name := range r.Feeds {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s += fmt.Sprintf("; %s from an earlier response of %s", name, r.Feeds[name])
	}
	return s
}
