package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestReadmeNeovimSnippet runs the README's init.lua as it is, in the
// Neovim installed (Debian 12's is 0.7, which has no vim.lsp.start):
// opening a contract starts contractlint lsp and attaches it.
func TestReadmeNeovimSnippet(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```lua\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no lua block (the Neovim snippet)")
	}
	home, dir, file, env := nvimRepo(t)
	initLua := filepath.Join(home, "nvim", "init.lua")
	if err := os.MkdirAll(filepath.Dir(initLua), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(initLua, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	check, err := filepath.Abs("testdata/nvim-attached.lua")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("nvim", "--headless", "-n", "-i", "NONE", "-c", "luafile "+check, file)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim with the README's init.lua: %v\n%s", err, out)
	}
}
