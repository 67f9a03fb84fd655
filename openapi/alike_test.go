package openapi

import (
	"fmt"
	"testing"
)

// alikeDoc has two paths alike but for their parameters' names, which
// OpenAPI forbids and Xero's accounting spec has; the second's response
// property is removed when removeNumber.
func alikeDoc(version string, removeNumber bool) string {
	number := "{type: object, properties: {number: {type: integer}, note: {type: string}}}"
	if removeNumber {
		number = "{type: object, properties: {note: {type: string}}}"
	}
	return fmt.Sprintf(`openapi: 3.0.0
info: {title: t, version: %q}
paths:
  /items/{ItemID}:
    get:
      operationId: getItemById
      parameters: [{name: ItemID, in: path, required: true, schema: {type: string, format: uuid}}]
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}}}
  /items/{ItemNumber}:
    get:
      operationId: getItemByNumber
      parameters: [{name: ItemNumber, in: path, required: true, schema: {type: integer}}]
      responses: {'200': {description: ok, content: {application/json: {schema: %s}}}}
`, version, number)
}

// TestPathsAlikePairByName: each of two paths alike but for their
// parameters' names is compared with itself, every run. They were keyed by
// their shared template, and which of the two each side kept was the map's
// order: made-up findings (operation-id-changed, parameter type changes) in
// about half the runs.
func TestPathsAlikePairByName(t *testing.T) {
	load := func(doc string) *Doc {
		d, err := loadText(t, doc)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	same := [2]*Doc{load(alikeDoc("1", false)), load(alikeDoc("2", false))}
	changed := load(alikeDoc("2", true))
	for run := range 40 {
		if cs := Diff(same[0], same[1]); len(cs) != 0 {
			t.Fatalf("run %d: %d changes between documents alike but for the version, first %+v", run, len(cs), cs[0])
		}
		cs := Diff(same[0], changed)
		if len(cs) != 1 || cs[0].Name != "number" || len(cs[0].Operations) != 1 || cs[0].Operations[0] != "GET /items/{ItemNumber}" {
			t.Fatalf("run %d: changes %+v, want the property number removed from GET /items/{ItemNumber} alone", run, cs)
		}
	}
}
