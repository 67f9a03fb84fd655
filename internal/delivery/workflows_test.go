package delivery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlint runs the actionlint .ci/parts installed (a pinned version,
// from outside this module: it needs a release candidate of
// go.yaml.in/yaml/v4 whose API the version kin-openapi requires no longer
// has).
func actionlint(t *testing.T, dir string, files ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(part(t, "ACTIONLINT"), append([]string{"-no-color"}, files...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("actionlint: %v", err)
	}
	return string(out), err
}

// TestWorkflowsLint checks this repository's workflows with actionlint, and
// that actionlint does flag a broken workflow (so a pass means something).
func TestWorkflowsLint(t *testing.T) {
	top := repoTop(t)
	files, err := filepath.Glob(filepath.Join(top, ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflow files: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yml")
	os.WriteFile(bad, []byte("on: pull_request\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n"), 0o644)
	out, err := actionlint(t, top, bad)
	if err == nil || !strings.Contains(out, "untrusted") {
		t.Fatalf("actionlint did not flag an injectable workflow:\n%s", out)
	}
	if out, err := actionlint(t, top, files...); err != nil {
		t.Errorf("actionlint:\n%s", out)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "pull_request_target") {
			t.Errorf("%s runs on pull_request_target", f)
		}
	}
}
