package delivery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/rules"
	"gopkg.in/yaml.v3"
)

type pipelinesStep struct {
	Clone struct {
		Depth any `yaml:"depth"`
	} `yaml:"clone"`
	Script      []string `yaml:"script"`
	AfterScript []string `yaml:"after-script"`
}

// bitbucketStep is the pull-request step of the Pipelines template.
func bitbucketStep(t *testing.T) pipelinesStep {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoTop(t), "integrations", "bitbucket", "bitbucket-pipelines.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Pipelines struct {
			PullRequests map[string][]struct {
				Step pipelinesStep `yaml:"step"`
			} `yaml:"pull-requests"`
		} `yaml:"pipelines"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	steps := file.Pipelines.PullRequests["**"]
	if len(steps) != 1 {
		t.Fatalf("pull-requests '**' has %d steps, want 1", len(steps))
	}
	return steps[0].Step
}

// fakeProxy stands in for the Pipelines proxy: it records every request,
// which must name api.bitbucket.org in absolute form as a proxied request
// does, and answers 404 to deleting a report that is not there.
type fakeProxy struct {
	mu    sync.Mutex
	calls []proxyCall
	*httptest.Server
}

type proxyCall struct {
	Method, Host, Path string
	Body               []byte
}

func newFakeProxy(t *testing.T) *fakeProxy {
	p := &fakeProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.calls = append(p.calls, proxyCall{r.Method, r.URL.Host, r.URL.Path, body})
		p.mu.Unlock()
		if r.Method == http.MethodDelete {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "{}")
	}))
	t.Cleanup(p.Close)
	return p
}

// runLines runs script lines as Pipelines does, in one shell that stops at
// the first failing line, leaving out the lines that install tools (the
// test's machine has them).
func runLines(t *testing.T, dir string, env []string, lines []string) (string, int) {
	t.Helper()
	var kept []string
	for _, l := range lines {
		if strings.HasPrefix(l, "go install ") || strings.HasPrefix(l, "apt-get ") {
			continue
		}
		kept = append(kept, l)
	}
	cmd := exec.Command("bash", "-e", "-c", strings.Join(kept, "\n"))
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, "no_proxy") || strings.EqualFold(k, "http_proxy") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// needScriptTools: the platform steps are bash scripts that speak HTTP
// with curl and read JSON with jq.
func needScriptTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		need(t, tool)
	}
}

const insightsPath = "/2.0/repositories/team/shop/commit/%s/reports/contractlint"

// TestBitbucketStep runs the Pipelines step on a pull request that breaks
// the contract: the review fails the step, and the after-script posts the
// report and its annotation through the proxy to the commit.
func TestBitbucketStep(t *testing.T) {
	needScriptTools(t)
	bin := filepath.Join(part(t, "CONTRACTLINT_ACTION_BUILD"), "contractlint")
	step := bitbucketStep(t)
	if fmt.Sprint(step.Clone.Depth) != "full" {
		t.Errorf("clone depth = %v, want full: the review needs the merge base", step.Clone.Depth)
	}
	tmp := t.TempDir()
	work, _ := pullRequest(t, tmp)
	must(t, work, nil, "git", "remote", "add", "origin", work)
	head := strings.TrimSpace(must(t, work, nil, "git", "rev-parse", "HEAD"))
	tools := filepath.Join(tmp, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(tools, "contractlint")); err != nil {
		t.Fatal(err)
	}
	proxy := newFakeProxy(t)
	env := []string{"PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH"),
		"BITBUCKET_PR_DESTINATION_BRANCH=main", "BITBUCKET_REPO_FULL_NAME=team/shop", "BITBUCKET_COMMIT=" + head,
		"CONTRACTLINT_BITBUCKET_PROXY=" + proxy.URL}
	out, status := runLines(t, work, env, step.Script)
	if status != 1 {
		t.Fatalf("the step's script exited %d, want 1 (an error finding):\n%s", status, out)
	}
	out, status = runLines(t, work, append(env, "BITBUCKET_EXIT_CODE=1"), step.AfterScript)
	if status != 0 {
		t.Fatalf("the after-script exited %d:\n%s", status, out)
	}
	path := fmt.Sprintf(insightsPath, head)
	want := []string{"DELETE " + path, "PUT " + path, "POST " + path + "/annotations"}
	var got []string
	for _, c := range proxy.calls {
		if c.Host != "api.bitbucket.org" {
			t.Errorf("%s %s went to %q, not api.bitbucket.org through the proxy", c.Method, c.Path, c.Host)
		}
		got = append(got, c.Method+" "+c.Path)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s\nafter-script output:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
	var rep struct{ Result, Title string }
	if err := json.Unmarshal(proxy.calls[1].Body, &rep); err != nil || rep.Result != "FAILED" || rep.Title == "" {
		t.Errorf("report %s: want a titled FAILED report (%v)", proxy.calls[1].Body, err)
	}
	var anns []struct {
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
	}
	if err := json.Unmarshal(proxy.calls[2].Body, &anns); err != nil || len(anns) != 1 ||
		anns[0].Path != "api/shop.proto" || anns[0].Line != 5 || !strings.HasPrefix(anns[0].Summary, "field-redefined") {
		t.Errorf("annotations %s: want field-redefined at api/shop.proto:5 (%v)", proxy.calls[2].Body, err)
	}
}

// TestBitbucketStepBatches: 250 annotations go out as 100, 100 and 50, each
// request a JSON array, and together every annotation once.
func TestBitbucketStepBatches(t *testing.T) {
	needScriptTools(t)
	step := bitbucketStep(t)
	var fs []rules.Finding
	for i := range 250 {
		fs = append(fs, rules.Finding{Rule: "enum-value-added", Severity: rules.Warning, Message: fmt.Sprintf("status gained value %d", i),
			Where: rules.Location{File: "api/openapi.yaml", Line: i + 1}})
	}
	var buf bytes.Buffer
	if err := (report.Bitbucket{}).Write(&buf, &report.Report{Findings: fs}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	write(t, filepath.Join(work, "contractlint-insights.json"), buf.String())
	proxy := newFakeProxy(t)
	out, status := runLines(t, work, []string{"BITBUCKET_REPO_FULL_NAME=team/shop", "BITBUCKET_COMMIT=abc123",
		"CONTRACTLINT_BITBUCKET_PROXY=" + proxy.URL}, step.AfterScript)
	if status != 0 {
		t.Fatalf("the after-script exited %d:\n%s", status, out)
	}
	var sizes []int
	ids := map[string]bool{}
	for _, c := range proxy.calls {
		if c.Method != http.MethodPost {
			continue
		}
		var batch []struct {
			ExternalID string `json:"external_id"`
		}
		if err := json.Unmarshal(c.Body, &batch); err != nil {
			t.Fatalf("a POST is not an array of annotations: %v", err)
		}
		sizes = append(sizes, len(batch))
		for _, a := range batch {
			ids[a.ExternalID] = true
		}
	}
	if fmt.Sprint(sizes) != "[100 100 50]" || len(ids) != 250 {
		t.Errorf("batches %v with %d distinct annotations, want [100 100 50] with 250", sizes, len(ids))
	}
}
