package openapi

import "testing"

// TestSameShape: two schemas are the same member of a oneOf/anyOf/allOf
// however they are written and wherever they sit, and different when any
// keyword or nested $ref differs.
func TestSameShape(t *testing.T) {
	d, err := loadText(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Flow: {type: object, required: [id], properties: {id: {type: string, maxLength: 64}, tags: {type: array, items: {$ref: "#/components/schemas/Tag"}}}, x-note: a}
    Block:
      x-note: a
      properties:
        tags:
          items:
            $ref: "#/components/schemas/Tag"
          type: array
        id:
          maxLength: 64
          type: string
      required:
        - id
      type: object
    Longer: {type: object, required: [id], properties: {id: {type: string, maxLength: 65}, tags: {type: array, items: {$ref: "#/components/schemas/Tag"}}}, x-note: a}
    OtherRef: {type: object, required: [id], properties: {id: {type: string, maxLength: 64}, tags: {type: array, items: {$ref: "#/components/schemas/Label"}}}, x-note: a}
    Inlined: {type: object, required: [id], properties: {id: {type: string, maxLength: 64}, tags: {type: array, items: {type: string}}}, x-note: a}
    OtherNote: {type: object, required: [id], properties: {id: {type: string, maxLength: 64}, tags: {type: array, items: {$ref: "#/components/schemas/Tag"}}}, x-note: b}
    EmptyEnum: {type: string, enum: []}
    NoEnum: {type: string}
    Tag: {type: string}
    Label: {type: string}
`)
	if err != nil {
		t.Fatal(err)
	}
	s := d.T.Components.Schemas
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"Flow", "Block", true},
		{"Flow", "Flow", true},
		{"Flow", "Longer", false},
		{"Flow", "OtherRef", false},
		{"Flow", "Inlined", false},
		{"Flow", "OtherNote", false},
		{"Tag", "Label", true},
		{"EmptyEnum", "NoEnum", true},
	} {
		if got := sameShape(s[c.a].Value, s[c.b].Value); got != c.want {
			t.Errorf("sameShape(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if !sameShape(nil, nil) || sameShape(s["Tag"].Value, nil) {
		t.Error("nil schemas: only nil is the same as nil")
	}
}
