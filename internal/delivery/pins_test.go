package delivery

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A pin is a ref of this repository that the documentation tells a user to
// copy: a pre-commit `rev:` under `repo: .../contractlint/contractlint`, or
// the ref after `contractlint/contractlint@` (the Action, go install) or
// after `contractlint/contractlint/PATH@` (a reusable workflow, which must
// exist at that ref).
type pin struct {
	where string // file:line
	ref   string
	code  bool   // inside a fenced code block, so copied as it is
	path  string // the file the pin names in the repository, if any
}

var (
	usesPin = regexp.MustCompile("contractlint/contractlint(?:/([^@\\s`'\"]+))?@([^\\s`'\")]+)")
	// varRef is a pin spelled as a shell or CI variable: its default, or the
	// value the same document gives it (`NAME: value`), is the ref copied.
	varRef  = regexp.MustCompile(`^\$\{(\w+)(?::-([^}]+))?\}$`)
	repoPin = regexp.MustCompile(`repo:\s*https://github\.com/contractlint/contractlint\s*$`)
	revPin  = regexp.MustCompile(`^\s*rev:\s*(\S+)`)
	// placeholder is what prose may name instead of a ref: a word the
	// reader replaces. A code block never holds one: it is copied as is.
	placeholder = regexp.MustCompile(`^(VERSION|vX\.Y\.Z)$`)
	commitID    = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// docPins finds the pins in a Markdown document.
func docPins(name, text string) []pin {
	var pins []pin
	code, afterRepo := false, false
	for i, line := range strings.Split(text, "\n") {
		where := name + ":" + strconv.Itoa(i+1)
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			code, afterRepo = !code, false
			continue
		}
		for _, m := range usesPin.FindAllStringSubmatch(line, -1) {
			pins = append(pins, pin{where, varValue(text, m[2]), code, m[1]})
		}
		if m := revPin.FindStringSubmatch(line); m != nil && afterRepo {
			pins = append(pins, pin{where, m[1], code, ""})
			afterRepo = false
		}
		if repoPin.MatchString(line) {
			afterRepo = true
		}
	}
	return pins
}

// varValue is the ref a variable pin stands for: its default, else the
// value the document assigns to it; a ref that is no variable is itself.
func varValue(text, ref string) string {
	m := varRef.FindStringSubmatch(ref)
	if m == nil {
		return ref
	}
	if m[2] != "" {
		return m[2]
	}
	if v := regexp.MustCompile(`(?m)^\s*` + m[1] + `:\s*(\S+)`).FindStringSubmatch(text); v != nil {
		return v[1]
	}
	return ref
}

// TestDocPinsResolve: every ref of this repository the README and docs
// tell a user to copy resolves in a clone of this repository: a release
// tag once one exists, a full commit id until then (pre-commit fetches a
// rev by name, so a short id does not do), and the hook at that commit is
// one current pre-commit runs without a warning. A ref that the
// coordinator's merge loses (a rebase, a squash) fails here, naming it.
func TestDocPinsResolve(t *testing.T) {
	top := repoTop(t)
	if strings.TrimSpace(must(t, top, nil, "git", "rev-parse", "--is-shallow-repository")) == "true" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the checkout is shallow (CI=true, so this fails instead of skipping): the pinned commits may be missing")
		}
		t.Skip("the checkout is shallow: the pinned commits may be missing")
	}
	files, err := filepath.Glob(filepath.Join(top, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(top, "README.md"))
	var pins []pin
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(top, f)
		pins = append(pins, docPins(rel, string(b))...)
	}
	if len(pins) < 2 {
		t.Fatalf("found %d pins in the docs; the README's pre-commit and Action examples each have one", len(pins))
	}
	// The docs pin one or two commits many times over: each ref's git
	// checks run once, and every pin of it is told their answer.
	refs := map[string]refCheck{}
	for _, p := range pins {
		checkPin(t, top, p, refs)
	}
}

