package delivery

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type actionStep struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	If   string            `yaml:"if"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]string `yaml:"with"`
}

type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

var expr = regexp.MustCompile(`\$\{\{\s*([a-z_.-]+)\s*\}\}`)

func readAction(t *testing.T, top string) actionFile {
	t.Helper()
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
	return act
}

// fakeRunner is what a GitHub runner gives a composite action's steps:
// the env files, the event, the workspace, and the tools on PATH (here a
// fake gh that records its calls).
type fakeRunner struct {
	t                            *testing.T
	top, tmp, work, ghLog, goLog string
	// log holds the standard output of every step but the review.
	log         strings.Builder
	files       map[string]string
	env         []string
	inputs, ctx map[string]string
	// built is set once contractlint is built: later runs play a cache hit.
	built bool
}

// actionBuild is the binary .ci/parts built with the action's own build
// command, which the fake runner's go hands over; without it the test skips
// (fails when CI=true). A test asks first, before it makes its repository.
func actionBuild(t *testing.T) string {
	t.Helper()
	return part(t, "CONTRACTLINT_ACTION_BUILD")
}

func newFakeRunner(t *testing.T, act actionFile, top, work, tmp, base string) *fakeRunner {
	r := &fakeRunner{t: t, top: top, tmp: tmp, work: work, files: map[string]string{},
		inputs: map[string]string{}, ghLog: filepath.Join(tmp, "gh.log"), goLog: filepath.Join(tmp, "go.log")}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH"} {
		r.files[name] = filepath.Join(tmp, strings.ToLower(name))
	}
	event := filepath.Join(tmp, "event.json")
	write(t, event, fmt.Sprintf(`{"action": "opened", "pull_request": {"number": 7,
  "head": {"ref": "pr", "sha": "%s"},
  "base": {"ref": "main", "sha": "%s"}}}`, strings.Repeat("f", 40), base))
	for k, v := range act.Inputs {
		r.inputs[k] = v.Default
	}
	// Used by a branch, as `uses: shop/contractlint@main` would.
	r.ctx = map[string]string{"github.action_path": top, "github.token": "fake-token",
		"github.action_ref": "main", "github.action_repository": "shop/contractlint"}
	tools := filepath.Join(tmp, "tools")
	// Each go call is logged, so a test can tell whether the action
	// compiled anything; its build hands over the binary .ci/parts made
	// with the same call, so no test compiles one.
	executable(t, filepath.Join(tools, "go"), fmt.Sprintf(fakeGo, r.goLog, actionBuild(t), need(t, "go")))
	executable(t, filepath.Join(tools, "gh"), fakeGH)
	r.env = []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + event,
		"GITHUB_WORKSPACE=" + work, "GITHUB_ACTION_PATH=" + top, "GITHUB_REPOSITORY=shop/api",
		"RUNNER_TEMP=" + tmp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "NO_COLOR=1",
		"FAKE_GH_LOG=" + r.ghLog, "FAKE_GH_COMMENTS=" + filepath.Join(tmp, "gh-comments"),
		"FAKE_GH_RELEASES=" + filepath.Join(tmp, "releases"),
		"PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH")}
	for k, v := range r.files {
		r.env = append(r.env, k+"="+v)
	}
	return r
}

// fakeGo logs each call (%[1]q) and hands the action's `go build` to the
// go .ci/parts built with (in %[2]q), which copies the binary it made once
// the call is the same (the -o file aside); anything else runs the real go
// (%[3]q).
const fakeGo = `#!/usr/bin/env bash
echo "go $*" >> %[1]q
[ "$1" = build ] && CONTRACTLINT_ACTION_REPLAY=1 exec %[2]q/tools/go "$@"
exec %[3]q "$@"
`

// executable writes a script and makes it executable.
func executable(t *testing.T, file, script string) {
	write(t, file, script)
	if err := os.Chmod(file, 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeGH records each call, with what it read on standard input, answers a
// listing of comments with the ids in $FAKE_GH_COMMENTS (or every api call
// with a 403, as a fork's read-only token gets, when $FAKE_GH_FORBIDDEN is
// set), and downloads a
// release's assets from $FAKE_GH_RELEASES/<tag>/ (failing, as gh does, when
// there is no such release or asset).
const fakeGH = `#!/usr/bin/env bash
{ printf 'gh'; printf ' %s' "$@"; echo; } >> "$FAKE_GH_LOG"
if [ "$1" = api ] && [ -n "${FAKE_GH_FORBIDDEN:-}" ]; then
  echo "Resource not accessible by integration (HTTP 403)" >&2
  exit 1
