package protobuf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// tree writes files into a temporary root and returns it as a Source.
func tree(t *testing.T, files map[string]string) source.Source {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func problems(t *testing.T, err error) string {
	t.Helper()
	var ps source.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("want source.Problems, got %T: %v", err, err)
	}
	return ps.Error()
}

func TestCompileErrorsAllSorted(t *testing.T) {
	src := tree(t, map[string]string{
		"p/b.proto": "syntax = \"proto3\";\npackage t;\nmessage B {\n  Missing m = 1;\n}\n",
		"p/a.proto": "syntax = \"proto3\";\npackage t;\nmessage A {\n  string x = 1;\n  string y = 1;\n}\n",
	})
	_, err := Load(src, []string{"p/b.proto", "p/a.proto"}, Options{ImportPaths: []string{"p"}})
	got := problems(t, err)
	lines := strings.Split(got, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "p/a.proto:5:") || !strings.HasPrefix(lines[1], "p/b.proto:4:3: ") {
		t.Fatalf("want both errors as file:line:col, sorted; got\n%s", got)
	}
	if !strings.Contains(lines[1], "Missing") {
		t.Errorf("message should name the unknown type: %s", lines[1])
	}
}

func TestSyntaxError(t *testing.T) {
	src := tree(t, map[string]string{"a.proto": "syntax = \"proto3\";\nmessage {\n"})
	_, err := Load(src, []string{"a.proto"}, Options{})
	if got := problems(t, err); !strings.HasPrefix(got, "a.proto:2:") {
		t.Fatalf("want a positioned syntax error, got %s", got)
	}
}

func TestImportsStayInside(t *testing.T) {
	for _, imp := range []string{"../outside.proto", "/etc/x.proto", "sub/../../outside.proto"} {
		src := tree(t, map[string]string{
			"root/a.proto":  "syntax = \"proto3\";\nimport \"" + imp + "\";\n",
			"outside.proto": "syntax = \"proto3\";\n",
		})
		_, err := Load(src, []string{"root/a.proto"}, Options{ImportPaths: []string{"root"}})
		got := problems(t, err)
		if !strings.HasPrefix(got, "root/a.proto:2:") {
			t.Errorf("import %q: want a refusal at the import line, got %s", imp, got)
		}
	}
}

func TestMissingImport(t *testing.T) {
	src := tree(t, map[string]string{"a.proto": "syntax = \"proto3\";\nimport \"nope.proto\";\n"})
	_, err := Load(src, []string{"a.proto"}, Options{})
	if got := problems(t, err); !strings.HasPrefix(got, "a.proto:2:8: ") || !strings.Contains(got, "nope.proto") {
		t.Fatalf("got %s", got)
	}
}

func TestProtoPathAndWellKnownTypes(t *testing.T) {
	src := tree(t, map[string]string{
		"api/a.proto":        "syntax = \"proto3\";\npackage api;\nimport \"dep/d.proto\";\nimport \"google/protobuf/any.proto\";\nmessage A { dep.D d = 1; google.protobuf.Any any = 2; }\n",
		"vendor/dep/d.proto": "syntax = \"proto3\";\npackage dep;\nmessage D {}\n",
	})
	tr, err := Load(src, []string{"api/a.proto"}, Options{ImportPaths: []string{"api", "vendor"}})
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Messages["api.A"]
	if a == nil || a.Fields[0].Type != "dep.D" || a.Fields[1].Type != "google.protobuf.Any" {
		t.Fatalf("imports not resolved: %+v", a)
	}
	if _, ok := tr.Messages["dep.D"]; ok {
		t.Error("an imported file that was not listed must not be part of the tree")
	}
	if a.Loc != (rules.Location{File: "api/a.proto", Line: 5, Column: 1}) {
		t.Errorf("location %v", a.Loc)
	}
}

