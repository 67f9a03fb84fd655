package openapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
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

// TestValidateOnce shows that validating each schema once still catches what
// kin-openapi's own pass catches, and leaves the document as it was.
func TestValidateOnce(t *testing.T) {
	doc := func(in, typ string) string {
		return strings.NewReplacer("PARAM_IN", in, "ITEM_TYPE", typ).Replace(validateBase)
	}
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
		if _, err := loadText(t, text); err == nil {
			t.Errorf("%s: invalid document accepted", name)
		} else if !strings.Contains(err.Error(), "invalid") {
			t.Errorf("%s: unclear error %q", name, err)
		}
	}
}