fi
if [ "$1 $2" = "release download" ]; then
  rel="$FAKE_GH_RELEASES/$3" dir=. pats=()
  shift 3
  while [ $# -gt 0 ]; do
    case "$1" in --dir) dir="$2"; shift 2 ;; --pattern) pats+=("$2"); shift 2 ;; *) shift ;; esac
  done
  [ -d "$rel" ] || { echo "release not found" >&2; exit 1; }
  for p in "${pats[@]}"; do cp "$rel/$p" "$dir/" || exit 1; done
  exit 0
fi
for a in "$@"; do
  if [ "$a" = "--input" ]; then echo "--- stdin" >> "$FAKE_GH_LOG"; cat >> "$FAKE_GH_LOG"; echo "--- end" >> "$FAKE_GH_LOG"; fi
  if [ "$a" = "--paginate" ]; then cat "$FAKE_GH_COMMENTS" 2>/dev/null || true; fi
done
`

// run runs every step the way a runner does: a `uses:` step is skipped
// (the test uses the machine's Go and has no cache), the rest with bash;
// after a failed step only steps that ask to run anyway do. It returns the
// review step's standard output and exit status.
func (r *fakeRunner) run(act actionFile) (string, int) {
	t := r.t
	for _, f := range r.files {
		write(t, f, "")
	}
	var stdout string
	status, failed := -1, false
	// Each run starts with no step outputs, as a job does.
	for k := range r.ctx {
		if strings.HasPrefix(k, "steps.") {
			delete(r.ctx, k)
		}
	}
	for _, st := range act.Runs.Steps {
		if st.Run == "" {
			continue
		}
		if failed && !strings.Contains(st.If, "!cancelled()") {
			continue
		}
		if r.built && strings.Contains(st.If, "steps.cache.outputs.cache-hit != 'true'") {
			continue
		}
		if strings.Contains(st.If, "steps.release.outputs.installed != 'true'") &&
			slices.Contains(readEnvFile(t, r.files["GITHUB_OUTPUT"]), "installed=true") {
			r.countRuns()
			r.built = true
			continue
		}
		if strings.Contains(st.Run, "${{") {
			t.Fatalf("step %q expands ${{ }} inside run:; inputs must reach scripts through env", st.ID)
		}
		stepEnv := append(append([]string{}, r.env...), readEnvFile(t, r.files["GITHUB_ENV"])...)
		for k, v := range st.Env {
			stepEnv = append(stepEnv, k+"="+evaluate(t, v, r.inputs, r.ctx))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", st.Run)
		cmd.Dir = r.work
		cmd.Env = append(os.Environ(), stepEnv...)
		written := len(readEnvFile(t, r.files["GITHUB_OUTPUT"]))
		out, err := cmd.Output()
		// What the step wrote to GITHUB_OUTPUT is steps.<id>.outputs.
		for _, kv := range readEnvFile(t, r.files["GITHUB_OUTPUT"])[written:] {
			k, v, _ := strings.Cut(kv, "=")
			r.ctx["steps."+st.ID+".outputs."+k] = v
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
			t.Logf("step %q stderr:\n%s", st.Name, ee.Stderr)
		} else if err != nil {
			t.Fatal(err)
		}
		if st.ID == "review" {
			stdout, status = string(out), code
		} else if code != 0 {
			t.Fatalf("step %q exited %d:\n%s", st.Name, code, out)
		} else {
			r.log.Write(out)
		}
		failed = failed || code != 0
		if st.Name == "Build contractlint" {
			r.checkLean(r.binary())
			r.countRuns()
			r.built = true
		}
	}
	return stdout, status
}

// binary is the contractlint the action built, named in GITHUB_ENV.
func (r *fakeRunner) binary() string {
	bin := ""
	for _, kv := range readEnvFile(r.t, r.files["GITHUB_ENV"]) {
		if v, ok := strings.CutPrefix(kv, "CONTRACTLINT="); ok {
			bin = v
		}
	}
	if bin == "" {
		r.t.Fatal("the action set no CONTRACTLINT in GITHUB_ENV")
	}
	return bin
}

// checkLean: the action builds the binary whose cold build the README
// times, without cgo and without debug information or a symbol table; the
// review steps that follow show that this binary does all the action needs.
func (r *fakeRunner) checkLean(bin string) {
	info := must(r.t, r.tmp, nil, "go", "version", "-m", bin)
	for _, want := range []string{"build\tCGO_ENABLED=0", "build\t-gcflags=all=-dwarf=false", "build\t-trimpath=true"} {
		if !strings.Contains(info, want) {
			r.t.Errorf("the built contractlint lacks %q in its build settings:\n%s", want, info)
		}
	}
	f, err := elf.Open(bin)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	for _, sec := range []string{".symtab", ".debug_info"} {
		if f.Section(sec) != nil {
			r.t.Errorf("the built contractlint has a %s section; the action links with -s -w", sec)
		}
	}
}

// countRuns puts a wrapper in place of the built contractlint that logs
// each run, so the test can count them.
func (r *fakeRunner) countRuns() {
	bin := r.binary()
	if err := os.Rename(bin, bin+".real"); err != nil {
		r.t.Fatal(err)
	}
	write(r.t, bin, "#!/usr/bin/env bash\necho run >> \""+filepath.Join(r.tmp, "runs.log")+"\"\nexec \""+bin+".real\" \"$@\"\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// TestAction runs every `run:` step of action.yml with bash, the way a
// runner does, in a throwaway repository with a pull request event, and
// checks the outputs, annotations, job summary, SARIF file and the sticky
// comment, and that contractlint runs once.
func TestAction(t *testing.T) {
	need(t, "bash")
	need(t, "go")
	need(t, "jq")
	actionBuild(t)
	top := repoTop(t)
	act := readAction(t, top)

	tmp := t.TempDir()
	work, base := pullRequest(t, tmp)
	r := newFakeRunner(t, act, top, work, tmp, base)
	r.inputs["sarif-file"] = "out.sarif"
	r.inputs["comment"] = "true"
	stdout, status := r.run(act)
	if status != 1 {
		t.Fatalf("the review step exited %d, want 1 (an error finding with fail-on error):\n%s", status, stdout)
	}
	// Used by a branch, the action builds from source and asks for no release.
	if b, _ := os.ReadFile(r.goLog); !strings.Contains(string(b), "go build") {
		t.Errorf("used by a branch, the action did not build contractlint; go calls:\n%s", b)
	}
	if b, _ := os.ReadFile(r.ghLog); strings.Contains(string(b), "gh release") {
		t.Errorf("used by a branch, the action looked for a release:\n%s", b)
	}
	runs := filepath.Join(tmp, "runs.log")
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Errorf("contractlint ran %d times, want once", strings.Count(string(b), "run"))
	}
	outputs := readEnvFile(t, r.files["GITHUB_OUTPUT"])
	for _, want := range []string{"findings=1", "errors=1", "warnings=0", "report=" + filepath.Join(tmp, "contractlint.md")} {
		if !slices.Contains(outputs, want) {
			t.Errorf("outputs %q lack %q", outputs, want)
		}
	}
	if !regexp.MustCompile(`(?m)^::error file=api/shop\.proto,line=5,col=3,.*field-redefined`).MatchString(stdout) {
		t.Errorf("no field-redefined annotation at api/shop.proto:5:3:\n%s", stdout)
	}
	if !strings.Contains(stdout, "compared against "+base[:7]) {
		t.Errorf("the log does not name the base %s:\n%s", base[:7], stdout)
	}
	if sum, _ := os.ReadFile(r.files["GITHUB_STEP_SUMMARY"]); !strings.Contains(string(sum), "field-redefined") {
		t.Errorf("job summary lacks the finding:\n%s", sum)
	}
	if sarif, err := os.ReadFile(filepath.Join(work, "out.sarif")); err != nil || !strings.Contains(string(sarif), `"2.1.0"`) || !strings.Contains(string(sarif), "api/shop.proto") {
		t.Errorf("SARIF file: %v\n%.400s", err, sarif)
	}
	cacheDir := filepath.Join(tmp, "contractlint-contracts")
	entries, _ := filepath.Glob(filepath.Join(cacheDir, "*.entry"))
	if len(entries) == 0 {
		t.Errorf("the review kept no lowered contract in %s", cacheDir)
	}
	if outputs := readEnvFile(t, r.files["GITHUB_OUTPUT"]); !slices.Contains(outputs, "dir="+cacheDir) ||
		!slices.ContainsFunc(outputs, regexp.MustCompile(`^key=contractlint-contracts-Linux-[0-9a-f]{32}$`).MatchString) {
		t.Errorf("contract cache step outputs %q: want its dir and a key on the base", outputs)
	}
	gh, _ := os.ReadFile(r.ghLog)
	if !strings.Contains(string(gh), "gh api --method POST repos/shop/api/issues/7/comments --input -") ||
		!strings.Contains(string(gh), "<!-- contractlint:sticky -->") || !strings.Contains(string(gh), "field-redefined") {
		t.Errorf("first run: want one comment posted with the report, gh calls:\n%s", gh)
	}

	// A later push updates the comment found by its marker.
	write(t, filepath.Join(tmp, "gh-comments"), "4242\n")
	write(t, r.ghLog, "")
	r.run(act)
	gh, _ = os.ReadFile(r.ghLog)
	if !strings.Contains(string(gh), "gh api --method PATCH repos/shop/api/issues/comments/4242 --input -") || strings.Contains(string(gh), "POST") {
		t.Errorf("second run: want the comment updated, gh calls:\n%s", gh)
	}

	// against-tags compares with every release instead of the pull
	// request's base, and the log says which releases were checked.
	must(t, work, gitEnv, "git", "tag", "v1.0.0", base)
	r.inputs["against-tags"] = "v*"
	// base set too: not used, with a notice (the input's description says so).
	r.inputs["base"] = base
	r.log.Reset()
	stdout, status = r.run(act)
	if !strings.Contains(r.log.String(), "::notice title=contractlint::against-tags is set: the base input is not used") {
		t.Errorf("against-tags with base: no notice that base is not used; log:\n%s", r.log.String())
	}
	r.inputs["base"] = ""
	if status != 1 || !strings.Contains(stdout, "breaks clients built against v1.0.0") ||
		!strings.Contains(stdout, "::notice title=contractlint::checked against 1 release: v1.0.0") {
		t.Errorf("against-tags: v*: review exited %d, want 1 with the break naming v1.0.0 and the note:\n%s", status, stdout)
	}
	if outputs := readEnvFile(t, r.files["GITHUB_OUTPUT"]); !slices.Contains(outputs, "errors=1") {
		t.Errorf("against-tags: outputs %q lack errors=1", outputs)
	}
	r.inputs["against-tags"] = ""

	// A token that may not comment (a fork's pull request) warns; the
	// step's exit is still the review's, and the summary has the report.
	r.inputs["comment"] = "true"
	r.env = append(r.env, "FAKE_GH_FORBIDDEN=1")
	r.log.Reset()
	if _, status := r.run(act); status != 1 {
		t.Errorf("comment forbidden: review exited %d, want 1 (fail-on error)", status)
	}
	if log := r.log.String(); !strings.Contains(log, "::warning title=contractlint::could not read the pull request comment: the job's token needs pull-requests: write") ||
		!strings.Contains(log, "  gh: Resource not accessible by integration (HTTP 403)") {
		t.Errorf("comment forbidden: want a warning naming pull-requests: write, and gh's answer indented; log:\n%s", log)
	}
	if sum, _ := os.ReadFile(r.files["GITHUB_STEP_SUMMARY"]); !strings.Contains(string(sum), "field-redefined") {
		t.Errorf("comment forbidden: the job summary lacks the report:\n%s", sum)
	}
	r.inputs["fail-on"] = "never"
	if _, status := r.run(act); status != 0 {
		t.Errorf("comment forbidden, fail-on never: review exited %d, want 0", status)
	}
	r.inputs["fail-on"] = "error"
	r.env = append(r.env, "FAKE_GH_FORBIDDEN=")

	// A paths input that matches nothing fails the step, exit 2.
	r.inputs["paths"] = "apis/"
	if out, status := r.run(act); status != 2 {
		t.Errorf("paths: apis/ (no such directory): review exited %d, want 2:\n%s", status, out)
	}
}

// pullRequest makes a repository under tmp whose branch pr breaks the
// contract on main; it returns the repository and main's commit.
func pullRequest(t *testing.T, tmp string) (work, base string) {
	work = filepath.Join(tmp, "work")
	must(t, tmp, gitEnv, "git", "init", "-q", "-b", "main", work)
	write(t, filepath.Join(work, "api", "shop.proto"), shopV1)
	must(t, work, gitEnv, "git", "add", ".")
	must(t, work, gitEnv, "git", "commit", "-q", "-m", "v1")
	base = strings.TrimSpace(must(t, work, nil, "git", "rev-parse", "HEAD"))
	must(t, work, gitEnv, "git", "checkout", "-q", "-b", "pr")
	write(t, filepath.Join(work, "api", "shop.proto"), shopV2)
	must(t, work, gitEnv, "git", "commit", "-q", "-a", "-m", "v2")
	return work, base
}

// TestActionCacheKey runs the key step on a copy of the action's build
// files: the key must follow what the build reads, and only that. (setup-go
// hashes only files inside the workspace, which the action's go.sum is not.)
func TestActionCacheKey(t *testing.T) {
	need(t, "bash")
	top := repoTop(t)
	act := readAction(t, top)
	var step *actionStep
	for i := range act.Runs.Steps {
		st := &act.Runs.Steps[i]
		if st.ID == "key" {
			step = st
		}
		if strings.Contains(st.With["cache-dependency-path"], "action_path") {
			t.Errorf("step %q hashes a file outside the workspace, which setup-go cannot", st.Uses)
		}
		if strings.HasPrefix(st.Uses, "actions/cache@") && (st.With["key"] != "${{ steps.key.outputs.key }}" || st.With["path"] != "${{ steps.key.outputs.bin }}") &&
			(st.With["key"] != "${{ steps.contracts.outputs.key }}" || st.With["path"] != "${{ steps.contracts.outputs.dir }}") {
			t.Errorf("actions/cache is keyed on neither the key step nor the contracts step: %v", st.With)
		}
	}
	if step == nil {
		t.Fatal("action.yml has no step with id key")
	}
	src := t.TempDir()
	write(t, filepath.Join(src, "go.mod"), "module x\n")
	write(t, filepath.Join(src, "go.sum"), "a v1 h1:x\n")
	write(t, filepath.Join(src, "main.go"), "package main\nfunc main() {}\n")
	key := func() string {
		tmp := t.TempDir()
		out := filepath.Join(tmp, "out")
		env := []string{"ACTION_PATH=" + src, "GO_VERSION=1.26", "RUNNER_TEMP=" + tmp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
			"GITHUB_OUTPUT=" + out, "GITHUB_PATH=" + filepath.Join(tmp, "path"), "GITHUB_ENV=" + filepath.Join(tmp, "env")}
		must(t, tmp, env, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step.Run)
		for _, kv := range readEnvFile(t, out) {
			if k, ok := strings.CutPrefix(kv, "key="); ok {
				return k
			}
		}
		t.Fatal("the key step wrote no key")
		return ""
	}
	k1 := key()
	if !regexp.MustCompile(`^contractlint-Linux-X64-go1\.26-[0-9a-f]{32}$`).MatchString(k1) {
		t.Errorf("key %q", k1)
	}
	write(t, filepath.Join(src, "x_test.go"), "package main\n")
	write(t, filepath.Join(src, "testdata", "a.go"), "package a\n")
	if k := key(); k != k1 {
		t.Errorf("a test file changed the key: %s -> %s", k1, k)
	}
	write(t, filepath.Join(src, "go.sum"), "a v1 h1:y\n")
	if k := key(); k == k1 {
		t.Error("a changed go.sum kept the key: a stale binary would be used")
	}
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
		// A step that did not run, or set no such output, gives "".
		if !ok && !strings.HasPrefix(name, "steps.") {
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

// TestActionEvents runs the action on each event a workflow may use, with
// that event's payload file: each names the commits to compare its own way,
// and each must find the break the branch brings.
func TestActionEvents(t *testing.T) {
	need(t, "bash")
	need(t, "go")
	need(t, "jq")
	actionBuild(t)
	top := repoTop(t)
	act := readAction(t, top)
	tmp := t.TempDir()
	work, base := pullRequest(t, tmp)
	head := strings.TrimSpace(must(t, work, nil, "git", "rev-parse", "HEAD"))
	// What actions/checkout with fetch-depth 0 leaves: the default branch
	// as a remote-tracking ref.
	must(t, work, gitEnv, "git", "update-ref", "refs/remotes/origin/main", base)
	r := newFakeRunner(t, act, top, work, tmp, base)
	zeros := strings.Repeat("0", 40)
	for _, c := range []struct{ name, event, payload, want string }{
		{"pull_request", "pull_request", `{"pull_request": {"number": 7, "base": {"sha": "` + base + `"}}}`, base[:7]},
		{"pull_request_target", "pull_request_target", `{"pull_request": {"number": 7, "base": {"sha": "` + base + `"}}}`, base[:7]},
		{"merge_group", "merge_group", `{"merge_group": {"base_sha": "` + base + `", "head_sha": "` + head + `"}}`, base[:7]},
		{"push", "push", `{"before": "` + base + `", "after": "` + head + `", "repository": {"default_branch": "main"}}`, base[:7]},
		{"push, a branch's first", "push", `{"before": "` + zeros + `", "after": "` + head + `", "repository": {"default_branch": "main"}}`,
			"origin/main @ " + base[:7]},
		{"workflow_dispatch", "workflow_dispatch", `{"inputs": {"base": "` + base + `"}}`, base[:7]},
		{"workflow_dispatch, no input", "workflow_dispatch", `{"inputs": {}}`, "origin/main @ " + base[:7] + ", merge base of HEAD"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			event := filepath.Join(tmp, "event-"+c.event+".json")
			write(t, event, c.payload)
			r.env = append(r.env, "GITHUB_EVENT_NAME="+c.event, "GITHUB_EVENT_PATH="+event, "GITHUB_SHA="+head)
			stdout, status := r.run(act)
			if status != 1 || !strings.Contains(stdout, "field-redefined") || !strings.Contains(stdout, "compared against "+c.want) {
				t.Errorf("review exited %d, want 1 with the break, compared against %s:\n%s", status, c.want, stdout)
			}
		})
	}

	// A push to main: the commit that just landed is compared with the one
	// before it, not main with itself.
	must(t, work, gitEnv, "git", "checkout", "-q", "main")
	must(t, work, gitEnv, "git", "merge", "-q", "--ff-only", "pr")
	event := filepath.Join(tmp, "event-push-main.json")
	write(t, event, `{"before": "`+base+`", "after": "`+head+`", "repository": {"default_branch": "main"}}`)
	r.t = t
	r.env = append(r.env, "GITHUB_EVENT_NAME=push", "GITHUB_EVENT_PATH="+event, "GITHUB_SHA="+head)
	if stdout, status := r.run(act); status != 1 || !strings.Contains(stdout, "compared against "+base[:7]) {
		t.Errorf("push to main: review exited %d, want 1 comparing with the commit before the push:\n%s", status, stdout)
	}
}

// TestActionDeepensShallowClone runs the deepen step in a clone of depth 1,
// as actions/checkout makes by default: afterwards the clone holds the
// whole history, so the base and every version of a .proto file are there.
func TestActionDeepensShallowClone(t *testing.T) {
	need(t, "bash")
	top := repoTop(t)
	act := readAction(t, top)
	var step *actionStep
	for i := range act.Runs.Steps {
		if act.Runs.Steps[i].ID == "deepen" {
			step = &act.Runs.Steps[i]
		}
	}
	if step == nil {
		t.Fatal("action.yml has no step with id deepen")
	}
	tmp := t.TempDir()
	origin, base := pullRequest(t, tmp)
	clone := filepath.Join(tmp, "clone")
	must(t, tmp, gitEnv, "git", "-c", "protocol.file.allow=always", "clone", "-q", "--depth", "1", "--branch", "pr", "file://"+origin, clone)
	if got := strings.TrimSpace(must(t, clone, nil, "git", "rev-parse", "--is-shallow-repository")); got != "true" {
		t.Fatalf("the clone is not shallow (%s)", got)
	}
	env := append(slices.Clip(gitEnv), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.file.allow", "GIT_CONFIG_VALUE_0=always")
	out := must(t, clone, env, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step.Run)
	if got := strings.TrimSpace(must(t, clone, nil, "git", "rev-parse", "--is-shallow-repository")); got != "false" {
		t.Errorf("after the step the clone is still shallow; it said:\n%s", out)
	}
	must(t, clone, nil, "git", "cat-file", "-e", base+"^{commit}")
	// A full clone is left alone.
	if out := must(t, clone, env, "bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step.Run); strings.TrimSpace(out) != "" {
		t.Errorf("on a full clone the step said %q, want nothing", out)
	}
}
