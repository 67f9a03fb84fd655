package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/tojson"
)

// toJSON is text as indented JSON, "" when JSON cannot hold it.
func toJSON(text string) string {
	j, _ := tojson.Indented(text)
	return j
}

// TestPlanSubsetJSON: an indented JSON document is cut and planned as its
// YAML is, and a minified one by bytes; what the YAML cutter is unsure of
// is not.
func TestPlanSubsetJSON(t *testing.T) {
	base := subsetDoc(pathA+pathC, schA+schB+schC)
	changed := strings.Replace(base, "type: integer", "type: number", 1)
	ob, nb := toJSON(base), toJSON(changed)
	s, ok := PlanSubset([]byte(ob), []byte(nb))
	if !ok || s.Skipped == 0 {
		t.Fatalf("no subset planned of the JSON documents (%v), or nothing left out", ok)
	}
	ys, _ := PlanSubset([]byte(base), []byte(changed))
	if s.Chunks != ys.Chunks || s.Skipped != ys.Skipped {
		t.Errorf("JSON plan: %d chunks, %d left out; the YAML's %d, %d", s.Chunks, s.Skipped, ys.Chunks, ys.Skipped)
	}
	for _, text := range []string{ob, nb, string(s.OldText()), string(s.NewText())} {
		var v any
		if err := yaml.Unmarshal([]byte(text), &v); err != nil {
			t.Errorf("a text of the plan does not parse: %v\n%s", err, text)
		}
	}
	var v any
	json.Unmarshal([]byte(nb), &v)
	minified, _ := json.Marshal(v)
	var ov any
	json.Unmarshal([]byte(ob), &ov)
	oldMinified, _ := json.Marshal(ov)
	ms, why := Plan(oldMinified, minified)
	if why != nil || ms.Skipped != s.Skipped || ms.Chunks != s.Chunks {
		t.Errorf("minified: plan %+v (%v), want the indented one's %d chunks, %d left out", ms, why, s.Chunks, s.Skipped)
	} else if text := ms.NewText(); len(text) != len(minified) || !json.Valid(dropTrailingCommas(text)) {
		t.Errorf("minified: the plan's text is not the document's length, or not JSON:\n%s", text)
	}
	alias := toJSON(strings.Replace(base, "    C:\n      type: integer", "    C:\n      $ref: '#/components/schemas/B'", 1))
	if as, ok := PlanSubset([]byte(alias), []byte(strings.Replace(alias, `"string"`, `"integer"`, 1))); !ok || !as.o.asText || as.Skipped != 0 {
		t.Errorf("a component that is a ref: planned %v, as text %v, want planned as text with C kept", ok, ok && as.o.asText)
	}
	for name, text := range map[string]string{
		"an external ref": toJSON(strings.Replace(base, "'#/components/schemas/B'", "'b.yaml#/B'", 1)),
	} {
		if _, ok := PlanSubset([]byte(ob), []byte(text)); ok {
			t.Errorf("%s: planned a subset of\n%s", name, text)
		}
	}
}

// TestPatchIsTheLoadJSON is TestPatchIsTheLoad on every rule case written
// as indented JSON: Patch, from a plan of the JSON documents, stands for a
// load of the plan's text, field by field.
func TestPatchIsTheLoadJSON(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*", "old.yaml"))
	var cases []patchCase
	for _, o := range dirs {
		ob, oerr := os.ReadFile(o)
		nb, nerr := os.ReadFile(filepath.Join(filepath.Dir(o), "new.yaml"))
		if oerr != nil || nerr != nil {
			continue
		}
		oj, nj := toJSON(string(ob)), toJSON(string(nb))
		if oj != "" && nj != "" {
			cases = append(cases, patchCase{filepath.Base(filepath.Dir(filepath.Dir(o))) + "/" + filepath.Base(filepath.Dir(o)), oj, nj})
		}
	}
	patchAll(t, cases)
}

// TestPlanSubsetRecursiveKeywords: 2019-09's $recursiveAnchor and
// $recursiveRef, which kin-openapi does not resolve, do not stop a plan;
// $id, which gives a 3.1 schema a base its $refs resolve against, does.
func TestPlanSubsetRecursiveKeywords(t *testing.T) {
	base := subsetDoc(pathA+pathC, schA+schB+schC)
	rec := strings.Replace(base, "    B:\n      type: string", "    B:\n      $recursiveAnchor: true\n      type: string\n      properties:\n        next: {$recursiveRef: '#'}", 1)
	changed := strings.Replace(rec, "type: integer", "type: number", 1)
	if s, ok := PlanSubset([]byte(rec), []byte(changed)); !ok || s.Skipped == 0 {
		t.Errorf("no subset planned (%v), or nothing left out, with $recursive keywords", ok)
	}
	with31 := strings.Replace(strings.Replace(changed, "$recursiveAnchor: true", "$id: https://example.com/b", 1), "openapi: 3.0.3", "openapi: 3.1.0", 1)
	if _, ok := PlanSubset([]byte(strings.Replace(rec, "openapi: 3.0.3", "openapi: 3.1.0", 1)), []byte(with31)); ok {
		t.Error("planned a subset with a 3.1 $id")
	}
	// In 3.0 an $id is no keyword (Okta's examples quote JSON Schemas).
	with30 := strings.Replace(changed, "$recursiveAnchor: true", "$id: https://example.com/b", 1)
	if _, ok := PlanSubset([]byte(rec), []byte(with30)); !ok {
		t.Error("no subset planned with a 3.0 $id")
	}
}

