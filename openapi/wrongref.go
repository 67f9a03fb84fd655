package openapi

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	yaml4 "go.yaml.in/yaml/v4"
	"gopkg.in/yaml.v3"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// wrongKindRE is kin-openapi's refusal of a $ref to a component of another
// kind: `bad data in "#/components/requestBodies/Y" (expecting ref to
// response object)`.
var wrongKindRE = regexp.MustCompile(`bad data in "([^"]*#/components/(\w+)/[^"]+)" \(expecting (?:ref to )?(\w+) object\)`)

// kinds names, in the reader's words, what a components section holds and
// what kin-openapi expected.
var kinds = map[string]string{
	"schemas": "a schema", "schema": "a schema", "responses": "a response", "response": "a response",
	"parameters": "a parameter", "parameter": "a parameter", "examples": "an example", "example": "an example",
	"requestBodies": "a request body", "requestBody": "a request body", "headers": "a header", "header": "a header",
	"securitySchemes": "a security scheme", "securityScheme": "a security scheme", "links": "a link", "link": "a link",
	"callbacks": "a callback", "callback": "a callback", "pathItems": "a path item", "pathItem": "a path item",
}

// wrongKindRef says, at the $ref, that it names a component of another
// kind than its place needs: `api.yaml:15:11: paths./y.post.responses.200:
// $ref to #/components/requestBodies/Y, which is a request body, not a
// response`. nil when msg is not that refusal or the $ref is not found.
func (d *Doc) wrongKindRef(msg string) source.Problems {
	m := wrongKindRE.FindStringSubmatch(msg)
	if m == nil || kinds[m[2]] == "" || kinds[m[3]] == "" {
		return nil
	}
	d.refs.mu.Lock()
	defer d.refs.mu.Unlock()
	for _, name := range slices.Backward(d.refs.names) {
		var doc yaml.Node
		if yaml.Unmarshal(d.refs.text[name], &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		at, n := findRef(doc.Content[0], m[1], nil)
		if n == nil {
			continue
		}
		return source.Errorf(d.display(name), n.Line, n.Column, "%s: $ref to %s, which is %s, not %s",
			strings.Join(at, "."), m[1], kinds[m[2]], kinds[m[3]])
	}
	return nil
}

// findRef finds the `$ref: target` under n, with the keys leading to it.
func findRef(n *yaml.Node, target string, at []string) ([]string, *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Value == target {
				return at, v
			}
			if p, found := findRef(v, target, append(slices.Clip(at), k.Value)); found != nil {
				return p, found
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if p, found := findRef(c, target, at); found != nil {
				return p, found
			}
		}
	}
	return nil, nil
}

// maxWrongKinds bounds the components $ref'd in a place of another kind
// that are read as empty, each a reload of the document.
const maxWrongKinds = 8

// emptyOf is what a $ref to a component of another kind is read as, by the
// kind its place needs, where a reader can go on without it: a response
// or a request body with no content (PagerDuty's REST API has a response
// $ref a request body). Any other kind is refused at the $ref.
var emptyOf = map[string]string{"response": `{"description": ""}`, "requestBody": `{"content": {}}`}

// wrongKinds notes every $ref to err's component that stands where a
// response or a request body belongs (err is kin-openapi's refusal of one),
// so that the next load reads each as an empty one of that kind, with a
// contract-invalid problem at the first. A $ref to the same component in a
// place of its own kind is left alone. false when err is another error,
// the kind has no empty form, or nothing new is found.
func (d *Doc) wrongKinds(err error) bool {
	m := wrongKindRE.FindStringSubmatch(err.Error())
	if m == nil || emptyOf[m[3]] == "" || kinds[m[2]] == "" || len(d.blanks) >= maxTextRefFiles || d.wrongKindReloads >= maxWrongKinds {
		return false // each is a reload: a document naming thousands is refused at the first past the bound
	}
	d.wrongKindReloads++
	target, want := m[1], m[3]
	var first *rules.Invalid
	for _, key := range slices.Sorted(maps.Keys(d.served)) {
		f := d.served[key]
		var root yaml4.Node
		if yaml4.Unmarshal(f.text, &root) != nil {
			continue
		}
		for _, n := range refsPlaced(&root, target, want, nil) {
			sp, ok := mappingSpan(f.text, n)
			if !ok || emptyAt(string(f.text[sp.start:sp.end]), emptyOf[want]) < 0 || slices.ContainsFunc(d.blanks[key], func(b blankSpan) bool { return b.start == sp.start }) {
				return false
			}
			sp.empty = emptyOf[want]
			if d.blanks == nil {
				d.blanks = map[string][]blankSpan{}
			}
			d.blanks[key] = append(d.blanks[key], sp)
			if first == nil {
				loc := d.Loc(&openapi3.Location{File: key, Line: n.Line, Column: n.Column})
				first = &rules.Invalid{Loc: loc, Msg: fmt.Sprintf("$ref to %s, which is %s, where %s belongs: it is read as %s with no content, so it is not compared",
					target, kinds[m[2]], kinds[want], kinds[want])}
			}
		}
	}
	if first == nil {
		return false
	}
	d.bundled = append(d.bundled, *first)
	return true
}

// refsPlaced are the one-entry mappings `{$ref: target}` under n that stand
// where a component of kind want belongs; at holds the keys leading to n.
func refsPlaced(n *yaml4.Node, target, want string, at []string) []*yaml4.Node {
	switch n.Kind {
	case yaml4.DocumentNode, yaml4.SequenceNode:
		var out []*yaml4.Node
		for _, c := range n.Content {
			out = append(out, refsPlaced(c, target, want, at)...)
		}
		return out
	case yaml4.MappingNode:
		if len(n.Content) == 2 && n.Content[0].Value == "$ref" && n.Content[1].Value == target && placeOf(at) == want {
			return []*yaml4.Node{n}
		}
		var out []*yaml4.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, refsPlaced(n.Content[i+1], target, want, append(slices.Clip(at), n.Content[i].Value))...)
		}
		return out
	}
	return nil
}

// placeOf is the kind of component the keys at lead to, of the kinds
// emptyOf knows: an entry of `responses`, or `requestBody` and an entry of
// `requestBodies`.
func placeOf(at []string) string {
	switch {
	case len(at) >= 2 && at[len(at)-2] == "responses":
		return "response"
	case len(at) >= 1 && at[len(at)-1] == "requestBody", len(at) >= 2 && at[len(at)-2] == "requestBodies":
		return "requestBody"
	}
	return ""
}
