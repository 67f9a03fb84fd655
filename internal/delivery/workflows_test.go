package delivery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlintCmd runs actionlint at a pinned version through `go run`, outside
// this module: actionlint needs a release candidate of go.yaml.in/yaml/v4
// whose API the version kin-openapi requires no longer has.
const actionlintCmd = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

func actionlint(t *testing.T, dir string, files ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", actionlintCmd, "-no-color"}, files...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("go run actionlint: %v", err)
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
		if strings.Contains(out, "go: ") && os.Getenv("CI") != "true" {
			t.Skipf("actionlint could not be fetched (no module proxy?): %s", out)
		}
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
