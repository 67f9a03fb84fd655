package pipeline

import (
	"slices"
	"testing"
)

func TestExternalRefs(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		files []string
		ok    bool
	}{
		{"a:\n  $ref: '#/components/schemas/A'\n", nil, true},
		{`{"a": {"$ref": "common.json#/A"}, "b": {"$ref":"#/B"}}`, []string{"common.json"}, true},
		{"a:\n  $ref: >-\n    ../shared/pet.yaml#/Pet\nb:\n  $ref: pet.yaml\n", []string{"../shared/pet.yaml", "pet.yaml"}, true},
		{"a:\n  $ref: \"https://example.com/pet.yaml\"\n", nil, false},
		{"a:\n  $ref: /abs/pet.yaml\n", nil, false},
		{"description: write $ref to point elsewhere\n", nil, false},
		{"properties:\n  $ref:\n\n    type: string\nb:\n  $ref: pet.yaml\n", []string{"pet.yaml"}, true}, // a property named $ref
		{"properties:\n  $ref:\n    pet.yaml\n", nil, false},
		{"properties:\n  $ref:\n  - pet.yaml\n", nil, false},
	} {
		files, ok := externalRefs([]byte(tc.doc))
		if ok != tc.ok || !slices.Equal(files, tc.files) {
			t.Errorf("externalRefs(%q) = %q, %v; want %q, %v", tc.doc, files, ok, tc.files, tc.ok)
		}
	}
}
