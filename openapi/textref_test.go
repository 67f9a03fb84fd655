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