func TestIgnoreNeedsReason(t *testing.T) {
	src := tree(t, map[string]string{"a.proto": "syntax = \"proto3\";\npackage t;\n// contractlint:ignore proto-field-removed\nmessage A {}\n"})
	_, err := Load(src, []string{"a.proto"}, Options{})
	if got := problems(t, err); !strings.HasPrefix(got, "a.proto:4:1: ") || !strings.Contains(got, "reason") {
		t.Fatalf("got %s", got)
	}
}

func TestContract(t *testing.T) {
	src := tree(t, map[string]string{"a.proto": `syntax = "proto3";
package pay.v1;
message ChargeRequest {
  // contractlint:idempotency-key
  string dedupe = 1;
  int64 amount = 2;
}
message GetRequest { string id = 1; }
service Charges {
  // contractlint:ignore idempotency-key-missing charges are deduplicated upstream
  rpc Charge(ChargeRequest) returns (ChargeRequest);
  rpc Get(GetRequest) returns (ChargeRequest) { option idempotency_level = NO_SIDE_EFFECTS; }
}
`})
	tr, err := Load(src, []string{"a.proto"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := tr.Contract()
	if len(c.Operations) != 2 {
		t.Fatalf("operations: %d", len(c.Operations))
	}
	charge, get := c.Operations[0], c.Operations[1]
	if charge.ID != "pay.v1.Charges.Charge" || charge.Idempotent || charge.Key == nil || charge.Key.Name != "dedupe" || charge.Loc.Line != 11 {
		t.Errorf("charge: %+v key %+v", charge, charge.Key)
	}
	if get.ID != "pay.v1.Charges.Get" || !get.Idempotent || get.Key != nil {
		t.Errorf("get: %+v", get)
	}
	if len(c.Ignores) != 1 || c.Ignores[0].Scope != "pay.v1.Charges.Charge" || c.Ignores[0].Rule != "idempotency-key-missing" ||
		c.Ignores[0].Reason != "charges are deduplicated upstream" {
		t.Errorf("ignores: %+v", c.Ignores)
	}
	if len(c.Fields) != 3 || len(c.Messages) != 2 {
		t.Errorf("fields %d messages %d", len(c.Fields), len(c.Messages))
	}
}

// TestRemovedAndReserved: a field deleted with its number and name reserved
// is the one clean removal; the diff says so on the change.
func TestRemovedAndReserved(t *testing.T) {
	src := tree(t, map[string]string{
		"old/a.proto": "syntax = \"proto3\";\npackage t;\nmessage A { string a = 1; string b = 2; }\n",
		"new/a.proto": "syntax = \"proto3\";\npackage t;\nmessage A { string a = 1; reserved 2; reserved \"b\"; }\n",
	})
	ot, err := Load(src, []string{"old/a.proto"}, Options{ImportPaths: []string{"old"}})
	if err != nil {
		t.Fatal(err)
	}
	nt, err := Load(src, []string{"new/a.proto"}, Options{ImportPaths: []string{"new"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := Diff(ot, nt)
	if len(cs) != 1 || cs[0].Kind != rules.Removed || !cs[0].Proto.NumberReserved || !cs[0].Proto.NameReserved || cs[0].Path != "t.A.b" {
		t.Fatalf("changes: %+v", cs)
	}
}

func TestSingleFilesPair(t *testing.T) {
	src := tree(t, map[string]string{
		"old.proto": "syntax = \"proto3\";\npackage t;\nmessage A { int32 n = 1; }\n",
		"new.proto": "syntax = \"proto3\";\npackage t;\nmessage A { int64 n = 1; }\n",
	})
	ot, err := Load(src, []string{"old.proto"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nt, err := Load(src, []string{"new.proto"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var meaning, typ int
	for _, c := range Diff(ot, nt) {
		if c.Subject == rules.SubjectFile {
			t.Errorf("two single files are one file: %+v", c)
		}
		if c.Kind == rules.Modified && c.Subject == rules.SubjectField && c.Aspect == "" {
			meaning++
		}
		if c.Aspect == rules.AspectType {
			typ++
		}
	}
	if meaning != 1 || typ != 1 {
		t.Errorf("want one meaning change and one type change, got %d and %d", meaning, typ)
	}
}
