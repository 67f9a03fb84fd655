package openapi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/rules"
)

// manyOps writes a document with n paths, each with a PUT that sends the
// shared Item schema and a GET that returns it, and the Item given.
func manyOps(n int, item string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: many, version: \"1\"}\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, `  /items%d:
    put:
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Item"}
      responses: {"200": {description: ok}}
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
`, i)
	}
	b.WriteString("components:\n  schemas:\n    Item:\n      type: object\n      properties:\n" + item)
	return b.String()
}

func loadBoth(t *testing.T, old, new string) (*openapi.Doc, *openapi.Doc) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"old.yaml": old, "new.yaml": new} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	od, err := openapi.Load(src, "old.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	nd, err := openapi.Load(src, "new.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return od, nd
}

// TestOneChangeOneFinding: changes inside a component that 300 operations
// reach are one change each in the diff and one finding each in the report,
// at the component's line, naming every operation in the right direction.
func TestOneChangeOneFinding(t *testing.T) {
	const n = 300
	od, nd := loadBoth(t,
		manyOps(n, "        name: {type: string, maxLength: 100}\n        sku: {type: string}\n"),
		manyOps(n, "        name: {type: string, maxLength: 50}\n"))
	changes := openapi.Diff(od, nd)

	type changeKey struct {
		kind    rules.Kind
		subject rules.Subject
		aspect  rules.Aspect
		path    string
		dir     rules.Direction
	}
	seen := map[changeKey]bool{}
	for _, c := range changes {
		k := changeKey{c.Kind, c.Subject, c.Aspect, c.Path, c.Dir}
		if seen[k] {
			t.Errorf("change %+v listed twice", k)
		}
		seen[k] = true
	}
	// sku removed and maxLength lowered, each once per direction.
	if len(changes) != 4 {
		t.Errorf("got %d changes, want 4 (2 changes x 2 directions): %+v", len(changes), changes)
	}

	fs := engine.Run(rules.Default(), &rules.Settings{}, rules.DiffRule,
		&rules.Input{Changes: changes, Old: od.Contract(), New: nd.Contract()})
	pairs := map[string]bool{}
	byRule := map[string]rules.Finding{}
	for _, f := range fs {
		pairs[f.Rule+" "+f.Where.String()] = true
		byRule[f.Rule] = f
	}
	if len(fs) != len(pairs) {
		t.Errorf("%d findings for %d distinct (rule, location) pairs", len(fs), len(pairs))
	}
	for rule, want := range map[string]struct {
		file, method string
		line         int
	}{
		"request-max-decreased":     {"new.yaml", "PUT", 14*n + 9},
		"response-property-removed": {"old.yaml", "GET", 14*n + 10},
	} {
		f, ok := byRule[rule]
		if !ok {
			t.Errorf("no %s finding; got %v", rule, fs)
			continue
		}
		if f.Where.File != want.file || f.Where.Line != want.line {
			t.Errorf("%s at %s, want %s:%d", rule, f.Where, want.file, want.line)
		}
		if len(f.Operations) != n {
			t.Errorf("%s names %d operations, want %d", rule, len(f.Operations), n)
		}
		for _, op := range f.Operations {
			if !strings.HasPrefix(op, want.method+" ") {
				t.Errorf("%s names %s, which does not %s the change", rule, op, want.method)
				break
			}
		}
		if !strings.Contains(f.Message, fmt.Sprintf("reaches %d operations", n)) {
			t.Errorf("%s message does not say how many operations: %s", rule, f.Message)
		}
	}
	if len(byRule) != len(fs) {
		t.Errorf("a rule reported more than once: %v", fs)
	}
}
