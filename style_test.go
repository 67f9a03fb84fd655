package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStyle keeps the tree gofmt-clean. staticcheck and unparam run from
// .ci/lint (pinned in .ci/tools/go.mod), not here: compiling them inside the
// test binary's timeout made the suite pass or fail by machine load.
func TestStyle(t *testing.T) {
	files, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	args := append([]string{"-l"}, strings.Fields(string(files))...)
	out, err := exec.Command("gofmt", args...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("gofmt -l: %v\n%s", err, out)
	}
}

// TestDesignPicture keeps docs/design.md's package picture equal to the
// packages: every package is named there, and every name there is one. Both
// modules: the linter and the charge server (go.work joins them).
func TestDesignPicture(t *testing.T) {
	b, err := os.ReadFile("docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, pic, _ := strings.Cut(string(b), "```\n")
	pic, _, _ = strings.Cut(pic, "```")
	named := map[string]bool{}
	for _, line := range strings.Split(pic, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (strings.HasSuffix(f[0], "/") || strings.Contains(f[0], "/") || f[0] == "main.go") && !strings.HasPrefix(line, " ") {
			named[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...", "./chargeserver/...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	wd, _ := os.Getwd()
	for _, dir := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(dir, wd), string(os.PathSeparator))
		if rel == "" {
			rel = "main.go"
		}
		rel = strings.ReplaceAll(rel, string(os.PathSeparator), "/")
		if !named[rel] {
			t.Errorf("docs/design.md does not name package %s", rel)
		}
		delete(named, rel)
	}
	for n := range named {
		t.Errorf("docs/design.md names %s, which is no package", n)
	}
}
