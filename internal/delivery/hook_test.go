package delivery

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// deprecatedStages are the stage names pre-commit 4 warns about on every run
// ("uses deprecated stage names ... which will be removed in a future
// version"). Their replacements (pre-commit, pre-push) did not exist before
// pre-commit 3.2, and Debian ships 3.0.4: a hook that names no stages runs
// in all of them, on both.
var deprecatedStages = []string{"commit", "merge-commit", "push"}

type hookDef struct {
	ID     string   `yaml:"id"`
	Stages []string `yaml:"stages"`
}

// readHooks parses a .pre-commit-hooks.yaml.
func readHooks(t *testing.T, text []byte) []hookDef {
	t.Helper()
	var hooks []hookDef
	if err := yaml.Unmarshal(text, &hooks); err != nil {
		t.Fatalf(".pre-commit-hooks.yaml: %v", err)
	}
	return hooks
}

// hookProblems says what in a .pre-commit-hooks.yaml would make a copied
// configuration fail or warn: no contractlint hook, or a stage name current
// pre-commit deprecates.
func hookProblems(hooks []hookDef) []string {
	var out []string
	found := false
	for _, h := range hooks {
		found = found || h.ID == "contractlint"
		for _, s := range h.Stages {
			if slices.Contains(deprecatedStages, s) {
				out = append(out, "hook "+h.ID+" declares the deprecated stage name "+s)
			}
		}
	}
	if !found {
		out = append(out, "no hook with id contractlint")
	}
	return out
}

func TestHookStagesCurrent(t *testing.T) {
	b, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range hookProblems(readHooks(t, b)) {
		t.Error(p)
	}
}

// TestRootModuleOneCommand: pre-commit installs a golang hook with
// `go install ./...` in the hook's repository, so every main package of the
// root module is compiled on a team's first commit. Only contractlint
// itself may be one; helper commands live where ./... does not reach
// (a testdata directory, .ci/tools, a module of their own).
func TestRootModuleOneCommand(t *testing.T) {
	top := "../.."
	fset := token.NewFileSet()
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			// What the go command's ./... skips: testdata, names starting
			// with . or _, and other modules.
			if p != top && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || filepath.Dir(p) == top {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			t.Errorf("%s is a main package of the root module: `go install ./...` (pre-commit's hook install) compiles and installs it", filepath.Dir(p))
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
