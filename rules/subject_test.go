package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubjectTable: every Subject constant declared in the package, read
// from its source so that one added anywhere is counted, has its traits in
// subjectTable and a name of its own. The constants run from 1 (iota + 1),
// so N declared are the values 1..N.
func TestSubjectTable(t *testing.T) {
	declared := subjectConsts(t)
	if len(declared) == 0 {
		t.Fatal("no Subject constants found in the package source")
	}
	for i, name := range declared {
		s := Subject(i + 1)
		if tr, ok := subjectTable[s]; !ok || tr.noun == "" {
			t.Errorf("Subject %d (%s, by declaration order) has no entry with a noun in subjectTable", s, name)
		}
		if n := s.String(); strings.HasSuffix(n, ")") {
			t.Errorf("Subject %d (%s) prints as %q: give it a name in change_names.go", s, name, n)
		}
	}
	if len(subjectTable) != len(declared) {
		t.Errorf("subjectTable has %d entries for %d declared subjects", len(subjectTable), len(declared))
	}
	if got := Subjects(); len(got) != len(declared) || got[0] != 1 {
		t.Errorf("Subjects() = %v", got)
	}
}

// subjectConsts returns the names of the constants of type Subject in the
// package's non-test files, in declaration order: in an iota block a constant without a type or
// value takes the type of the one before it.
func subjectConsts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			isSubject := false
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				switch {
				case vs.Type != nil:
					id, ok := vs.Type.(*ast.Ident)
					isSubject = ok && id.Name == "Subject"
				case len(vs.Values) > 0:
					isSubject = false
				}
				if isSubject {
					for _, n := range vs.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}
