package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/contractlint/contractlint/rules"
)

// rangeKeywords are the schema keywords a number fails when its unit or
// scale changed under the same name.
var rangeKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}

// check validates one answer against the operation's documented responses:
// the status first, then headers and body with openapi3filter. A 400 or 422
// to a request built from the contract is a refused request.
func (r *runner) check(ctx context.Context, req *Request, hr *http.Request, resp *http.Response, body []byte) *Problem {
	op, sent := req.Op, hr.Method+" "+hr.URL.RequestURI()
	responses := op.Op.Responses
	if responses == nil || responses.Len() == 0 {
		return nil
	}
	ref := responses.Status(resp.StatusCode)
	if ref == nil {
		ref = responses.Default()
	}
	if ref == nil {
		return &Problem{Rule: rules.ReplayStatusUndocumented, Where: r.doc.FieldLoc(op.Op.Origin, "responses"),
			Message: fmt.Sprintf("%s: %s (%s) was answered %d, a status the contract does not document (it lists %s)",
				opName(op), withBody(sent, req), req.Variant, resp.StatusCode, strings.Join(statuses(responses), ", "))}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: hr,
			Route: &routers.Route{Spec: r.doc.T, Path: op.Template, PathItem: op.Item,
				Method: op.Method, Operation: op.Op},
		},
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return r.mismatch(req, sent, resp.StatusCode, ref, err)
	}
	if hint, ok := refusals[resp.StatusCode]; ok {
		return &Problem{Rule: rules.ReplayRequestRejected, Where: op.Loc,
			Message: fmt.Sprintf("%s: %s (%s) was refused with %d %s; %s",
				opName(op), withBody(sent, req), req.Variant, resp.StatusCode, excerpt(body), hint)}
	}
	return nil
}

// refusals are the answers that say the request itself was not accepted,
// so the documented response proves nothing about what old clients read.
var refusals = map[int]string{
	http.StatusBadRequest:          "a client following the contract sends this (or give replay a value with --fixtures)",
	http.StatusUnprocessableEntity: "a client following the contract sends this (or give replay a value with --fixtures)",
	http.StatusUnauthorized:        "pass the credentials the server wants with -H",
	http.StatusForbidden:           "pass the credentials the server wants with -H",
}

// mismatch turns a validation error into a problem at the schema keyword
// (or the header) that rejected the first mismatching value.
func (r *runner) mismatch(req *Request, sent string, status int, ref *openapi3.ResponseRef, err error) *Problem {
	p := &Problem{Rule: rules.ReplayResponseInvalid, Where: r.doc.KeyLoc(ref.Origin)}
	if ref.Value != nil && ref.Value.Origin != nil {
		p.Where = r.doc.KeyLoc(ref.Value.Origin)
	}
	what := "the body"
	name, isHeader := headerName(err)
	if isHeader {
		p.Pointer, what = "header "+name, "header "+name
		if h := ref.Value.Headers[name]; h != nil && h.Value != nil && h.Value.Origin != nil {
			p.Where = r.doc.KeyLoc(h.Value.Origin)
		}
	}
	var se *openapi3.SchemaError
	var re *openapi3filter.ResponseError
	switch {
	case errors.As(err, &se):
		se = firstLeaf(se)
		if !isHeader {
			p.Pointer = pointer(se)
			what = "the body at " + displayPointer(p.Pointer)
		}
		if se.Schema != nil && se.Schema.Origin != nil {
			p.Where = r.doc.FieldLoc(se.Schema.Origin, se.SchemaField)
		}
		if slices.Contains(rangeKeywords, se.SchemaField) {
			p.Rule = rules.ReplayValueOutOfRange
		}
		err = errors.New(reason(se))
	case errors.As(err, &re):
		err = errors.New(re.Reason)
		if re.Err != nil {
			err = fmt.Errorf("%s: %v", re.Reason, re.Err)
		}
	}
	p.Message = fmt.Sprintf("%s: %s (%s) was answered %d, and %s does not match the contract: %s",
		opName(req.Op), withBody(sent, req), req.Variant, status, what, oneLine(err.Error()))
	if p.Rule == rules.ReplayValueOutOfRange {
		p.Message += "; a unit or scale change under the same name looks like this"
	}
	return p
}

// firstLeaf follows a JSON Schema 2020-12 error (which wraps the errors of
// its subschemas) down to the first concrete mismatch.
func firstLeaf(se *openapi3.SchemaError) *openapi3.SchemaError {
	for {
		var multi openapi3.MultiError
		if !errors.As(se.Origin, &multi) || len(multi) == 0 {
			return se
		}
		var next *openapi3.SchemaError
		if !errors.As(multi[0], &next) {
			return se
		}
		se = next
	}
}

// missingRE reads the property name out of a "required" failure (in the
// words of either validator), whose pointer may stop at the object that
// lacks it.
var missingRE = regexp.MustCompile(`property "([^"]+)" is missing|missing propert(?:y|ies) '([^']+)'`)

// locationRE is the place prefix the validators put before a message.
var locationRE = regexp.MustCompile(`^(?:error at "[^"]*": )?(?:at '[^']*': )?`)

// pointer is the JSON pointer of the mismatching value; for a missing
// required property, of the property itself.
func pointer(se *openapi3.SchemaError) string {
	parts := se.JSONPointer()
	if se.SchemaField == "required" {
		if m := missingRE.FindStringSubmatch(se.Reason); m != nil {
			name := m[1] + m[2]
			if len(parts) == 0 || parts[len(parts)-1] != name {
				parts = append(parts, name)
			}
		}
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}

func displayPointer(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// headerRE finds the header a header validation error is about.
var headerRE = regexp.MustCompile(`header "([^"]+)"`)

// headerName names the header a validation error is about.
func headerName(err error) (string, bool) {
	var re *openapi3filter.ResponseError
	if errors.As(err, &re) {
		if m := headerRE.FindStringSubmatch(re.Reason); m != nil {
			return m[1], true
		}
	}
	return "", false
}

// reason is the validator's message without the location prefix the
// 2020-12 validator repeats.
func reason(se *openapi3.SchemaError) string {
	s := locationRE.ReplaceAllString(se.Reason, "")
	if s == "" {
		s = se.Error()
	}
	return s
}

func statuses(rs *openapi3.Responses) []string {
	var out []string
	for code := range rs.Map() {
		out = append(out, code)
	}
	slices.Sort(out)
	return out
}

// withBody is the request line followed by the body sent, shortened.
func withBody(sent string, req *Request) string {
	if req.Body == nil {
		return sent
	}
	return sent + " " + excerpt(req.Body)
}

// excerpt is text shortened for a one-line message.
func excerpt(b []byte) string {
	s := oneLine(string(b))
	const limit = 120
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
