package openapi

import (
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/places"
)

// nameMaps are the keys whose values map names the author chose to
// elements: an x- name there is a property, a schema or a media type, not
// an extension, and its $ref is followed.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true,
	"schemas": true, "parameters": true, "requestBodies": true, "responses": true, "headers": true,
	"examples": true, "links": true, "callbacks": true, "pathItems": true, "securitySchemes": true,
	"content": true, "encoding": true, "variables": true, "mapping": true, "webhooks": true, "paths": true,
}

// schemaMaps are the keys whose values map names to schemas.
var schemaMaps = map[string]bool{"schemas": true, "properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// DataRefLines lists the lines of the YAML or JSON text b whose every $ref
// sits where the loader reads data, never a $ref: under an extension (an
// x- key that is not a name in a map of named elements), which kin-openapi
// keeps as it is written; in an example's value; in a tag's description,
// which the loader reports as a string written as a $ref and reads no file
// for. Dropbox Sign's export leaves out the files its $refs there name (its
// x-codeSamples' sources, its example values and tag descriptions). nil
// when b does not parse as YAML.
//
// Given lines, it answers for those alone (others may be listed too),
// parsing only the entries of block YAML that hold them (places.Lazy): a
// whole parse of Dropbox Sign's 550 KB spec was a quarter of a diff's CPU.
func DataRefLines(b []byte, lines ...int) map[int]bool {
	if len(lines) == 0 {
		return wholeDataRefLines(b)
	}
	lz := places.NewLazy(b)
	out := map[int]bool{}
	done := map[int]bool{} // the first line of each entry read
	for _, line := range lines {
		keys, root, before, ok := lz.Entry(line)
		if !ok {
			return wholeDataRefLines(b)
		}
		if done[before] {
			continue
		}
		done[before] = true
		at := keys[:len(keys)-1]
		inData := false
		for i := range at {
			inData = inData || isData(at[:i], at[i])
		}
		for l := range dataRefs(root, at, inData) {
			out[l+before] = true
		}
	}
	return out
}

// wholeDataRefLines is DataRefLines over the whole text.
func wholeDataRefLines(b []byte) map[int]bool {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil {
		return nil
	}
	if len(doc.Content) == 0 {
		return map[int]bool{}
	}
	return dataRefs(doc.Content[0], nil, false)
}

// dataRefs walks n, found at the keys at (inData when one of them makes
// what it holds data), for the lines whose every $ref is data.
func dataRefs(n *yaml.Node, at []string, inData bool) map[int]bool {
	ext, other := map[int]bool{}, map[int]bool{}
	var walk func(n *yaml.Node, at []string, inData bool)
	walk = func(n *yaml.Node, at []string, inData bool) {
		switch n.Kind {
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, append(at, "[]"), inData)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				data := inData || isData(at, k.Value)
				if k.Value == "$ref" {
					if data {
						ext[k.Line] = true
					} else {
						other[k.Line] = true
					}
				}
				walk(n.Content[i+1], append(at[:len(at):len(at)], k.Value), data)
			}
		}
	}
	walk(n, at, inData)
	for line := range other {
		delete(ext, line)
	}
	return ext
}

// isData reports whether the value of key, in the mapping at the keys at,
// is data to the loader.
func isData(at []string, key string) bool {
	parent, grand := "", ""
	if len(at) > 0 {
		parent = at[len(at)-1]
	}
	if len(at) > 1 {
		grand = at[len(at)-2]
	}
	switch {
	case strings.HasPrefix(key, "x-"):
		return !nameMaps[parent]
	case key == "value":
		// examples/NAME/value, unless "examples" is itself a schema's or a
		// property's name.
		return grand == "examples" && !nameMaps[parent] && (len(at) < 3 || !schemaMaps[at[len(at)-3]])
	case key == "description":
		return len(at) == 2 && at[0] == "tags" && parent == "[]"
	}
	return false
}
