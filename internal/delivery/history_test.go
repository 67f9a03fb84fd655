package delivery

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestActionHistoryReport: with html-report: true the action writes the
// history page of the pull request's repository and hands it to
// actions/upload-artifact; without it, no page and no upload.
func TestActionHistoryReport(t *testing.T) {
	need(t, "bash")
	need(t, "go")
	need(t, "jq")
	actionBuild(t)
	top := repoTop(t)
	act := readAction(t, top)
	i := slices.IndexFunc(act.Runs.Steps, func(s actionStep) bool { return s.ID == "history" })
	if i < 0 || i+1 >= len(act.Runs.Steps) {
		t.Fatal("action.yml has no history step followed by its upload")
	}
	up := act.Runs.Steps[i+1]
	if !strings.HasPrefix(up.Uses, "actions/upload-artifact@") || up.With["path"] != "${{ steps.history.outputs.file }}" ||
		!strings.Contains(up.If, "steps.history.outputs.file != ''") {
		t.Errorf("the step after history is %+v; want actions/upload-artifact of steps.history.outputs.file, only when there is one", up)
	}

	tmp := t.TempDir()
	work, base := pullRequest(t, tmp)
	must(t, work, gitEnv, "git", "tag", "v1.0.0", base)
	r := newFakeRunner(t, act, top, work, tmp, base)
	page := filepath.Join(tmp, "contractlint-history.html")
	r.run(act)
	if _, err := os.Stat(page); err == nil {
		t.Errorf("html-report: false wrote %s", page)
	}

	r.inputs["html-report"] = "true"
	r.run(act)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("html-report: true: %v", err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "v1.0.0", "field-redefined"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the history page lacks %q", want)
		}
	}
	if outputs := readEnvFile(t, r.files["GITHUB_OUTPUT"]); !slices.Contains(outputs, "file="+page) {
		t.Errorf("outputs %q lack file=%s for the upload", outputs, page)
	}
}
