package readers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
)

// pactFile is the part of a Pact file (specification V2, V3 or V4) that says
// what a consumer reads.
type pactFile struct {
	Consumer struct {
		Name string `json:"name"`
	} `json:"consumer"`
	Interactions []pactInteraction          `json:"interactions"`
	Metadata     map[string]json.RawMessage `json:"metadata"`
}

type pactInteraction struct {
	Type        string `json:"type"` // V4 only: "Synchronous/HTTP", "Asynchronous/Messages", ...
	Description string `json:"description"`
	Request     struct {
		Method string          `json:"method"`
		Path   string          `json:"path"`
		Body   json.RawMessage `json:"body"`
	} `json:"request"`
	Response struct {
		Status        int             `json:"status"`
		Body          json.RawMessage `json:"body"`
		MatchingRules json.RawMessage `json:"matchingRules"`
	} `json:"response"`
	// V2 kept response matching rules beside the response in some writers.
	ResponseMatchingRules json.RawMessage `json:"responseMatchingRules"`
}

// parsePact lists, for every HTTP interaction, the response fields the
// consumer reads: those in the example body and those its matching rules name.
func parsePact(name string, data []byte, warn func(string)) ([]Entry, error) {
	var p pactFile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, source.Errorf(name, 0, 0, "not a Pact file: %v", err)
	}
	version, err := pactVersion(p.Metadata)
	if err != nil {
		return nil, source.Errorf(name, 0, 0, "%v", err)
	}
	if p.Consumer.Name == "" {
		return nil, source.Errorf(name, 0, 0, "Pact file names no consumer (consumer.name)")
	}
	var out []Entry
	var probs source.Problems
	for i, in := range p.Interactions {
		where := fmt.Sprintf("interaction %d (%q)", i+1, in.Description)
		if version == 4 && in.Type != "" && in.Type != "Synchronous/HTTP" {
			continue // message interactions have no HTTP response to read
		}
		if in.Request.Path == "" || in.Request.Method == "" {
			probs = append(probs, source.Problem{File: name, Msg: where + ": request has no method or path"})
			continue
		}
		if in.Response.Status >= 400 && in.Response.Status < 500 {
			continue // a refused call shows no use of what it was refused
		}
		fields, err := responseFields(in, version, func(msg string) { warn(fmt.Sprintf("%s: %s: %s", name, where, msg)) })
		if err != nil {
			probs = append(probs, source.Problem{File: name, Msg: where + ": " + err.Error()})
			continue
		}
		base := Entry{Consumer: p.Consumer.Name, Method: strings.ToUpper(in.Request.Method), Format: FormatPact,
			Path: in.Request.Path, File: name, Where: where}
		// An interaction that reads no field still tells that the operation
		// is covered by evidence.
		out = append(out, base)
		for _, f := range fields {
			e := base
			e.Field = f
			out = append(out, e)
		}
		// What the consumer sends is evidence too: the request body's fields.
		sent, _ := bodyValue(in.Request.Body, version)
		var reqFields []string
		walkBody(sent, "", func(p string) { reqFields = append(reqFields, p) })
		slices.Sort(reqFields)
		for _, f := range slices.Compact(reqFields) {
			e := base
			e.Field, e.Side = f, Request
			out = append(out, e)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return out, nil
}

// pactVersion reads the specification's major version from the metadata,
// under any of the keys Pact writers have used.
func pactVersion(meta map[string]json.RawMessage) (int, error) {
	var v string
	for _, k := range []string{"pactSpecification", "pact-specification"} {
		var spec struct {
			Version string `json:"version"`
		}
		if raw, ok := meta[k]; ok && json.Unmarshal(raw, &spec) == nil && spec.Version != "" {
			v = spec.Version
		}
	}
	if raw, ok := meta["pactSpecificationVersion"]; ok && v == "" {
		_ = json.Unmarshal(raw, &v)
	}
	if v == "" {
		return 0, fmt.Errorf("not a Pact file: metadata.pactSpecification.version is missing")
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.ToLower(v), "v"), ".")
	switch major {
	case "2":
		return 2, nil
	case "3":
		return 3, nil
	case "4":
		return 4, nil
	}
	return 0, fmt.Errorf("unknown Pact specification version %q (want 2, 3 or 4)", v)
}

