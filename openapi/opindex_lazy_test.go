package openapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/corpus"
)

// TestIndexRootIsWhole: the index read from the root's paths and
// components alone (indexRoot) is the index read from the whole root,
// on every rule-case document and the corpus's OpenAPI documents, and it
// answers alone for nearly all of them.
func TestIndexRootIsWhole(t *testing.T) {
	texts := yamlTexts(t)
	if corpus.Dir() != "" {
		for _, name := range []string{"stripe-spec3-2023-09-12.yaml", "openai-openapi-855e5d4.yaml"} {
			texts[name] = corpus.Text(t, name)
		}
	}
	lazy, whole := 0, 0
	for name, b := range texts {
		read := func(f string) ([]byte, bool) { return b, f == "openapi.yaml" }
		want, wok := indexOperations("openapi.yaml", read, false)
		got, ok := indexOperations("openapi.yaml", read, true)
		if wok {
			whole++
		}
		if !ok {
			continue
		}
		lazy++
		if !wok {
			t.Errorf("%s: indexed from its paths and components, declined whole", name)
		} else if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: the index from paths and components differs (-whole +lazy):\n%s", name, d)
		}
	}
	t.Logf("%d of %d documents indexed whole, %d from their paths and components", whole, len(texts), lazy)
	if lazy < whole*9/10 {
		t.Errorf("only %d of the %d documents indexed whole were indexed from their paths and components", lazy, whole)
	}
}
