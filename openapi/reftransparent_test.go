package openapi_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// TestRefTransparent: one request body, open with `required: [amounts]`,
// split into two closed alternatives, written inline, behind a $ref to a
// component and behind a $ref to another file, gives the same changes
// (issue 45 class 3).
func TestRefTransparent(t *testing.T) {
	open := "type: object\nrequired: [amounts]\nproperties:\n  amounts: {type: array, items: {type: integer}}\n"
	split := "oneOf:\n" +
		"  - {type: object, additionalProperties: false, required: [amounts], properties: {amounts: {type: array, items: {type: integer}}}}\n" +
		"  - {type: object, additionalProperties: false, required: [amount], properties: {amount: {type: integer}}}\n"
	doc := func(schema, components string) string {
		return "openapi: 3.0.3\ninfo: {title: pay, version: \"1\"}\npaths:\n  /transfers:\n    post:\n" +
			"      requestBody:\n        content:\n          application/json:\n            schema:\n" + indent(schema, 14) +
			"      responses: {\"201\": {description: created}}\n" + components
	}
	component := func(body string) string { return "components:\n  schemas:\n    Transfer:\n" + indent(body, 6) }
	forms := map[string]func(body string) map[string]string{
		"inline": func(body string) map[string]string { return map[string]string{"openapi.yaml": doc(body, "")} },
		"component": func(body string) map[string]string {
			return map[string]string{"openapi.yaml": doc("$ref: \"#/components/schemas/Transfer\"\n", component(body))}
		},
		"file": func(body string) map[string]string {
			return map[string]string{"openapi.yaml": doc("$ref: \"schemas/Transfer.yaml\"\n", ""), "schemas/Transfer.yaml": body}
		},
	}
	got := map[string]string{}
	for name, form := range forms {
		dir := t.TempDir()
		for side, body := range map[string]string{"old": open, "new": split} {
			for file, text := range form(body) {
				p := filepath.Join(dir, side, file)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
		src, err := source.OpenDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		od, err := openapi.Load(src, "old/openapi.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		nd, err := openapi.Load(src, "new/openapi.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		var cs []string
		for _, c := range openapi.Diff(od, nd) {
			cs = append(cs, strings.Join([]string{c.Kind.String(), string(c.Subject), string(c.Aspect), c.Dir.String()}, " "))
		}
		slices.Sort(cs)
		got[name] = strings.Join(cs, "\n")
	}
	if got["inline"] == "" || got["component"] != got["inline"] || got["file"] != got["inline"] {
		t.Errorf("the three forms differ:\ninline:\n%s\ncomponent:\n%s\nfile:\n%s", got["inline"], got["component"], got["file"])
	}
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
}
