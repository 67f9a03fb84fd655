package delivery

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var expr = regexp.MustCompile(`\$\{\{\s*([a-z_.-]+)\s*\}\}`)

// TestAction runs every `run:` step of action.yml with bash, the way a
// runner does, in a throwaway repository with a pull request event, and
// checks the outputs, annotations, job summary and SARIF file.
func TestAction(t *testing.T) {
	need(t, "bash")
	need(t, "go")
	top := repoTop(t)
	var act actionFile
	b, err := os.ReadFile(filepath.Join(top, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &act); err != nil {
		t.Fatal(err)
	}
	if act.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", act.Runs.Using)
	}

	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	must(t, tmp, gitEnv, "git", "init", "-q", "-b", "main", work)
	write(t, filepath.Join(work, "api", "shop.proto"), shopV1)
	must(t, work, gitEnv, "git", "add", ".")
	must(t, work, gitEnv, "git", "commit", "-q", "-m", "v1")
	base := strings.TrimSpace(must(t, work, nil, "git", "rev-parse", "HEAD"))
	must(t, work, gitEnv, "git", "checkout", "-q", "-b", "pr")
	write(t, filepath.Join(work, "api", "shop.proto"), shopV2)
	must(t, work, gitEnv, "git", "commit", "-q", "-a", "-m", "v2")

	files := map[string]string{}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH"} {
		files[name] = filepath.Join(tmp, strings.ToLower(name))
		write(t, files[name], "")
	}
	event := filepath.Join(tmp, "event.json")
	write(t, event, fmt.Sprintf(`{"action": "opened", "pull_request": {"number": 7,
  "head": {"ref": "pr", "sha": "%s"},
  "base": {"ref": "main", "sha": "%s"}}}`, strings.Repeat("f", 40), base))
	inputs := map[string]string{}
	for k, v := range act.Inputs {
		inputs[k] = v.Default
	}
	inputs["sarif-file"] = "out.sarif"
	ctx := map[string]string{"github.action_path": top}
	env := []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + event,
		"GITHUB_WORKSPACE=" + work, "GITHUB_ACTION_PATH=" + top, "RUNNER_TEMP=" + tmp, "NO_COLOR=1"}
	for k, v := range files {
		env = append(env, k+"="+v)
	}

	var stdout string
	status := -1
	for _, st := range act.Runs.Steps {
		if st.Run == "" {
			continue // a `uses:` step (setup-go): the test uses the machine's Go
		}
		if strings.Contains(st.Run, "${{") {
			t.Fatalf("step %q expands ${{ }} inside run:; inputs must reach scripts through env", st.ID)
		}
		stepEnv := append(append([]string{}, env...), readEnvFile(t, files["GITHUB_ENV"])...)
		for k, v := range st.Env {
			stepEnv = append(stepEnv, k+"="+evaluate(t, v, inputs, ctx))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", st.Run)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), stepEnv...)
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			t.Logf("step %q stderr:\n%s", st.ID, ee.Stderr)
		} else if err != nil {
			t.Fatal(err)
		}
		if st.ID != "review" && code != 0 {
			t.Fatalf("step %q exited %d:\n%s", st.ID, code, out)
		}
		if st.ID == "review" {
			stdout, status = string(out), code
		}
	}
	if status != 1 {
		t.Fatalf("the review step exited %d, want 1 (an error finding with fail-on error):\n%s", status, stdout)
	}
	outputs := readEnvFile(t, files["GITHUB_OUTPUT"])
	for _, want := range []string{"findings=", "errors=", "warnings=0"} {
		if !strings.Contains(strings.Join(outputs, "\n"), want) {
			t.Errorf("outputs %q lack %q", outputs, want)
		}
	}
	if !contains(outputs, "errors=") || contains(outputs, "errors=0") {
		t.Errorf("outputs %q: want errors > 0", outputs)
	}
	if !regexp.MustCompile(`(?m)^::error file=api/shop\.proto,line=5,col=3,.*proto-field-type-wire-json-incompatible`).MatchString(stdout) {
		t.Errorf("no proto-field-type-wire-json-incompatible annotation at api/shop.proto:5:3:\n%s", stdout)
	}
	if sum, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"]); !strings.Contains(string(sum), "proto-field-type-wire-json-incompatible") {
		t.Errorf("job summary lacks the finding:\n%s", sum)
	}
	if sarif, err := os.ReadFile(filepath.Join(work, "out.sarif")); err != nil || !strings.Contains(string(sarif), `"2.1.0"`) || !strings.Contains(string(sarif), "api/shop.proto") {
		t.Errorf("SARIF file: %v\n%.400s", err, sarif)
	}
}

func contains(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// evaluate expands the ${{ inputs.x }} and ${{ github.x }} expressions an
// env: value may hold; anything else is a test failure, not a silent "".
func evaluate(t *testing.T, v string, inputs, ctx map[string]string) string {
	return expr.ReplaceAllStringFunc(v, func(m string) string {
		name := expr.FindStringSubmatch(m)[1]
		if in, ok := strings.CutPrefix(name, "inputs."); ok {
			val, ok := inputs[in]
			if !ok {
				t.Fatalf("env uses unknown input %q", in)
			}
			return val
		}
		val, ok := ctx[name]
		if !ok {
			t.Fatalf("env uses %q, which the test does not provide", name)
		}
		return val
	})
}

// readEnvFile reads the KEY=value lines of a GITHUB_ENV or GITHUB_OUTPUT file.
func readEnvFile(t *testing.T, file string) []string {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "=") {
			out = append(out, sc.Text())
		}
	}
	return out
}
