package source

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A git older than 2.36 refuses --batch-command and exits at once: the
// reader's error says what git said and what it needs, not a bare EOF.
func TestCatSaysWhyGitWentAway(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in git is a shell script")
	}
	bin := t.TempDir()
	old := "#!/bin/sh\necho \"error: unknown option \\`batch-command'\" >&2\nexit 129\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(old), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	c, err := StartCat(t.TempDir(), "--batch-command")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Ask("contents HEAD:a.yaml")
	if err == nil || !strings.Contains(err.Error(), "unknown option `batch-command'") || !strings.Contains(err.Error(), "git 2.36") {
		t.Fatalf("Ask = %v, want git's refusal and the version needed", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close after the process went away: %v", err)
	}
}
