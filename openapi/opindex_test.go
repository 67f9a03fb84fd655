package openapi_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// conventionOf is what the key convention reads of each operation.
type conventionOp struct {
	ID, Method string
	Loc        rules.Location
	Idempotent bool
	Key        string
}

func conventionOf(ops []*rules.Operation) []conventionOp {
	out := make([]conventionOp, len(ops))
	for i, op := range ops {
		out[i] = conventionOp{ID: op.ID, Method: op.Method, Loc: op.Loc, Idempotent: op.Idempotent}
		if op.Key != nil {
			out[i].Key = op.Key.Name
		}
	}
	return out
}

// indexAgrees holds the index of root in dir, with every operation taken
// from it, to the whole load's lowered operations; false when the index
// declines the document (the load then decides).
func indexAgrees(t *testing.T, dir, root string) bool {
	t.Helper()
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ops, ok := openapi.IndexOperations(root, func(name string) ([]byte, bool) {
		b, err := src.ReadFile(name)
		return b, err == nil
	})
	if !ok {
		return false
	}
	d, err := openapi.Load(src, root, nil)
	if err != nil {
		return false
	}
	c := d.Contract()
	got := d.Convention(&rules.Contract{Format: rules.OpenAPI, Key: c.Key}, ops)
	if diff := cmp.Diff(conventionOf(c.Operations), conventionOf(got)); diff != "" {
		t.Errorf("%s in %s: the index differs from the load (-load +index):\n%s", root, dir, diff)
	}
	return true
}

// TestIndexAgreesWithLoad: for every OpenAPI document of the rule cases,
// as written and split into a root and a file per path, the operation
// index reads what the loader and lowering make of each operation (its
// place, whether it is idempotent, its key), and in their order.
func TestIndexAgreesWithLoad(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*", "*.yaml"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	indexed, split := 0, 0
	for _, doc := range docs {
		if b := filepath.Base(doc); b != "old.yaml" && b != "new.yaml" {
			continue
		}
		if indexAgrees(t, filepath.Dir(doc), filepath.Base(doc)) {
			indexed++
		}
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := corpus.Split(text, dir); err != nil {
			continue
		}
		if indexAgrees(t, dir, "openapi.yaml") {
			split++
		}
	}
	t.Logf("%d documents and %d split trees indexed", indexed, split)
	if indexed < 400 || split < 300 {
		t.Errorf("only %d documents and %d split trees indexed", indexed, split)
	}
}

// TestIndexDeclines: what the index is not sure it reads as the loader
// does, it declines, and the caller loads the whole document.
func TestIndexDeclines(t *testing.T) {
	for name, doc := range map[string]string{
		"an operation written as a $ref": "paths:\n  /a:\n    post: {$ref: 'op.yml'}\n",
		"a $ref to a URL":                "paths:\n  /a:\n    $ref: 'https://example.com/a.yml'\n",
		"a $ref to a file not read":      "paths:\n  /a:\n    $ref: 'gone.yml'\n",
		"an alias":                       "x-p: &p {name: Idempotency-Key, in: header}\npaths:\n  /a:\n    post:\n      parameters: [*p]\n",
		"a merge key":                    "x-p: &p {get: {}}\npaths:\n  /a:\n    <<: *p\n",
		"additionalOperations":           "paths:\n  /a:\n    additionalOperations: {COPY: {}}\n",
		"a $ref cycle":                   "paths:\n  /a:\n    $ref: '#/x'\nx: {$ref: '#/paths/~1a'}\n",
	} {
		_, ok := openapi.IndexOperations("openapi.yaml", func(f string) ([]byte, bool) { return []byte(doc), f == "openapi.yaml" })
		if ok {
			t.Errorf("%s: indexed", name)
		}
	}
}
