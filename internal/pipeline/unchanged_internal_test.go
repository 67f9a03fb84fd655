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
	} {
		files, ok := externalRefs([]byte(tc.doc))
		if ok != tc.ok || !slices.Equal(files, tc.files) {
			t.Errorf("externalRefs(%q) = %q, %v; want %q, %v", tc.doc, files, ok, tc.files, tc.ok)
		}
	}
}

func TestStripComments(t *testing.T) {
	in := "a // c1 \"x\"\nb \"s // not\" /* c2\n c2 */ c 'q\\'/*' d /* unclosed"
	want := "a \nb \"s // not\"   c 'q\\'/*' d "
	if got := string(stripComments([]byte(in))); got != want {
		t.Errorf("stripComments = %q, want %q", got, want)
	}
}

func TestProtoStatements(t *testing.T) {
	code := stripComments([]byte(`syntax = "proto3";
// import "commented.proto";
import public "a/pub.proto"; import weak "b/weak.proto";
import
  "c/split.proto";
option go_package = "example.com/package x;";
message reimport { string import_path = 1; }
package shop.v1 ;
`))
	if got, want := protoImports(code), []string{"a/pub.proto", "b/weak.proto", "c/split.proto"}; !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
	if got := protoPackage(code); got != "shop.v1" {
		t.Errorf("package %q, want shop.v1", got)
	}
}
