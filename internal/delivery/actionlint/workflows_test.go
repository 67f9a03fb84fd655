// Package actionlint checks this repository's GitHub workflows with
// actionlint. It is a module of its own: actionlint v1.7.12 needs a release
// candidate of go.yaml.in/yaml/v4 whose API the main module's (newer) one,
// required by kin-openapi, no longer has.
package actionlint

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

func repoTop(t *testing.T) string {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git: %v", err)
		}
		t.Skipf("not in a git checkout: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestWorkflowsLint checks this repository's workflows, and through them
// the inputs of action.yml, with actionlint.
func TestWorkflowsLint(t *testing.T) {
	top := repoTop(t)
	files, err := filepath.Glob(filepath.Join(top, ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflow files: %v", err)
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "pull_request_target") {
			t.Errorf("%s runs on pull_request_target", f)
		}
	}
}
