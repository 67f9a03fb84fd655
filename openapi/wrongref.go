package openapi

import (
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
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
