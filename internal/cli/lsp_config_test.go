package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/gittest"
)

// TestLSPConfigFromBase: the server's gate is the base's, as review's is. A
// work tree whose .contractlint.yaml ignores everything still shows, in
// the editor, what the base's config reports; the looser config governs
// once merged.
func TestLSPConfigFromBase(t *testing.T) {
	dir, git, write := lspRepo(t)
	write(".contractlint.yaml", "ignore: []\n")
	write("api.yaml", lspOrders)
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "v1")
	// The work tree's config drops every finding; the base's does not.
	write(".contractlint.yaml", "ignore:\n  - \"**\"\n")

	edited := strings.Replace(lspOrders, "type: number", "type: integer", 1)
	got := lspDiagnostics(t, dir, "api.yaml", edited)
	if !strings.Contains(got, `"code":"field-redefined"`) {
		t.Errorf("the work tree's ignore silenced the buffer; the base's config should govern: %s", got)
	}

	// A base that is not there has no config to read: the server still
	// starts, and says which git command fixes it.
	if _, msg := lspSession(t, dir, "api.yaml", edited, "--base", "no-such-branch"); !strings.Contains(msg, "git") {
		t.Errorf("a missing base should be one message naming a git command, got %q", msg)
	}

	// Once merged, the looser config is the base's.
	git("add", ".")
	git("commit", "-q", "-m", "v2")
	got = lspDiagnostics(t, dir, "api.yaml", edited)
	if strings.Contains(got, `"code":"field-redefined"`) {
		t.Errorf("the merged config ignores every file, yet the buffer shows a finding: %s", got)
	}
}

// lspRepo is an empty throwaway directory for a git repository, isolated
// from the user's git, and how to run git in it and write a file there.
func lspRepo(t *testing.T) (dir string, git func(...string), write func(name, text string)) {
	needTool(t, "git", "git")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(dir, "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range gittest.QuietEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	git = func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write = func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, git, write
}

// lspDiagnostics runs `contractlint lsp` in-process on dir, opens name with
// text and returns the diagnostics published for it (as JSON); it fails
// on a message shown instead.
func lspDiagnostics(t *testing.T, dir, name, text string, args ...string) string {
	t.Helper()
	got, msg := lspSession(t, dir, name, text, args...)
	if msg != "" {
		t.Fatalf("the server said: %s", msg)
	}
	return got
}

// lspSession is lspDiagnostics, returning the first message the server
// shows, if it shows one before diagnostics.
func lspSession(t *testing.T, dir, name, text string, args ...string) (diags, msg string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e := cli.OSEnv(inR, outW, io.Discard)
	e.Getwd = func() (string, error) { return dir, nil }
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(append([]string{"lsp", "--debounce", "1ms"}, args...), e)
		outW.Close()
	}()
	id := 0
	send := func(method string, params any) {
		m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if method == "initialize" || method == "shutdown" {
			id++
			m["id"] = id
		}
		b, _ := json.Marshal(m)
		fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, name))}).String()
	msgs := make(chan map[string]json.RawMessage, 100) // the server never waits on the test
	go func() {
		defer close(msgs)
		r := bufio.NewReader(outR)
		for {
			n := 0
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(r, b); err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil {
				msgs <- m
			}
		}
	}()
	send("initialize", map[string]any{"processId": nil, "rootUri": (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String(), "capabilities": map[string]any{}})
	send("initialized", map[string]any{})
	send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
	var got string
	timeout := time.After(time.Minute)
	for got == "" && msg == "" {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatal("the server stopped before it published diagnostics")
			}
			var method string
			json.Unmarshal(m["method"], &method)
			var p struct {
				URI         string          `json:"uri"`
				Diagnostics json.RawMessage `json:"diagnostics"`
			}
			json.Unmarshal(m["params"], &p)
			switch {
			case method == "window/showMessage":
				msg = string(m["params"])
			case method == "textDocument/publishDiagnostics" && p.URI == uri:
				got = string(p.Diagnostics)
			}
		case <-timeout:
			t.Fatal("no diagnostics within a minute")
		}
	}
	send("shutdown", nil)
	send("exit", nil)
	go func() {
		for range msgs {
		}
	}()
	if code := <-done; code != 0 {
		t.Errorf("lsp exited %d", code)
	}
	inW.Close()
	return got, msg
}

// TestLSPAppliesWaivers: the editor runs the chain review runs (internal/
// chain), so a waiver that review honours is honoured in the editor too.
// Before, the server skipped the waivers file: a change review passed
// showed as an error in the buffer.
func TestLSPAppliesWaivers(t *testing.T) {
	dir, git, write := lspRepo(t)
	write("api.yaml", lspOrders)
	write(".contractlint-waivers.yaml", "waivers:\n"+
		"  - rule: field-redefined\n"+
		"    element: \"#/paths/~1v1~1orders~1{id}/get/responses/200/content/application~1json/schema/properties/price\"\n"+
		"    owner: \"@orders\"\n"+
		"    reason: every client reads price as a JSON number either way\n")
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "v1")
	edited := strings.Replace(lspOrders, "type: number", "type: integer", 1)
	write("api.yaml", edited)
	e := cli.OSEnv(strings.NewReader(""), io.Discard, io.Discard)
	e.Getwd = func() (string, error) { return dir, nil }
	if code := cli.Main([]string{"review", "--base", "main"}, e); code != 0 {
		t.Fatalf("review exited %d: the waiver should accept the change", code)
	}
	if got := lspDiagnostics(t, dir, "api.yaml", edited); strings.Contains(got, `"code":"field-redefined"`) {
		t.Errorf("review honours the waiver, the editor shows the finding anyway: %s", got)
	}
}
