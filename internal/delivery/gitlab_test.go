package delivery

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type gitlabJob struct {
	Image     string            `yaml:"image"`
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
	Artifacts struct {
		When    string `yaml:"when"`
		Reports struct {
			CodeQuality string `yaml:"codequality"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

// TestGitLabTemplate runs the GitLab job's script the way a runner does
// (one shell, stopping at the first failing line) in a merge request that
// breaks the contract, with the job's variables and GitLab's merge base:
// the file it declares as its Code Quality report must hold the finding.
// Only the `go install` line is left out: the build .ci/parts made stands
// in for it.
func TestGitLabTemplate(t *testing.T) {
	need(t, "bash")
	bin := filepath.Join(part(t, "CONTRACTLINT_ACTION_BUILD"), "contractlint")
	top := repoTop(t)
	b, err := os.ReadFile(filepath.Join(top, "integrations", "gitlab", "contractlint.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]gitlabJob
	if err := yaml.Unmarshal(b, &jobs); err != nil {
		t.Fatal(err)
	}
	job, ok := jobs["contractlint"]
	if !ok {
		t.Fatalf("the template has no contractlint job")
	}
	report := job.Artifacts.Reports.CodeQuality
	if report == "" || job.Artifacts.When != "always" {
		t.Fatalf("artifacts = %+v: want reports: codequality, kept when the job fails", job.Artifacts)
	}
	var script []string
	for _, line := range job.Script {
		if strings.HasPrefix(line, "go install ") {
			continue
		}
		script = append(script, line)
	}
	if len(script) != 1 || !strings.Contains(script[0], "--format gitlab --output "+report) {
		t.Fatalf("script %q does not write %s in the gitlab format", job.Script, report)
	}

	tmp := t.TempDir()
	work, base := pullRequest(t, tmp)
	tools := filepath.Join(tmp, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(tools, "contractlint")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-e", "-c", strings.Join(script, "\n"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CI_MERGE_REQUEST_DIFF_BASE_SHA="+base, "CI_PIPELINE_SOURCE=merge_request_event")
	for k, v := range job.Variables {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("the job exited with %v, want 1 (an error finding, fail-on error):\n%s", err, out)
	}
	var issues []struct {
		CheckName   string `json:"check_name"`
		Fingerprint string `json:"fingerprint"`
		Severity    string `json:"severity"`
		Location    struct {
			Path  string `json:"path"`
			Lines struct {
				Begin int `json:"begin"`
			} `json:"lines"`
		} `json:"location"`
	}
	data, err := os.ReadFile(filepath.Join(work, report))
	if err != nil {
		t.Fatalf("the job wrote no %s: %v\n%s", report, err, out)
	}
	if err := json.Unmarshal(data, &issues); err != nil {
		t.Fatalf("%s: %v\n%s", report, err, data)
	}
	if len(issues) != 1 || issues[0].CheckName != "field-redefined" || issues[0].Severity != "critical" ||
		issues[0].Location.Path != "api/shop.proto" || issues[0].Location.Lines.Begin != 5 || issues[0].Fingerprint == "" {
		t.Errorf("Code Quality report = %s, want one critical field-redefined issue at api/shop.proto line 5", data)
	}
}
