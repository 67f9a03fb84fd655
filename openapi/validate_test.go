package openapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

func loadText(t *testing.T, doc string) (*Doc, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Load(src, "api.yaml", nil)
}

const validateBase = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /items/{id}:
    get:
      parameters:
        - {name: id, in: PARAM_IN, required: true, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
components:
  schemas:
    Item:
      type: object
      properties:
        tags:
          type: array
          items: {type: ITEM_TYPE}
`

// doc fills in validateBase.
func doc(in, typ string) string {
	return strings.NewReplacer("PARAM_IN", in, "ITEM_TYPE", typ).Replace(validateBase)
}

// TestValidateOnce shows that validating each schema once still catches what
// kin-openapi's own pass catches, and leaves the document as it was.
func TestValidateOnce(t *testing.T) {
	d, err := loadText(t, doc("path", "string"))
	if err != nil {
		t.Fatalf("valid document rejected: %v", err)
	}
	item := d.T.Components.Schemas["Item"].Value
	got := d.T.Paths.Find("/items/{id}").Get.Responses.Status(200).Value.Content["application/json"].Schema.Value
	if got != item {
		t.Errorf("validation left a schema slot changed: %p, want %p", got, item)
	}
	if p := d.T.Paths.Find("/items/{id}").Get.Parameters[0].Value.Schema.Value; p.Type == nil || !p.Type.Is("string") {
		t.Errorf("parameter schema not restored: %+v", p)
	}
	for name, text := range map[string]string{
		"nested schema type": doc("path", "strin"),
		"parameter location": doc("nowhere", "string"),
	} {
		d, err := loadText(t, text)
		switch {
		case err != nil:
			t.Errorf("%s: a document that parses was refused: %v", name, err)
		case len(d.Problems) == 0:
			t.Errorf("%s: no problem reported", name)
		case d.Problems[0].Loc.Line == 0 || d.StrictError() == nil:
			t.Errorf("%s: problem not placed or not refused under strict: %+v", name, d.Problems[0])
		}
	}
}

// TestLenientProblems shows each blemish oasdiff accepts is loaded, with
// one problem per element at its line, and that a clean document has none.
func TestLenientProblems(t *testing.T) {
	d, err := loadText(t, `openapi: 3.0.3
info: {title: t, version: ""}
paths:
  /items/{id}:
    get:
      operationId: same
      parameters:
        - {name: q, in: query}
      responses:
        "200": {}
  /other:
    get:
      operationId: same
    post:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: "null"}
components:
  securitySchemes:
    o:
      type: oauth2
      flows:
        implicit: {authorizationUrl: "https://example.com/auth"}
`)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	want := map[int]string{
		2:  "version must be a non-empty string",
		4:  "must define exactly all path parameters",
		8:  "exactly one of content and schema",
		10: "description of the response is required",
		12: "same operation id",
		19: `'type' value "null"`,
		26: "'scopes' is missing",
	}
	got := map[int]string{}
	for _, p := range d.Problems {
		got[p.Loc.Line] += p.Msg
	}
	for line, frag := range want {
		if !strings.Contains(got[line], frag) {
			t.Errorf("line %d: got %q, want it to mention %q (all: %v)", line, got[line], frag, d.Problems)
		}
	}
	if len(got) != len(want) {
		t.Errorf("problems on lines %v, want %d lines", got, len(want))
	}
	if d, err := loadText(t, doc("path", "string")); err != nil || len(d.Problems) != 0 {
		t.Errorf("valid document: %v %v", err, d.Problems)
	}
}

// TestKeywordFields shows every constraining keyword names a field of
// kin-openapi's Schema, so none is silently never compared.
func TestKeywordFields(t *testing.T) {
	for _, kw := range rules.Constraining {
		if _, ok := keywordField[kw]; !ok {
			t.Errorf("keyword %s has no field in openapi3.Schema", kw)
		}
	}
}

// TestDiffBlemished diffs documents that only load leniently (no responses,
// a parameter without schema, `type: "null"` in 3.0, an undeclared path
// parameter) against a clean one, both ways: the diff must see the changes,
// whatever is missing from either side.
func TestDiffBlemished(t *testing.T) {
	blemished, err := loadText(t, `openapi: 3.0.3
