package openapi

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestReadableKeepsPlaces shows that a JSON document with surrogate-pair
// escapes (Python's json.dumps of an emoji) is read with positions, and that
// a column after an escape on the same line is the original's. Before, the
// YAML parse refused the escape and every finding was at line 0.
func TestReadableKeepsPlaces(t *testing.T) {
	doc := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
"paths": {}, "components": {"schemas": {"A": {"description": "\ud83d\udc4d \ud83d\ude00 \\ud83d\\udc4d", "properties": {"id": {"type": "string"}}}}}}`
	d, err := loadText(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	a := d.T.Components.Schemas["A"].Value
	if want := "\U0001F44D \U0001F600 \\ud83d\\udc4d"; a.Description != want {
		t.Errorf("description %q, want %q", a.Description, want)
	}
	loc := d.KeyLoc(a.Properties["id"].Value.Origin)
	line2 := strings.Split(doc, "\n")[1]
	if wantCol := 1 + strings.Index(line2, `"id"`); loc.Line != 2 || loc.Column != wantCol {
		t.Errorf("id at %d:%d, want 2:%d", loc.Line, loc.Column, wantCol)
	}
}

// TestParseReadsWhatTheLoaderReads: the escapes JSON writers use by default
// (PHP's \/, Python's surrogate pairs) and a key longer than YAML's 1,024
// characters for a simple key all parse.
func TestParseReadsWhatTheLoaderReads(t *testing.T) {
	for _, doc := range []string{
		`{"openapi": "3.0.3", "info": {"x": "a\/b"}}`,
		`{"openapi": "3.0.3", "info": {"x": "\ud83d\udc4d"}}`,
		`{"openapi": "3.0.3", "x-` + strings.Repeat("k", 1100) + `": 1}`,
	} {
		n := Parse([]byte(doc))
		if n == nil || n.Kind != yaml.MappingNode || n.Content[0].Value != "openapi" {
			t.Errorf("%.40s: not read as a mapping with openapi", doc)
		}
	}
}

// TestNoiseKeepsFileNames: the parsers' wrapping is taken off where it
// starts a message, never out of a file name (api.yaml: ... stayed
// "api.is a symbolic link in index").
func TestNoiseKeepsFileNames(t *testing.T) {
	for in, want := range map[string]string{
		"api.yaml: is a symbolic link in index":              "api.yaml: is a symbolic link in index",
		"failed to unmarshal data: yaml: line 2: bad":        "line 2: bad",
		"x.json: failed to unmarshal data: yaml error: oops": "x.json: oops",
	} {
		if got := noise.Replace(in); got != want {
			t.Errorf("noise.Replace(%q) = %q, want %q", in, got, want)
		}
	}
}
