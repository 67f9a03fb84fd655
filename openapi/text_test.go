package openapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/corpus"
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

// TestStartDocumentKeepsPlaces: a pretty-printed JSON document is given to
// the parser after a document marker on its brace's line (startDocument),
// and every place read from it is the original's: the surrogate escapes'
// shifts and the marker's together. What YAML would read otherwise than
// JSON is left as it is.
func TestStartDocumentKeepsPlaces(t *testing.T) {
	doc := "\n{\n  \"openapi\": \"3.0.3\", \"info\": {\"title\": \"t\", \"version\": \"1\"},\n" +
		"  \"paths\": {}, \"components\": {\"schemas\": {\"A\": {\"description\": \"\\ud83d\\udc4d\", \"properties\": {\"id\": {\"type\": \"string\"}}}}}\n}\n"
	if out, _ := startDocument([]byte(doc)); !strings.HasPrefix(string(out), "\n--- {\n") {
		t.Fatalf("not given a document marker: %.20q", out)
	}
	d, err := loadText(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	a := d.T.Components.Schemas["A"].Value
	loc := d.KeyLoc(a.Properties["id"].Value.Origin)
	line4 := strings.Split(doc, "\n")[3]
	if wantCol := 1 + strings.Index(line4, `"id"`); loc.Line != 4 || loc.Column != wantCol {
		t.Errorf("id at %d:%d, want 4:%d", loc.Line, loc.Column, wantCol)
	}
	for _, kept := range []string{
		`{"openapi": "3.0.3"}`,                             // the brace's line holds more
		"{\n\"openapi\": \"3.0.3\", \"x\": \"\u0085\"\n}",  // JSON's parser reads it
		"{\n\"x\": \"\u0092\"\n}",                          // YAML refuses a C1 control
		"{\n\"x\": \"\x7f\"\n}",                            // and DEL
		"{\n\"x\": \"\xff\"\n}",                            // and invalid UTF-8
		" {\n\"x\": 1\n}",                                  // the brace not where a marker goes
		"{\n\"x-" + strings.Repeat("k", 1100) + "\": 1\n}", // a key past YAML's simple keys
		"openapi: 3.0.3\n",
	} {
		if out, at := startDocument([]byte(kept)); string(out) != kept || at != nil {
			t.Errorf("%.30q rewritten", kept)
		}
	}
}

// BenchmarkStartDocument: yaml v4's parse of a pretty JSON document after
// the document marker, as a ratio to the same text without it (Stripe's
// spec as JSON, 5 MB): marked/plain.
func BenchmarkStartDocument(b *testing.B) {
	var v any
	if err := yaml.Unmarshal(corpus.Text(b, "stripe-spec3-2023-09-12.yaml"), &v); err != nil {
		b.Fatal(err)
	}
	plain, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	marked, _ := startDocument(plain)
	var m, p time.Duration
	for b.Loop() {
		for _, c := range []struct {
			text []byte
			d    *time.Duration
		}{{marked, &m}, {plain, &p}} {
			start := time.Now()
			var n yaml.Node
			if err := yaml.Unmarshal(c.text, &n); err != nil {
				b.Fatal(err)
			}
			*c.d += time.Since(start)
		}
	}
	b.ReportMetric(float64(m)/float64(p), "marked/plain")
}

// TestLongKey: a name is long when no quote that could open it lies within
// the limit before its closing quote; escaped quotes inside do not open it.
func TestLongKey(t *testing.T) {
	long := strings.Repeat("k", 1100)
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"` + long + `": 1}`, true},
		{`{"` + strings.Repeat(`k\"`, 400) + `": 1}`, true},
		{`{"a": "` + long + `", "b": 1}`, false},
		{`{"a": "` + long + `"}`, false},
		{"{\n\"" + long[:900] + "\": 1\n}", false},
	} {
		if got := longKey([]byte(c.text), 1000); got != c.want {
			t.Errorf("%.30q…: long %v, want %v", c.text, got, c.want)
		}
	}
}