// checkPin checks one pin; refs holds the answer for each ref checked so
// far.
func checkPin(t *testing.T, top string, p pin, refs map[string]refCheck) {
	t.Helper()
	if placeholder.MatchString(p.ref) {
		if p.code {
			t.Errorf("%s: the placeholder %s is in a code block, which a user copies as it is", p.where, p.ref)
		}
		return
	}
	if !commitID.MatchString(p.ref) && !strings.HasPrefix(p.ref, "v") {
		t.Errorf("%s: %s is neither a release tag nor a full commit id", p.where, p.ref)
		return
	}
	c, checked := refs[p.ref]
	if !checked {
		c = checkRef(t, top, p.ref)
		refs[p.ref] = c
	}
	for _, problem := range c.problems {
		t.Errorf("%s: %s", p.where, problem)
	}
	if c.found && p.path != "" {
		if out, err := run(t, top, nil, "git", "cat-file", "-e", p.ref+":"+p.path); err != nil {
			t.Errorf("%s: %s has no %s: %s", p.where, p.ref, p.path, out)
		}
	}
}

// refCheck is what makes a ref a pin a user cannot copy: found says it
// resolves to a commit in HEAD's history, problems what is wrong with it
// (no such commit, no action.yml, a hook that current pre-commit warns
// about).
type refCheck struct {
	found    bool
	problems []string
}

func checkRef(t *testing.T, top, ref string) refCheck {
	t.Helper()
	if _, err := run(t, top, nil, "git", "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return refCheck{problems: []string{fmt.Sprintf("%s does not resolve in this repository (a clone has no such tag or commit); pin a commit id until the release tag is pushed (docs/release.md)", ref)}}
	}
	if _, err := run(t, top, nil, "git", "merge-base", "--is-ancestor", ref, "HEAD"); err != nil {
		return refCheck{problems: []string{fmt.Sprintf("%s is not in HEAD's history, so a clone of the default branch may not have it", ref)}}
	}
	c := refCheck{found: true}
	if out, err := run(t, top, nil, "git", "cat-file", "-e", ref+":action.yml"); err != nil {
		c.problems = append(c.problems, fmt.Sprintf("%s has no action.yml: %s", ref, out))
	}
	hooks, err := run(t, top, nil, "git", "show", ref+":.pre-commit-hooks.yaml")
	if err != nil {
		c.problems = append(c.problems, fmt.Sprintf("%s has no .pre-commit-hooks.yaml: %s", ref, hooks))
		return c
	}
	for _, problem := range hookProblems(readHooks(t, []byte(hooks))) {
		c.problems = append(c.problems, fmt.Sprintf("at %s, %s; pin a later commit", ref, problem))
	}
	return c
}

func TestDocPinsFound(t *testing.T) {
	doc := "Pin `contractlint/contractlint@VERSION` in prose.\n" +
		"```yaml\n" +
		"  - repo: https://github.com/contractlint/contractlint\n" +
		"    rev: 0123456789abcdef0123456789abcdef01234567   # a commit\n" +
		"    rev: not-a-pin\n" +
		"```\n" +
		"```yaml\n" +
		"        uses: contractlint/contractlint@v1.2.3   # the Action\n" +
		"        uses: actions/checkout@v4\n" +
		"    uses: contractlint/contractlint/.github/workflows/w.yml@v1.2.4\n" +
		"    CONTRACTLINT_VERSION: v1.2.5\n" +
		"    - go install \"github.com/contractlint/contractlint@${CONTRACTLINT_VERSION}\"\n" +
		"    - go install \"github.com/contractlint/contractlint@${CONTRACTLINT_VERSION:-v1.2.6}\"\n" +
		"```\n"
	got := docPins("d.md", doc)
	want := []pin{{"d.md:1", "VERSION", false, ""}, {"d.md:4", "0123456789abcdef0123456789abcdef01234567", true, ""},
		{"d.md:8", "v1.2.3", true, ""}, {"d.md:10", "v1.2.4", true, ".github/workflows/w.yml"},
		{"d.md:12", "v1.2.5", true, ""}, {"d.md:13", "v1.2.6", true, ""}}
	if len(got) != len(want) {
		t.Fatalf("docPins = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pin %d = %v, want %v", i, got[i], want[i])
		}
	}
}
