package main

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// spec is a small block-style document: two paths, each with its own
// schema, so a change to one path leaves the other and its schema out of
// the plan.
const spec = `openapi: 3.0.3
info:
  title: t
  version: "1"
paths:
  /a:
    get:
      parameters:
        - name: limit
          in: query
          schema:
            type: integer
      responses:
        "200":
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/A'
          description: the A
  /b:
    post:
      requestBody:
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/B'
      responses:
        "204":
          description: done
components:
  schemas:
    A:
      type: object
      properties:
        id:
          type: string
    B:
      type: object
      properties:
        untouched_by_the_change:
          type: string
`

func sides(t *testing.T, files map[string][2]string) (side, side) {
	t.Helper()
	dir := t.TempDir()
	seed := maphash.MakeSeed()
	var out [2]side
	for i, name := range []string{"old", "new"} {
		for f, texts := range files {
			p := filepath.Join(dir, name, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(texts[i]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s, err := read(filepath.Join(dir, name), seed)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	return out[0], out[1]
}

// changed is spec with /a's limit a string: only /a and what it reaches
// can be in the plan.
var changed = strings.Replace(spec, "type: integer", "type: string", 1)

func TestReachedIsThePlan(t *testing.T) {
	o, n := sides(t, map[string][2]string{"api.yaml": {spec, changed}})
	texts, reach := reached(o, n, "api.yaml")
	if !strings.HasPrefix(reach, "plan:") || len(texts) != 1 {
		t.Fatalf("reach %q, %d texts; want the loader's plan", reach, len(texts))
	}
	if bytes.Contains(texts[0], []byte("untouched_by_the_change")) || !bytes.Contains(texts[0], []byte("type: string")) {
		t.Errorf("the text parsed is not what the change reaches:\n%s", texts[0])
	}
}

func TestReachedMinifiedJSON(t *testing.T) {
	o, n := sides(t, map[string][2]string{"api.json": {minified(t, spec), minified(t, changed)}})
	texts, reach := reached(o, n, "api.json")
	if !strings.HasPrefix(reach, "plan-reindented:") || bytes.Contains(texts[0], []byte("untouched_by_the_change")) {
		t.Fatalf("reach %q; want the plan of the re-indented JSON", reach)
	}
}

func TestReachedTree(t *testing.T) {
	root := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    $ref: paths/a.yaml\n  /b:\n    $ref: paths/b.yaml\n"
	a := "get:\n  responses:\n    '200':\n      description: ok\n"
	o, n := sides(t, map[string][2]string{
		"api.yaml":     {root, root},
		"paths/a.yaml": {a, strings.Replace(a, "ok", "fine", 1)},
		"paths/b.yaml": {a, a},
	})
	texts, reach := reached(o, n, "api.yaml")
	if reach != "changed-files:1/3" || len(texts) != 1 || !bytes.Contains(texts[0], []byte("fine")) {
		t.Fatalf("reach %q, %d texts; want the one changed file", reach, len(texts))
	}
}

// minified is a YAML document written as JSON on one line.
func minified(t *testing.T, doc string) string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
