package openapi

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestBlankTextRef blanks a lone $ref where text is expected, in each way
// it is written: every other line and column must stay where it was, and
// the result must read as the empty string.
func TestBlankTextRef(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"flow", "a: {$ref: d.yml#/x}\nb: 1\n", "a: \"\"" + spaces(14) + "\nb: 1\n"},
		{"flow in flow", "t: {name: n, description: {$ref: 'dé.yml#/x'}, z: 1}\n", "t: {name: n, description: \"\"" + spaces(17) + ", z: 1}\n"},
		{"block", "d:\n  $ref: \"d.yml#/x\" # why\nb: 1\n", "d:\n  \"\"" + spaces(15) + "# why\nb: 1\n"},
		{"JSON over lines", "{\"d\": {\n  \"$ref\": \"d.json#/x\"\n}, \"b\": 1}\n", "{\"d\":  \n  \"\"" + spaces(17) + "\n , \"b\": 1}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root yaml.Node
			if err := yaml.Unmarshal([]byte(tc.in), &root); err != nil {
				t.Fatal(err)
			}
			var ref *yaml.Node
			var find func(n *yaml.Node)
			find = func(n *yaml.Node) {
				if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "$ref" {
					ref = n
				}
				for _, c := range n.Content {
					find(c)
				}
			}
			find(&root)
			sp, ok := mappingSpan([]byte(tc.in), ref)
			if !ok {
				t.Fatal("no span")
			}
			got := string(blank([]byte(tc.in), []blankSpan{sp}))
			if got != tc.want {
				t.Errorf("blank:\n%q\nwant\n%q", got, tc.want)
			}
			var v any
			if err := yaml.Unmarshal([]byte(got), &v); err != nil {
				t.Errorf("blanked text does not parse: %v", err)
			}
		})
	}
}

func spaces(n int) string { return strings.Repeat(" ", n) }

// TestPropertiesRef loads a schema whose properties are written as a $ref
// (DigitalOcean's load_balancer.yml: `properties: {$ref: attributes.yml#/x}`),
// which kin-openapi refuses: the document is read, the map as no properties,
// with one contract-invalid problem at the $ref, and the rest compared.
func TestPropertiesRef(t *testing.T) {
	d, err := loadText(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /lb:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/LB"}
components:
  schemas:
    LB:
      allOf:
        - type: object
          properties:
            $ref: 'attributes.yml#/ids'
        - type: object
          properties:
            name: {type: string}
`)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if len(d.Problems) != 1 || d.Problems[0].Loc.Line != 18 || !strings.Contains(d.Problems[0].Msg, "map of properties") {
		t.Errorf("problems %+v, want one at line 18 saying the map of properties is not compared", d.Problems)
	}
	lb := d.T.Components.Schemas["LB"].Value
	if len(lb.AllOf) != 2 || len(lb.AllOf[0].Value.Properties) != 0 || lb.AllOf[1].Value.Properties["name"] == nil {
		t.Errorf("LB read as %+v", lb.AllOf)
	}
}