info: {title: t, version: ""}
paths:
  /items/{id}:
    get:
      parameters:
        - {name: q, in: query}
      responses:
        "200":
          description: ok
          headers: {X-Next: {}}
          content:
            application/json:
              schema: {type: "null"}
  /orders:
    post:
      requestBody: {content: {application/json: {}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	clean, err := loadText(t, doc("path", "string"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*Doc{{blemished, clean}, {clean, blemished}} {
		changes := Diff(pair[0], pair[1])
		if len(changes) == 0 {
			t.Errorf("no change found between a blemished and a clean document")
		}
		if c := pair[1].Contract(); len(c.Operations) == 0 {
			t.Errorf("lowering lost the operations")
		}
	}
}

// TestEvery31Keyword: an OpenAPI 3.1 schema may use every JSON Schema
// keyword (3.1's dialect is 2020-12, and documents in the wild still carry
// 2019-09's $recursiveRef and $recursiveAnchor): none is a problem, so
// --strict reads them. In a 3.0 document they are still reported.
func TestEvery31Keyword(t *testing.T) {
	const schema = `
components:
  schemas:
    A:
      $schema: https://json-schema.org/draft/2020-12/schema
      $vocabulary: {"https://json-schema.org/draft/2020-12/vocab/core": true}
      $id: https://example.com/a
      $anchor: a
      $dynamicAnchor: a
      $recursiveAnchor: true
      $comment: c
      $defs: {x: {type: string}}
      type: object
      unevaluatedProperties: false
      dependentSchemas: {p: {required: [q]}}
      dependentRequired: {p: [q]}
      propertyNames: {pattern: "^[a-z]+$"}
      patternProperties: {"^x": {type: string}}
      properties:
        p: {type: string, contentEncoding: base64, contentMediaType: image/png, contentSchema: {type: string}}
        q: {type: array, prefixItems: [{type: string}], contains: {type: string}, minContains: 1, maxContains: 2, unevaluatedItems: false}
        r: {if: {type: string}, then: {minLength: 1}, else: {type: number}, const: 1, examples: [1]}
        s: {$dynamicRef: "#a"}
        t: {$recursiveRef: "#"}
        u: {type: [string, "null"], deprecated: true, readOnly: true}
`
	d, err := loadText(t, "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths: {}"+schema)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	for _, p := range d.Problems {
		t.Errorf("3.1 keyword reported: %s: %s", p.Loc, p.Msg)
	}
	d, err = loadText(t, "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}"+schema)
	if err != nil {
		t.Fatalf("3.0 refused: %v", err)
	}
	if len(d.Problems) == 0 {
		t.Error("3.0 document with 3.1 keywords: no problem reported")
	}
}

// TestValidateSameEveryRun shows a document with several invalid schemas
// gets the same problems on every load: kin-openapi stops at the first
// invalid schema it meets, so the order schemas are visited in must not
// follow Go's random map order.
func TestValidateSameEveryRun(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n")
	for _, p := range []string{"a", "b", "c", "d", "e", "f"} {
		b.WriteString("  /" + p + ":\n    get:\n      responses:\n        \"200\":\n          description: ok\n" +
			"          content:\n            application/json:\n              schema: {type: strin" + p + "}\n")
	}
	b.WriteString("components:\n  schemas:\n")
	for _, n := range []string{"A", "B", "C", "D", "E", "F", "G", "H"} {
		b.WriteString("    " + n + ": {type: objec" + n + "}\n")
	}
	var first string
	for i := range 12 {
		d, err := loadText(t, b.String())
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, p := range d.Problems {
			fmt.Fprintf(&got, "%d: %s\n", p.Loc.Line, p.Msg)
		}
		if i == 0 {
			first = got.String()
			if first == "" {
				t.Fatal("no problem reported")
			}
		} else if got.String() != first {
			t.Fatalf("run %d reported\n%s\nrun 0 reported\n%s", i, got.String(), first)
		}
	}
}
