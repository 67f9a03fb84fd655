package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStyle keeps the tree gofmt-, staticcheck- (every check) and unparam-clean, so the README's one
// test command checks what a reviewer checks first.
func TestStyle(t *testing.T) {
	if testing.Short() {
		t.Skip("style checks skipped in -short mode")
	}
	files, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	args := append([]string{"-l"}, strings.Fields(string(files))...)
	out, err := exec.Command("gofmt", args...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("gofmt -l: %v\n%s", err, out)
	}
	// Every check, package comments and naming included; an exception is a
	// //lint:ignore with its one-line reason beside the code.
	runTool(t, "staticcheck", "honnef.co/go/tools/cmd/staticcheck@v0.8.2", "-checks", "all", "./...")
	// Parameters and results no caller uses.
	runTool(t, "unparam", "mvdan.cc/unparam@v0.0.0-20260823230713-2fa3d841b0c8", "./...")
}

// TestDesignPicture keeps docs/design.md's package picture equal to the
// packages: every package is named there, and every name there is one.
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
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
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

// runTool runs a pinned checker with go run and fails on what it reports;
// without a module proxy it skips, except in CI.
func runTool(t *testing.T, name, pkg string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", pkg}, args...)...)
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	if _, ok := err.(*exec.ExitError); ok && !strings.Contains(string(out), "go: ") {
		t.Errorf("%s:\n%s", name, out)
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s could not run: %v\n%s", name, err, out)
	}
	t.Skipf("%s could not run (no module proxy?): %v", name, err)
}
