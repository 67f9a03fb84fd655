package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/gittest"
)

// needTool skips without the command, except in CI, where a missing part
// must fail the run rather than leave what needs it untested.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (Debian package %s; CI=true, so this fails instead of skipping)", name, pkg)
		}
		t.Skipf("%s is not installed (Debian package %s)", name, pkg)
	}
}

const lspOrders = `openapi: 3.0.3
info: {title: Orders, version: "1"}
paths:
  /v1/orders/{id}:
    get:
      operationId: getOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: the order
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
                  price:
                    type: number
                    description: Ticket price.
`

// TestLSPInNeovim is `contractlint lsp` as an editor uses it: Neovim's
// own LSP client, headless, opens a contract in a throwaway repository,
// changes price's type from number to integer in the unsaved buffer and
// reads back what the server published. The server is this test binary
// (TestMain runs it as contractlint, found on the PATH testscript sets).
func TestLSPInNeovim(t *testing.T) {
	home, dir, file, env := nvimRepo(t)
	script, err := filepath.Abs("testdata/nvim-lsp.lua")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "diagnostics.json")
	cmd := exec.Command("nvim", "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(env, "LSP_ROOT="+dir, "LSP_FILE="+file, "LSP_OUT="+out)
	done := make(chan error, 1)
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("nvim did not finish\n%s", output.String())
	}
	got, rerr := os.ReadFile(out)
	if err != nil || rerr != nil {
		t.Fatalf("nvim: %v (%v)\n%s\npublished: %s", err, rerr, output.String(), got)
	}
	var p struct {
		Diagnostics []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Range   struct {
				Start struct{ Line int } `json:"start"`
			} `json:"range"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(got, &p); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	want := strings.Count(lspOrders[:strings.Index(lspOrders, "price:")], "\n")
	found := false
	for _, d := range p.Diagnostics {
		if d.Code == "field-redefined" && d.Range.Start.Line == want && strings.Contains(d.Message, "type number -> integer") {
			found = true
		}
	}
	if !found {
		t.Errorf("no field-redefined at line %d (price:) in what nvim received: %s", want+1, got)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != lspOrders {
		t.Errorf("the file on disk changed (%v): the buffer was never saved, so the server read it", err)
	}
}

// nvimRepo is a throwaway repository holding one committed contract
// (api/orders.yaml, lspOrders), and an environment for nvim and git that
// keeps both out of the user's configuration and the repository the test
// runs in.
func nvimRepo(t *testing.T) (home, dir, file string, env []string) {
	t.Helper()
	needTool(t, "git", "git")
	needTool(t, "nvim", "neovim")
	if _, err := exec.LookPath("contractlint"); err != nil {
		t.Fatalf("the test binary is not on PATH as contractlint: %v", err)
	}
	home = t.TempDir()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// A hook's GIT_DIR must not send the throwaway repository's git calls,
	// or the server's, to the repository the test runs in.
	env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_DIR=") || strings.HasPrefix(kv, "GIT_WORK_TREE=") || strings.HasPrefix(kv, "GIT_INDEX_FILE=")
	})
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "XDG_STATE_HOME="+home,
		"XDG_CACHE_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"))
	env = append(env, gittest.QuietEnv()...)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	file = filepath.Join(dir, "api", "orders.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(lspOrders), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "v1")
	return home, dir, file, env
}
