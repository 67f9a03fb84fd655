package delivery

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type workflowFile struct {
	On struct {
		WorkflowCall struct {
			Inputs map[string]struct {
				Type string `yaml:"type"`
			} `yaml:"inputs"`
		} `yaml:"workflow_call"`
	} `yaml:"on"`
	Jobs map[string]struct {
		Strategy struct {
			Matrix map[string][]string `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, file string) workflowFile {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflowFile
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return wf
}

// actionStepOf is the step that runs contractlint's Action; every input it
// gives must be one the Action declares.
func actionStepOf(t *testing.T, act actionFile, steps []actionStep) actionStep {
	t.Helper()
	for _, st := range steps {
		if strings.HasPrefix(st.Uses, "contractlint/contractlint@") {
			for k := range st.With {
				if _, ok := act.Inputs[k]; !ok {
					t.Errorf("the step gives the Action an input it does not have: %s", k)
				}
			}
			return st
		}
	}
	t.Fatalf("no step uses contractlint/contractlint")
	return actionStep{}
}

// TestReusableWorkflow: the workflow docs/org.md has a repository call with
// one uses: line is callable, passes only inputs it declares to inputs the
// Action has, and uploads the SARIF file the Action writes. actionlint
// checks it with the other workflows (TestWorkflowsLint).
func TestReusableWorkflow(t *testing.T) {
	top := repoTop(t)
	const rel = ".github/workflows/contractlint-reusable.yml"
	wf := readWorkflow(t, filepath.Join(top, rel))
	if len(wf.On.WorkflowCall.Inputs) == 0 {
		t.Fatalf("%s is not called with inputs (on: workflow_call)", rel)
	}
	st := actionStepOf(t, readAction(t, top), wf.Jobs["contracts"].Steps)
	for _, v := range st.With {
		for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(v, -1) {
			if _, ok := wf.On.WorkflowCall.Inputs[m[1]]; !ok {
				t.Errorf("the step reads inputs.%s, which the workflow does not declare", m[1])
			}
		}
	}
	uploads := false
	for _, s := range wf.Jobs["contracts"].Steps {
		uploads = uploads || strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") && s.With["sarif_file"] == st.With["sarif-file"]
	}
	if !uploads {
		t.Errorf("no step uploads %q, the SARIF file the Action writes", st.With["sarif-file"])
	}
	doc, err := os.ReadFile(filepath.Join(top, "docs", "org.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "uses: contractlint/contractlint/"+rel+"@") {
		t.Errorf("docs/org.md does not show the one uses: line that calls %s", rel)
	}
}

// TestOrgScan checks the scheduled scan over many repositories with
// actionlint, and runs its upload step against a fake code scanning API:
// each repository's SARIF reaches that repository, gzip-compressed and
// base64-encoded, on the commit and branch reviewed.
func TestOrgScan(t *testing.T) {
	needScriptTools(t)
	need(t, "gzip")
	top := repoTop(t)
	file := filepath.Join(top, "integrations", "github", "org-scan.yml")
	if out, err := actionlint(t, top, file); err != nil {
		t.Errorf("actionlint:\n%s", out)
	}
	wf := readWorkflow(t, file)
	job := wf.Jobs["scan"]
	if len(job.Strategy.Matrix["repository"]) == 0 {
		t.Fatalf("no matrix of repositories")
	}
	st := actionStepOf(t, readAction(t, top), job.Steps)
	sarif := st.With["sarif-file"]
	var upload actionStep
	for _, s := range job.Steps {
		if s.Name == "Upload SARIF to the repository" {
			upload = s
		}
	}
	if upload.Run == "" || !strings.Contains(upload.Run, sarif) {
		t.Fatalf("no upload step of %s", sarif)
	}

	var got struct {
		path, auth string
		body       map[string]string
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth = r.Method+" "+r.URL.Path, r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&got.body)
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"id": "47177e22", "url": "x"}`)
	}))
	defer api.Close()
	tmp := t.TempDir()
	work, _ := pullRequest(t, tmp)
	head := strings.TrimSpace(must(t, work, nil, "git", "rev-parse", "HEAD"))
	const log = `{"version": "2.1.0", "runs": []}`
	write(t, filepath.Join(work, sarif), log)
	out, status := runLines(t, work, []string{"GH_TOKEN=org-token", "REPOSITORY=shop/payments", "GITHUB_API_URL=" + api.URL},
		[]string{upload.Run})
	if status != 0 {
		t.Fatalf("the upload step exited %d:\n%s", status, out)
	}
	if got.path != "POST /repos/shop/payments/code-scanning/sarifs" || got.auth != "Bearer org-token" {
		t.Errorf("request %s with %q, want POST /repos/shop/payments/code-scanning/sarifs with the org token", got.path, got.auth)
	}
	if got.body["commit_sha"] != head || got.body["ref"] != "refs/heads/pr" {
		t.Errorf("commit_sha %q, ref %q: want %s on refs/heads/pr", got.body["commit_sha"], got.body["ref"], head)
	}
	raw, err := base64.StdEncoding.DecodeString(got.body["sarif"])
	if err != nil {
		t.Fatalf("sarif is not base64: %v", err)
	}
	z, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("sarif is not gzip: %v", err)
	}
	if b, _ := io.ReadAll(z); string(b) != log {
		t.Errorf("uploaded %q, want the file the Action wrote", b)
	}
}

// TestOrgDocShowsTemplates: docs/org.md shows the GitLab job and the
// Bitbucket step as the files in the repository have them (the tests run
// the files), less their opening comments.
func TestOrgDocShowsTemplates(t *testing.T) {
	top := repoTop(t)
	doc, err := os.ReadFile(filepath.Join(top, "docs", "org.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"integrations/gitlab/contractlint.gitlab-ci.yml", "integrations/bitbucket/bitbucket-pipelines.yml"} {
		b, err := os.ReadFile(filepath.Join(top, rel))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for len(lines) > 0 && (strings.HasPrefix(lines[0], "#") || lines[0] == "") {
			lines = lines[1:]
		}
		shown := "```yaml\n" + strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n```"
		if !strings.Contains(string(doc), shown) {
			t.Errorf("docs/org.md does not show %s as it is", rel)
		}
	}
}