func responseFields(in pactInteraction, version int, warn func(string)) ([]string, error) {
	body, err := bodyValue(in.Response.Body, version)
	if err != nil {
		return nil, err
	}
	var fields []string
	walkBody(body, "", func(p string) { fields = append(fields, p) })
	for _, raw := range [][]byte{in.Response.MatchingRules, in.ResponseMatchingRules} {
		fs, err := ruleFields(raw, warn)
		if err != nil {
			return nil, err
		}
		fields = append(fields, fs...)
	}
	slices.Sort(fields)
	return slices.Compact(fields), nil
}

// bodyValue decodes a response body: the JSON value itself (V2, V3), or V4's
// {content, contentType, encoded} wrapper.
func bodyValue(raw json.RawMessage, version int) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("response body: %v", err)
	}
	if version < 4 {
		return v, nil
	}
	w, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("response body: want a V4 body object with content")
	}
	content := w["content"]
	s, isString := content.(string)
	if !isString {
		return content, nil
	}
	switch enc, _ := w["encoded"].(string); strings.ToLower(enc) {
	case "base64":
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("response body: bad base64 content: %v", err)
		}
		s = string(b)
	case "json":
	default:
		if ct, _ := w["contentType"].(string); !strings.Contains(ct, "json") {
			return nil, nil // a text body has no fields
		}
	}
	var inner any
	if json.Unmarshal([]byte(s), &inner) != nil {
		return nil, nil
	}
	return inner, nil
}

// walkBody reports the dotted path of every object key; array elements add
// no name, so items[*].price is items.price.
func walkBody(v any, prefix string, add func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, el := range x {
			p := join(prefix, k)
			add(p)
			walkBody(el, p, add)
		}
	case []any:
		for _, el := range x {
			walkBody(el, prefix, add)
		}
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// ruleFields reads the body paths of matching rules: V2 keys "$.body.x" at
// the top level, V3/V4 keys "$.x" under "body".
func ruleFields(raw json.RawMessage, warn func(string)) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var rules map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rules); err != nil {
		return nil, fmt.Errorf("response matchingRules: want an object: %v", err)
	}
	var out []string
	add := func(expr, root string) {
		if f, ok := jsonPath(expr, root); ok {
			if f != "" {
				out = append(out, f)
			}
		} else {
			warn(fmt.Sprintf("matching rule path %q not understood; ignored", expr))
		}
	}
	if body, ok := rules["body"]; ok {
		var v3 map[string]json.RawMessage
		if err := json.Unmarshal(body, &v3); err != nil {
			return nil, fmt.Errorf("response matchingRules.body: want an object: %v", err)
		}
		for expr := range v3 {
			add(expr, "$")
		}
	}
	for expr := range rules {
		if strings.HasPrefix(expr, "$.body") {
			add(expr, "$.body")
		}
	}
	return out, nil
}

// jsonPath turns a Pact JSONPath below root into a dotted field path:
// $.items[*].price -> items.price, $['first name'] -> first name, $.* -> *.
func jsonPath(expr, root string) (string, bool) {
	rest, ok := strings.CutPrefix(expr, root)
	if !ok {
		return "", false
	}
	var segs []string
	for rest != "" {
		switch {
		case rest[0] == '.':
			rest = rest[1:]
			n := strings.IndexAny(rest, ".[")
			if n < 0 {
				n = len(rest)
			}
			if n == 0 {
				return "", false
			}
			segs, rest = append(segs, rest[:n]), rest[n:]
		case strings.HasPrefix(rest, "['") || strings.HasPrefix(rest, `["`):
			q := rest[1]
			end := strings.Index(rest[2:], string(q)+"]")
			if end < 0 {
				return "", false
			}
			segs, rest = append(segs, rest[2:2+end]), rest[2+end+2:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", false
			}
			rest = rest[end+1:] // an index or [*]: the element adds no name
		default:
			return "", false
		}
	}
	return strings.Join(segs, "."), true
}
