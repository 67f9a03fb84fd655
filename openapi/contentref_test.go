package openapi

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestContentRef: `content:` written as a $ref to a file of media types,
// in block and flow form, is read as Redocly's bundler reads it, with one
// warning at the first such place; each schema is placed in that file.
func TestContentRef(t *testing.T) {
	src := memSource(t, map[string]string{
		"api.yaml": `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      responses:
        "200":
          description: ok
          content:
            $ref: ./content.yaml
  /z:
    get:
      responses:
        "200":
          description: ok
          content: {$ref: "./content.yaml"}
`,
		"content.yaml": `application/json:
  schema:
    type: object
    properties:
      id: {type: string}
`,
	})
	d, err := Load(src, "api.yaml", nil)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if len(d.Problems) != 1 || d.Problems[0].Loc.Line != 9 || d.Problems[0].Loc.Column != 11 ||
		!strings.Contains(d.Problems[0].Msg, "as Redocly's bundler reads it") {
		t.Errorf("problems %v, want one at api.yaml:9:11 saying the content $ref was read as Redocly reads it", d.Problems)
	}
	for _, p := range []string{"/x", "/z"} {
		mt := d.T.Paths.Value(p).Get.Responses.Value("200").Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || mt.Schema.Value.Properties["id"] == nil {
			t.Errorf("%s: application/json's schema was not read: %+v", p, mt)
			continue
		}
		if loc := d.KeyLoc(mt.Schema.Value.Properties["id"].Value.Origin); loc.File != "content.yaml" || loc.Line != 5 {
			t.Errorf("%s: id is placed at %s, want content.yaml:5", p, loc)
		}
	}
}

// TestWrongKindRef: a response that $refs a request body (PagerDuty's REST
// API has two) is read as a response with no content, with one
// contract-invalid problem at the $ref, and the rest is compared; the
// same request body $ref'd where a request body belongs keeps its
// content. A $ref of another kind with no empty form (a parameter naming
// a schema) is refused at the $ref, saying what it names and what
// belongs there.
func TestWrongKindRef(t *testing.T) {
	d, err := loadText(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /y:
    put:
      requestBody: {$ref: "#/components/requestBodies/Y"}
      responses:
        "200":
          $ref: "#/components/requestBodies/Y"
    post:
      responses:
        "201": {"$ref": "#/components/requestBodies/Y"}
components:
  requestBodies:
    Y:
      content:
        application/json:
          schema: {type: string}
`)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if len(d.Problems) != 1 || d.Problems[0].Loc.Line != 9 || !strings.Contains(d.Problems[0].Msg, "which is a request body, where a response belongs") {
		t.Errorf("problems %+v, want one at line 9 saying a request body stands where a response belongs", d.Problems)
	}
	put := d.T.Paths.Value("/y").Put
	if len(put.RequestBody.Value.Content) != 1 {
		t.Errorf("the request body lost its content: %+v", put.RequestBody.Value)
	}
	for op, code := range map[*openapi3.Operation]string{put: "200", d.T.Paths.Value("/y").Post: "201"} {
		if r := op.Responses.Value(code); r == nil || r.Value == nil || len(r.Value.Content) != 0 {
			t.Errorf("response %s read as %+v, want one with no content", code, r)
		}
	}

	_, err = loadText(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /y:
    get:
      parameters:
        - $ref: "#/components/schemas/Y"
      responses:
        "200": {description: ok}
components:
  schemas:
    Y: {type: string}
`)
	want := "api.yaml:7:17: paths./y.get.parameters: $ref to #/components/schemas/Y, which is a schema, not a parameter"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestContentRefQuickCheck: the line scan that spares most documents the
// content $ref regexp passes every text the regexp matches (the fixtures
// of the repository and each way of writing one), and turns away a
// document whose content maps are ordinary.
func TestContentRefQuickCheck(t *testing.T) {
	texts := map[string]string{
		"block":            "      content:\n        $ref: ./c.yaml\n",
		"flow":             "  content: {$ref: \"./c.yaml\"}\n",
		"json block":       "  \"content\" :\n    \"$ref\": \"c.json\"\n",
		"json flow":        "  \"content\": { \"$ref\" : \"c.json\" }\n",
		"tabs, last line":  "\tcontent:\t\n\t$ref: c.yaml",
		"ordinary content": "      content:\n        application/json:\n          schema:\n            $ref: '#/components/schemas/x'\n",
	}
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := os.ReadFile(p)
		texts[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for name, text := range texts {
		if !contentRefRE.MatchString(text) {
			continue
		}
		matched++
		if !mayHoldContentRef([]byte(text)) {
			t.Errorf("%s: the regexp matches, the quick check turns it away", name)
		}
	}
	if matched < 5 {
		t.Errorf("the regexp matches %d of the texts, want the 5 written here at least", matched)
	}
	if mayHoldContentRef([]byte(texts["ordinary content"])) {
		t.Error("the quick check passes a content map of media types")
	}
}

// TestWrongKindRefsBounded: each component $ref'd in a place of another
// kind costs a reload, so a document naming more than the bound is
// refused at one of them rather than parsed a thousand times.
func TestWrongKindRefsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /y:\n    post:\n      responses:\n")
	for i := range maxWrongKinds + 2 {
		fmt.Fprintf(&b, "        \"%d\": {$ref: \"#/components/requestBodies/Y%d\"}\n", 200+i, i)
	}
	b.WriteString("components:\n  requestBodies:\n")
	for i := range maxWrongKinds + 2 {
		fmt.Fprintf(&b, "    Y%d: {content: {application/json: {schema: {type: string}}}}\n", i)
	}
	_, err := loadText(t, b.String())
	if err == nil || !strings.Contains(err.Error(), "which is a request body, not a response") {
		t.Errorf("got %v, want the refusal of one $ref past the bound", err)
	}
}
