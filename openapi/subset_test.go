package openapi

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const subsetHead = "openapi: 3.0.3\ninfo:\n  title: t\n  version: '1'\n"

// subsetDoc is a document whose paths and schemas are the given texts.
func subsetDoc(paths, schemas string) string {
	return subsetHead + "paths:\n" + paths + "components:\n  schemas:\n" + schemas
}

const (
	pathA = "  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/A'\n"
	pathC = "  /c:\n    get:\n      operationId: getC\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: \"#/components/schemas/C\"}\n"
	schA  = "    A:\n      type: object\n      properties:\n        b:\n          $ref: '#/components/schemas/B'\n"
	schB  = "    B:\n      type: string\n"
	schC  = "    C:\n      type: integer\n"
)

// kept lists the chunks left in a subset text, by pointer.
func kept(t *testing.T, text []byte) []string {
	t.Helper()
	d, why := cut(text)
	if why != nil {
		t.Fatalf("the subset text does not cut (%v):\n%s", why, text)
	}
	var out []string
	for p := range d.chunks {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func TestPlanSubsetKeeps(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string // chunks kept, sorted
	}{
		{"a changed schema keeps the paths reaching it, not the others",
			subsetDoc(pathA+pathC, schA+schB+schC),
			subsetDoc(pathA+pathC, schA+"    B:\n      type: integer\n"+schC),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/paths/~1a"}},
		{"a path whose only change is its $ref target keeps both targets",
			subsetDoc(pathA+pathC, schA+schB+schC),
			subsetDoc(strings.Replace(pathA, "schemas/A", "schemas/C", 1)+pathC, schA+schB+schC),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a"}},
		{"a removed path is kept on its side, with what it $refs on both",
			subsetDoc(pathA+pathC, schA+schB+schC),
			subsetDoc(pathA, schA+schB+schC),
			[]string{"#/components/schemas/C"}},
		{"block scalars deeper than their key are text, however they look",
			subsetDoc(pathA+"  /d:\n    get:\n      description: |\n        /e:\n        $ref: '#/components/schemas/Nope'\n          - 'not a quote\n      responses:\n        '200': {description: ok}\n", schA+schB+schC),
			subsetDoc(pathA+"  /d:\n    get:\n      description: |\n        /e:\n        $ref: '#/components/schemas/Nope'\n          - 'not a quote\n      responses:\n        '200': {description: changed}\n", schA+schB+schC),
			[]string{"#/paths/~1d"}},
		{"comments, and keys holding # and :",
			subsetDoc(pathA+"# /x:\n  # $ref: '#/components/schemas/Nope'\n  '/f#g:h':\n    get:\n      summary: a # b: c\n      responses:\n        '200':\n          description: ok\n  /i#j:k:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+schC),
			subsetDoc(pathA+"# /x:\n  # $ref: '#/components/schemas/Nope'\n  '/f#g:h':\n    get:\n      summary: a # b: d\n      responses:\n        '200':\n          description: ok\n  /i#j:k:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+schC),
			[]string{"#/paths/~1f#g:h"}},
		{"plain and quoted scalars over several lines",
			subsetDoc(pathA+"  /m:\n    get:\n      summary: one\n        - 'two\n        three four\n      description: \"five\n  /six: seven\"\n      responses: {'200': {description: ok}}\n", schA+schB+schC),
			subsetDoc(pathA+"  /m:\n    get:\n      summary: one\n        - 'two\n        three four\n      description: \"five\n  /six: eight\"\n      responses: {'200': {description: ok}}\n", schA+schB+schC),
			[]string{"#/paths/~1m"}},
		{"a long $ref folded onto the next line",
			subsetDoc(pathA+pathC, schA+schB+schC),
			subsetDoc(pathA+pathC, "    A:\n      type: object\n      properties:\n        b:\n          $ref: >-\n            #/components/schemas/B\n"+schB+schC),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/paths/~1a"}},
		{"a $ref into a component keeps the component",
			subsetDoc(strings.Replace(pathA, "schemas/A'", "schemas/B/properties/x'", 1)+pathC, schA+"    B:\n      type: object\n      properties:\n        x: {type: string}\n"+schC),
			subsetDoc(strings.Replace(pathA, "schemas/A'", "schemas/B/properties/x'", 1)+pathC, schA+"    B:\n      type: object\n      properties:\n        x: {type: integer}\n"+schC),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/paths/~1a"}},
		{"flow collections over lines (Linode's examples) are read through",
			subsetDoc(pathA+pathC, schA+"    B:\n      type: string\n      example: [\n        {\"id\": 1, \"note\": \"a ] in text # and a hash\"},  # a comment\n        {\"id\": 2}\n      ]\n"+schC),
			subsetDoc(pathA+pathC, schA+"    B:\n      type: string\n      example: [\n        {\"id\": 1, \"note\": \"a ] in text # and a hash\"},  # a comment\n        {\"id\": 3}\n      ]\n"+strings.Replace(schC, "integer", "number", 1)),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"a sequence entry written as a flow over lines",
			subsetDoc(pathA+pathC, schA+"    B:\n      type: array\n      example:\n      - {\n          \"id\": 1\n        }\n"+schC),
			subsetDoc(pathA+pathC, schA+"    B:\n      type: array\n      example:\n      - {\n          \"id\": 2\n        }\n"+schC),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/paths/~1a"}},
		{"a component that is a $ref itself is kept with what reaches its target",
			subsetDoc(pathA+pathC, schA+schB+"    C:\n      $ref: '#/components/schemas/B'\n"),
			subsetDoc(pathA+pathC, schA+"    B:\n      type: integer\n"+"    C:\n      $ref: '#/components/schemas/B'\n"),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"so is one written on its line",
			subsetDoc(pathA+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+"    C: {$ref: '#/components/schemas/B'}\n"),
			subsetDoc(pathA+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+"    B:\n      type: integer\n"+"    C: {$ref: '#/components/schemas/B'}\n"),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"a property named $ref (Okta's) is a name, not a reference",
			subsetDoc(pathA+pathC, schA+"    B:\n      type: object\n      properties:\n        $ref:\n          type: string\n"+schC),
			subsetDoc(pathA+pathC, schA+"    B:\n      type: object\n      properties:\n        $ref:\n          type: integer\n"+schC),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/paths/~1a"}},
		{"a $ref to a component there is not is kept, as the whole load would fail on it",
			subsetDoc(pathA+pathC, strings.Replace(schA, "schemas/B'", "schemas/Nope'", 1)+schB+schC),
			subsetDoc(pathA+pathC, strings.Replace(schA, "schemas/B'", "schemas/Nope'", 1)+schB+strings.Replace(schC, "integer", "number", 1)),
			[]string{"#/components/schemas/A", "#/components/schemas/C", "#/paths/~1c"}},
		{"an operationId used twice keeps both operations, as kin-openapi checks it across the document",
			subsetDoc(strings.Replace(pathA, "    get:\n", "    get:\n      operationId: getC\n", 1)+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+schC),
			subsetDoc(strings.Replace(pathA, "    get:\n", "    get:\n      operationId: getC\n", 1)+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+strings.Replace(schC, "integer", "number", 1)),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"so do paths alike but for their parameters' names (Xero's)",
			subsetDoc(pathA+pathC+"  /c/{x}:\n    get:\n      responses: {'200': {description: ok}}\n  /c/{y}:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+schC),
			subsetDoc(pathA+pathC+"  /c/{x}:\n    get:\n      responses: {'200': {description: ok}}\n  /c/{y}:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+strings.Replace(schC, "integer", "number", 1)),
			[]string{"#/components/schemas/C", "#/paths/~1c", "#/paths/~1c~1{x}", "#/paths/~1c~1{y}"}},
		{"an anchor defined twice is each entry's own",
			subsetDoc(pathA+pathC, schA+"    B: &b\n      type: string\n    C: &b\n      type: integer\n"),
			subsetDoc(pathA+pathC, schA+"    B: &b\n      type: string\n    C: &b\n      type: number\n"),
			[]string{"#/components/schemas/C", "#/paths/~1c"}},
		{"a $ref key with a scalar below is a $ref",
			subsetDoc(pathA+pathC, schA+"    B:\n      $ref:\n        '#/components/schemas/C'\n"+schC),
			subsetDoc(pathA+pathC, schA+"    B:\n      $ref:\n        '#/components/schemas/C'\n"+strings.Replace(schC, "integer", "number", 1)),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"an alias reaches a change to its anchor (js-yaml's &ref_0)",
			subsetDoc(pathA+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+"    B: &b\n      type: string\n    C: *b\n"),
			subsetDoc(pathA+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+"    B: &b\n      type: integer\n    C: *b\n"),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"a kept alias keeps its anchor",
			subsetDoc(pathA+pathC+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+"    B: &b\n      type: string\n    C: *b\n"),
			subsetDoc(pathA+strings.Replace(pathC, "description: ok", "description: changed", 1)+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+"    B: &b\n      type: string\n    C: *b\n"),
			[]string{"#/components/schemas/B", "#/components/schemas/C", "#/paths/~1c"}},
		{"an alias inside a flow collection, to an anchor in another entry",
			subsetDoc(pathA+pathC, schA+"    B: &b\n      type: string\n    C: {allOf: [*b]}\n"),
			subsetDoc(pathA+pathC, schA+"    B: &b\n      type: integer\n    C: {allOf: [*b]}\n"),
			[]string{"#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/C", "#/paths/~1a", "#/paths/~1c"}},
		{"a schema aliases an anchor in a path, indented otherwise",
			subsetDoc(pathA+strings.Replace(pathC, `{$ref: "#/components/schemas/C"}`, "&c {type: integer}", 1)+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+"    C: *c\n"),
			subsetDoc(pathA+strings.Replace(pathC, `{$ref: "#/components/schemas/C"}`, "&c {type: number}", 1)+"  /d:\n    get:\n      responses: {'200': {description: ok}}\n", schA+schB+"    C: *c\n"),
			[]string{"#/components/schemas/C", "#/paths/~1c"}},
		{"a keep-chomped scalar ending a header entry, a section's key after it (Equinix's securitySchemes)",
			subsetHead + "components:\n  securitySchemes:\n    k:\n      type: apiKey\n      name: k\n      in: header\n      description: |+\n        x\n  schemas:\n" + schA + schB + schC + "paths:\n" + pathA + pathC,
			subsetHead + "components:\n  securitySchemes:\n    k:\n      type: apiKey\n      name: k\n      in: header\n      description: |+\n        x\n  schemas:\n" + schA + schB + strings.Replace(schC, "integer", "number", 1) + "paths:\n" + pathA + pathC,
			[]string{"#/components/schemas/C", "#/paths/~1c"}},
		{"a leading document marker (PyYAML's explicit start) is the header's",
			"---\n" + subsetDoc(pathA+pathC, schA+schB+schC),
			"---\n" + subsetDoc(pathA+pathC, schA+schB+strings.Replace(schC, "integer", "number", 1)),
			[]string{"#/components/schemas/C", "#/paths/~1c"}},
		{"an ignore is kept, with what it $refs",
			subsetDoc(pathA+pathC, schA+schB+"    C:\n      type: integer\n      x-contractlint-ignore: {money-as-float: fine}\n"),
			subsetDoc(pathA+strings.Replace(pathC, "getC", "getC2", 1), schA+schB+"    C:\n      type: integer\n      x-contractlint-ignore: {money-as-float: fine}\n"),
			[]string{"#/components/schemas/C", "#/paths/~1c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub, ok := PlanSubset([]byte(tc.old), []byte(tc.new))
			if !ok {
				t.Fatal("no subset")
			}
			if d := cmp.Diff(tc.want, kept(t, sub.NewText())); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			for side, pair := range map[string][2][]byte{"old": {[]byte(tc.old), sub.OldText()}, "new": {[]byte(tc.new), sub.NewText()}} {
				sameLines(t, side, pair[0], pair[1])
			}
		})
	}
}

// sameLines checks that the subset text has every line where the document
// has it: each line kept whole or emptied, or a section written `{}`.
func sameLines(t *testing.T, side string, doc, sub []byte) {
	t.Helper()
	dl, sl := bytes.Split(doc, []byte("\n")), bytes.Split(sub, []byte("\n"))
	if len(dl) != len(sl) {
		t.Fatalf("%s: %d lines, the document %d", side, len(sl), len(dl))
	}
	for i := range dl {
		if !bytes.Equal(dl[i], sl[i]) && len(sl[i]) > 0 && !bytes.Equal(sl[i], append(dl[i], " {}"...)) {
			t.Errorf("%s line %d: %q, the document has %q", side, i+1, sl[i], dl[i])
		}
	}
}

func TestPlanSubsetEmptiedSection(t *testing.T) {
	old := subsetDoc(pathA, schA+schB)
	sub, ok := PlanSubset([]byte(old+"  responses:\n    R:\n      description: r\n"), []byte(old+"  responses:\n    R:\n      description: s\n"))
	if !ok {
		t.Fatal("no subset")
	}
	if !bytes.Contains(sub.NewText(), []byte("\npaths: {}\n")) || !bytes.Contains(sub.NewText(), []byte("\n  schemas: {}\n")) {
		t.Errorf("sections left empty are not written {}:\n%s", sub.NewText())
	}
	if sub.Skipped != 3 || sub.Chunks != 4 {
		t.Errorf("skipped %d of %d chunks, want 3 of 4", sub.Skipped, sub.Chunks)
	}
}

// TestPlanSubsetUnsure: what the cutter is not sure of leaves the whole
// documents to the loader.
func TestPlanSubsetUnsure(t *testing.T) {
	base := subsetDoc(pathA+pathC, schA+schB+schC)
	changed := strings.Replace(base, "type: integer", "type: number", 1)
	for name, text := range map[string]string{
		"JSON":                       `{"openapi": "3.0.3", "paths": {}}`,
		"a tab":                      strings.Replace(base, "      type: string", "      type:\tstring", 1),
		"CR line ends":               strings.ReplaceAll(base, "\n", "\r\n"),
		"a second document":          base + "---\nopenapi: 3.0.3\n",
		"a directive":                "%YAML 1.2\n---\n" + base,
		"an alias before its anchor": strings.Replace(base, "    C:\n      type: integer", "    C: *b", 1),
		"a tag":                      strings.Replace(base, "type: string", "type: !!str string", 1),
		"a flow over lines, a line at column one": strings.Replace(base, "    B:\n      type: string", "    B: {type:\nstring}", 1),
		"a $ref in a flow over lines":             strings.Replace(base, "    C:\n      type: integer", "    C: {allOf: [\n      $ref: '#/components/schemas/B']}", 1),
		"a quote open across a flow's lines":      strings.Replace(base, "    B:\n      type: string", "    B: {type: string, description: 'a\n      b'}", 1),
		"keep chomping at an end":                 strings.Replace(base, "    B:\n      type: string\n", "    B:\n      type: string\n      description: |+\n        x\n\n", 1),
		"an external ref":                         strings.Replace(base, "'#/components/schemas/B'", "'b.yaml#/B'", 1),
		"a path twice":                            strings.Replace(base, "  /c:", "  /a:", 1),
		"a 3.1 $id":                               strings.Replace(strings.Replace(base, "    B:\n      type: string", "    B:\n      $id: https://example.com/b\n      type: string", 1), "openapi: 3.0.3", "openapi: 3.1.0", 1),
		"a $ref key with a list below":            strings.Replace(base, "    B:\n      type: string", "    B:\n      properties:\n        $ref:\n        - x", 1),
		"a sequence at chunk level":               strings.Replace(base, "    B:\n      type: string\n", "    B:\n    - x\n", 1),
	} {
		t.Run(name, func(t *testing.T) {
			if _, ok := PlanSubset([]byte(base), []byte(text)); ok {
				t.Errorf("planned a subset of\n%s", text)
			}
			if _, ok := PlanSubset([]byte(text), []byte(changed)); ok {
				t.Errorf("planned a subset with old\n%s", text)
			}
		})
	}
	if _, ok := PlanSubset([]byte(base), []byte(strings.Replace(changed, "openapi: 3.0.3", "openapi: 3.0.2", 1))); ok {
		t.Error("planned a subset though the text outside the chunks changed")
	}
	for name, spelt := range map[string]string{
		"quoted":         strings.Replace(changed, "openapi: 3.0.3", "openapi: '3.0.3'", 1),
		"with a comment": strings.Replace(changed, "openapi: 3.0.3", "openapi: 3.0.3 # the version", 1),
	} {
		if _, ok := PlanSubset([]byte(base), []byte(spelt)); !ok {
			t.Errorf("the text outside the chunks %s, the same values, stops the subset", name)
		}
	}
	if _, ok := PlanSubset([]byte(base), []byte(strings.Replace(changed, "openapi: 3.0.3", "openapi: '3.0.2'", 1))); ok {
		t.Error("planned a subset though a quoted value outside the chunks changed")
	}
	if _, ok := PlanSubset([]byte(base), []byte(strings.Replace(changed, "version: '1'", "version: '2'", 1))); !ok {
		t.Error("a new info.version alone stops the subset")
	}
	if _, ok := PlanSubset([]byte(base), []byte(changed)); !ok {
		t.Error("the base case itself plans no subset")
	}
}

func TestSubsetComplete(t *testing.T) {
	sub, ok := PlanSubset([]byte(subsetDoc(pathA+pathC, schA+schB+schC)), []byte(subsetDoc(pathA+pathC, schA+"    B:\n      type: integer\n"+schC)))
	if !ok {
		t.Fatal("no subset")
	}
	for p, want := range map[string]bool{
		"#/components/schemas/B":                   true,
		"#/components/schemas/A/properties/b":      true,
		"#/paths/~1a/get":                          true,
		"#/paths/~1c/get":                          false, // left out
		"#/components/schemas/Bx":                  false,
		"#invalid: paths./a: #/components/schemas": false,
	} {
		if got := sub.Complete(p); got != want {
			t.Errorf("Complete(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestNamesKey(t *testing.T) {
	for text, want := range map[string]bool{
		"- name: Idempotency-Key\n":          true,
		"name: IDEMPOTENCY-KEY":              true,
		"x-idempotency:\n  header: K":        true,
		"X-Idempotency: {}":                  true,
		"description: idempotent requests":   false,
		"description: idempotency is a goal": false,
		"dempotency-key":                     false,
		"":                                   false,
	} {
		if got := NamesKey([]byte(text)); got != want {
			t.Errorf("NamesKey(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestPlanSubsetTagsDiffer: a release that adds an operation adds its tag
// to the root's tags (and Redocly's x-tagGroups) too, as Lob's does; the
// model reads neither, so the plan stands. A root key the model does read
// (x-idempotency, the API's key convention) differing still loads whole.
func TestPlanSubsetTagsDiffer(t *testing.T) {
	body := "paths:\n" + pathA + pathC + "components:\n  schemas:\n" + schA + schB + schC
	old := subsetHead + "tags:\n  - name: a\nx-tagGroups:\n  - name: g\n    tags: [a]\n" + body
	new := subsetHead + "tags:\n  - name: a\n  - name: c\n    description: new\nx-tagGroups:\n  - name: g\n    tags: [a, c]\nexternalDocs: {url: 'https://example.com'}\n" +
		strings.Replace(body, "type: integer", "type: number", 1)
	s, why := Plan([]byte(old), []byte(new))
	if why != nil || s.Skipped == 0 {
		t.Fatalf("tags differ: no plan (%v), or nothing left out", why)
	}
	keyed := strings.Replace(new, "tags:\n", "x-idempotency: {header: Idempotency-Key}\ntags:\n", 1)
	if _, why := Plan([]byte(old), []byte(keyed)); why == nil {
		t.Errorf("x-idempotency differs: planned")
	}
}

// TestAnchorMovedBetweenSides: a part alike on both sides that aliases an
// anchor held by another chunk on each side reaches each side's own.
func TestAnchorMovedBetweenSides(t *testing.T) {
	old := subsetDoc(pathA+pathC, schA+"    B: &b\n      type: string\n    C: *b\n")
	new := subsetDoc(pathA+pathC, schA+"    Bee: &b\n      type: string\n    C: *b\n")
	o, n, owhy, nwhy := cutPair([]byte(old), []byte(new))
	if owhy != nil || nwhy != nil {
		t.Fatalf("not cut: %v, %v", owhy, nwhy)
	}
	for _, side := range []struct {
		d    *pieces
		want string
	}{{o, "#/components/schemas/B"}, {n, "#/components/schemas/Bee"}} {
		if got := side.d.chunks["#/components/schemas/C"].refs; !slices.Equal(got, []string{side.want}) {
			t.Errorf("C reaches %v, want %s", got, side.want)
		}
	}
}

// TestHeaderDiffersUnparsed: a pair whose text outside the chunks differs
// (Linode's releases change their servers and security schemes) cannot be
// planned, and is told so before any part is parsed: the whole load that
// follows is all the run pays.
func TestHeaderDiffersUnparsed(t *testing.T) {
	old := subsetDoc(pathA+pathC, schA+schB+schC)
	for name, new := range map[string]string{
		"YAML":           strings.Replace(old, "openapi: 3.0.3", "openapi: 3.0.2", 1),
		"YAML, a server": strings.Replace(old, "paths:", "servers:\n  - url: https://example.com\npaths:", 1),
	} {
		ps := newParses(nil)
		ds, whys := ps.cut([]byte(old), []byte(new))
		if whys[1] == nil || whys[1].Reason != "the text outside the paths and components differs" || ds[0] != nil || ds[1] != nil {
			t.Errorf("%s: cut gave %v, %v; want no pieces and the header's reason", name, ds, whys)
		}
		if len(ps.done) > 0 {
			t.Errorf("%s: %d parts parsed, want none", name, len(ps.done))
		}
	}
	ps := newParses(nil)
	if _, whys := ps.cut([]byte(old), []byte(strings.Replace(old, "openapi: 3.0.3", "openapi: '3.0.3'", 1))); whys[0] != nil || whys[1] != nil || len(ps.done) == 0 {
		t.Errorf("the same header values spelt otherwise: %v, %d parts parsed; want a cut", whys, len(ps.done))
	}
}