// TestPlanSubsetKeepChomping: a |+ scalar takes the blank lines after it,
// so it may not end a chunk (TestPlanSubsetUnsure); followed by more of
// its chunk, it is planned, and keeps its value in the plan's text though
// the chunk after it is blanked.
func TestPlanSubsetKeepChomping(t *testing.T) {
	base := subsetDoc(pathA+pathC, schA+"    B:\n      description: |+\n        x\n\n      type: string\n"+schC)
	changed := strings.Replace(base, "      type: string\n", "      type: integer\n", 1)
	s, ok := PlanSubset([]byte(base), []byte(changed))
	if !ok || s.Skipped == 0 {
		t.Fatalf("no subset planned (%v), or nothing left out", ok)
	}
	var v struct {
		Components struct {
			Schemas map[string]struct{ Description string }
		}
	}
	if err := yaml.Unmarshal(s.NewText(), &v); err != nil {
		t.Fatal(err)
	}
	if d := v.Components.Schemas["B"].Description; d != "x\n\n" {
		t.Errorf("the kept scalar reads %q in the plan's text, want %q", d, "x\n\n")
	}
}

// TestPlanSubsetLongPointer: a double-quoted $ref broken over lines with
// escaped line breaks (OpenAI's long schema names) is read whole; any
// other break in it is not.
func TestPlanSubsetLongPointer(t *testing.T) {
	base := subsetDoc(pathA+pathC, schA+schB+schC)
	long := strings.Replace(base, "$ref: '#/components/schemas/B'", "$ref: \"#/components/\\\n          schemas/B\"", 1)
	changed := strings.Replace(long, "type: integer", "type: number", 1)
	d, why := cut([]byte(long))
	if why != nil {
		t.Fatalf("not cut (%v):\n%s", why, long)
	}
	if refs := d.chunks["#/components/schemas/A"].refs; len(refs) != 1 || refs[0] != "#/components/schemas/B" {
		t.Errorf("A's refs %v, want B", refs)
	}
	if _, ok := PlanSubset([]byte(long), []byte(changed)); !ok {
		t.Error("no subset planned")
	}
	folded := strings.Replace(base, "$ref: '#/components/schemas/B'", "$ref: \"#/components/\n          schemas/B\"", 1)
	if _, why := cut([]byte(folded)); why == nil {
		t.Error("cut a pointer with a line break folded into a space")
	}
}

// layoutCases are the pairs under testdata/layouts: real contracts' layouts
// reduced (each directory's SOURCE.md names its source and licence), as
// old.* and new.* of one extension.
func layoutCases(t *testing.T) []patchCase {
	t.Helper()
	olds, _ := filepath.Glob(filepath.Join("testdata", "layouts", "*", "old.*"))
	if len(olds) == 0 {
		t.Fatal("no layout cases")
	}
	var cases []patchCase
	for _, o := range olds {
		ob, oerr := os.ReadFile(o)
		nb, nerr := os.ReadFile(filepath.Join(filepath.Dir(o), "new"+filepath.Ext(o)))
		if oerr != nil || nerr != nil {
			t.Fatal(oerr, nerr)
		}
		cases = append(cases, patchCase{"layouts/" + filepath.Base(filepath.Dir(o)), string(ob), string(nb)})
	}
	return cases
}

// TestPatchIsTheLoadLayouts is TestPatchIsTheLoad on the layout cases cut
// by lines. Patch places a chunk by its lines, so one cut by bytes
// (minified JSON) is refused, and its plan's text loaded.
func TestPatchIsTheLoadLayouts(t *testing.T) {
	var lines []patchCase
	for _, tc := range layoutCases(t) {
		s, why := Plan([]byte(tc.old), []byte(tc.new))
		switch {
		case why != nil:
			t.Errorf("%s: %v", tc.name, why)
		case !s.n.bytewise:
			lines = append(lines, tc)
		default:
			if _, ok := s.ParseEdit("new.json"); ok {
				t.Errorf("%s: Patch parsed an edit cut by bytes", tc.name)
			}
		}
	}
	patchAll(t, lines)
}

// TestPlanSubsetLayouts: every layout case is planned, and leaves a chunk
// out.
func TestPlanSubsetLayouts(t *testing.T) {
	for _, tc := range layoutCases(t) {
		s, why := Plan([]byte(tc.old), []byte(tc.new))
		if why != nil || s.Skipped == 0 {
			t.Errorf("%s: no plan (%v), or nothing left out", tc.name, why)
		}
	}
}

// TestPlanSubsetIdentityByPlace: in JSON, a property named $id and an
// example holding one (Box's metadata instances) are not identity
// keywords; a $id where a schema's keywords are is, and NoPlan says where.
func TestPlanSubsetIdentityByPlace(t *testing.T) {
	ob, err := os.ReadFile(filepath.Join("testdata", "layouts", "box", "old.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, why := Plan(ob, ob)
	if why != nil || s.Skipped == 0 {
		t.Fatalf("no plan (%v), or nothing left out", why)
	}
	const at = `      "User": {
        "type": "object",`
	keyword := strings.Replace(string(ob), at, at+"\n        \"$id\": \"https://example.com/user\",", 1)
	line := strings.Count(keyword[:strings.Index(keyword, `"$id": "https`)], "\n") + 1
	_, why = Plan(ob, []byte(keyword))
	if why == nil || !why.New || why.Line != line || !strings.Contains(why.Reason, "$id") {
		t.Errorf("a $id keyword: %+v, want the new document's $id at line %d", why, line)
	}
}
