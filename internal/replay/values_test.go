package replay

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

func TestMatching(t *testing.T) {
	for _, pattern := range []string{
		`^[A-Z]{3}$`, `^ch_[a-f0-9]{8,}$`, `^(GBP|EUR)$`, `^\d{4}-\d{2}$`, `[^\s]+@x\.com`, `^a?b*c+$`, `^.{2,5}$`,
	} {
		got, ok := matching(pattern)
		if !ok || !regexp.MustCompile(pattern).MatchString(got) {
			t.Errorf("matching(%q) = %q, %v", pattern, got, ok)
		}
	}
	// A pattern Go cannot compile (a backreference) gives no value, never a wrong one.
	if got, ok := matching(`^(a)\1$`); ok {
		t.Errorf("matching an invalid pattern gave %q", got)
	}
}

// schema reads a schema written as JSON.
func schema(t *testing.T, text string) *openapi3.SchemaRef {
	t.Helper()
	s := &openapi3.Schema{}
	if err := json.Unmarshal([]byte(text), s); err != nil {
		t.Fatal(err)
	}
	return &openapi3.SchemaRef{Value: s}
}

// TestDerive: required fields only, then all fields; values inside the
// bounds; the schema's own example, default or enum before anything made up;
// read-only properties never sent.
func TestDerive(t *testing.T) {
	s := schema(t, `{
	  "type": "object",
	  "required": ["amount", "currency", "tags", "when"],
	  "properties": {
	    "amount": {"type": "integer", "minimum": 100, "multipleOf": 50},
	    "ratio": {"type": "number", "maximum": 0.5},
	    "currency": {"type": "string", "enum": ["GBP", "EUR"]},
	    "note": {"type": "string", "minLength": 8, "maxLength": 10},
	    "code": {"type": "string", "maxLength": 3},
	    "when": {"type": "string", "format": "date-time"},
	    "id": {"type": "string", "readOnly": true},
	    "tags": {"type": "array", "minItems": 2, "items": {"type": "string", "example": "t"}},
	    "flag": {"type": ["boolean", "null"]},
	    "owner": {"allOf": [
	      {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "default": "ann"}}},
	      {"type": "object", "required": ["age"], "properties": {"age": {"type": "integer"}}}
	    ]}
	  }
	}`)
	required := map[string]any{"amount": 100.0, "currency": "GBP", "tags": []any{"t", "t"}, "when": "2026-01-02T03:04:05Z"}
	if diff := cmp.Diff(required, derive(s, requiredOnly)); diff != "" {
		t.Errorf("required fields (-want +got):\n%s", diff)
	}
	all := map[string]any{
		"amount": 100.0, "ratio": 0.5, "currency": "GBP", "note": "replayxx", "code": "rep",
		"when": "2026-01-02T03:04:05Z", "tags": []any{"t", "t"}, "flag": true,
		"owner": map[string]any{"name": "ann", "age": 1.0},
	}
	if diff := cmp.Diff(all, derive(s, allFields)); diff != "" {
		t.Errorf("all fields (-want +got):\n%s", diff)
	}
	for _, v := range []any{derive(s, requiredOnly), derive(s, allFields)} {
		if err := s.Value.VisitJSON(v); err != nil {
			t.Errorf("a derived value breaks its own schema: %v", err)
		}
	}
}

// TestDeriveCycle: a schema that contains itself ends, by depth.
func TestDeriveCycle(t *testing.T) {
	node := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"next"}}
	node.Properties = openapi3.Schemas{"next": &openapi3.SchemaRef{Value: node}}
	v := derive(&openapi3.SchemaRef{Value: node}, allFields)
	depth := 0
	for m, ok := v.(map[string]any); ok; m, ok = m["next"].(map[string]any) {
		depth++
	}
	if depth == 0 || depth > maxDepth+1 {
		t.Errorf("derived %d levels, want 1 to %d", depth, maxDepth+1)
	}
}

// TestDeriveBounded: 30 properties of 30 properties of 30 of 30 (810,000
// leaves) derive into at most maxValues values, each level still filled.
func TestDeriveBounded(t *testing.T) {
	leaf := &openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}}
	level := leaf
	for range 4 {
		o := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: openapi3.Schemas{}}
		for i := range 30 {
			o.Properties[string(rune('a'+i%26))+string(rune('a'+i/26))] = level
		}
		level = &openapi3.SchemaRef{Value: o}
	}
	v := derive(level, allFields)
	if n := count(v); n > maxValues+30 || n < 100 {
		t.Errorf("derived %d values, want between 100 and about %d", n, maxValues)
	}
}

// count is how many values a derived value holds, itself included.
func count(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, y := range x {
			n += count(y)
		}
	case []any:
		for _, y := range x {
			n += count(y)
		}
	}
	return n
}
