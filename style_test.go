package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStyle keeps the tree gofmt- and staticcheck-clean, so the README's one
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
	cmd := exec.Command("go", "run", "honnef.co/go/tools/cmd/staticcheck@v0.8.2", "./...")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err = cmd.CombinedOutput()
	if err == nil {
		return
	}
	if _, ok := err.(*exec.ExitError); ok && !strings.Contains(string(out), "go: ") {
		t.Errorf("staticcheck:\n%s", out)
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("staticcheck could not run: %v\n%s", err, out)
	}
	t.Skipf("staticcheck could not run (no module proxy?): %v", err)
}
