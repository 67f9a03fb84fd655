package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/chain"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/rules"
)

// client drives a server in this process through the protocol, as an
// editor does: every test goes through requests and notifications only.
type client struct {
	t    testing.TB
	conn *conn
	done chan error
	mu   sync.Mutex
	next int
	// replies receives the answers to requests.
	replies map[string]chan *message
	// diags is the latest publishDiagnostics per URI.
	diags map[string]publishDiagnosticsParams
	// versions are the versions published per URI, in order.
	versions map[string][]int
	dchg     chan struct{}
	shown    []showMessageParams
	closer   io.Closer
}

// repo is a throwaway git repository whose first commit holds files.
type repo struct {
	dir string
}

// needGit skips without git, except in CI, where a missing git must fail.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true, so this fails instead of skipping)")
		}
		t.Skip("git is not installed")
	}
}

// newRepo makes a repository on main with files committed, isolated from
// the user's git configuration.
func newRepo(t testing.TB, files map[string]string) *repo {
	t.Helper()
	needGit(t)
	home := t.TempDir()
	for k, v := range map[string]string{
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
		"GIT_CONFIG_GLOBAL": filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1", "HOME": home,
		"GIT_DIR": "", "GIT_WORK_TREE": "", "GIT_INDEX_FILE": "",
	} {
		t.Setenv(k, v)
		if v == "" {
			os.Unsetenv(k)
		}
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{dir: dir}
	r.git(t, "init", "-q", "-b", "main")
	r.write(t, files)
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "--allow-empty", "-m", "base")
	return r
}

func (r *repo) write(t testing.TB, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (r *repo) git(t testing.TB, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (r *repo) uri(name string) string { return nameURI(name, r.dir) }

// testOptions configure the server as the CLI does with no config file:
// the default rules, settings and contract globs.
func testOptions() Options {
	return Options{
		Configure: func(string, string) (review.Options, chain.Chain, error) {
			return review.Options{Globs: []string{"**/*.proto", "**/*.yaml", "**/*.yml", "**/*.json"},
				Pipeline: pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{ProtoLevel: rules.LevelWireJSON}}}, chain.For(chain.Command{}), nil
		},
		Debounce: 20 * time.Millisecond,
		RulesURL: "https://example.com/rules",
	}
}

// start runs a server and initializes it with the repository as its root.
func start(t testing.TB, r *repo, o Options, initOptions any) *client {
	t.Helper()
	return startWith(t, r, o, initOptions, map[string]any{})
}

// startWith is start for a client that advertises caps.
func startWith(t testing.TB, r *repo, o Options, initOptions any, caps map[string]any) *client {
	t.Helper()
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	c := &client{t: t, conn: newConn(cr, cw), done: make(chan error, 1), replies: map[string]chan *message{},
		diags: map[string]publishDiagnosticsParams{}, versions: map[string][]int{}, dchg: make(chan struct{}, 1), closer: cw}
	go func() {
		c.done <- Serve(context.Background(), sr, sw, o)
		sw.Close()
	}()
	go c.readLoop()
	t.Cleanup(func() {
		cw.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop when its input closed")
		}
	})
	params := map[string]any{"processId": nil, "rootUri": nameURI(".", r.dir), "capabilities": caps}
	if initOptions != nil {
		params["initializationOptions"] = initOptions
	}
	res := c.request("initialize", params)
	if res.Error != nil {
		t.Fatalf("initialize: %v", res.Error)
	}
	c.notify("initialized", map[string]any{})
	return c
}

func (c *client) readLoop() {
	for {
		m, err := c.conn.read()
		if err != nil {
			return
		}
		c.mu.Lock()
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p publishDiagnosticsParams
			json.Unmarshal(m.Params, &p)
			c.diags[p.URI] = p
			if p.Version != nil {
				c.versions[p.URI] = append(c.versions[p.URI], *p.Version)
			}
			select {
			case c.dchg <- struct{}{}:
			default:
			}
		case m.Method == "window/showMessage":
			var p showMessageParams
			json.Unmarshal(m.Params, &p)
			c.shown = append(c.shown, p)
			select {
			case c.dchg <- struct{}{}:
			default:
			}
		case m.Method == "":
			if ch := c.replies[string(m.ID)]; ch != nil {
				ch <- m
			}
		}
		c.mu.Unlock()
	}
}

func (c *client) request(method string, params any) *message {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := json.RawMessage(fmt.Sprint(c.next))
	ch := make(chan *message, 1)
	c.replies[string(id)] = ch
	c.mu.Unlock()
	p, _ := json.Marshal(params)
	if err := c.conn.write(&message{ID: id, Method: method, Params: p}); err != nil {
		c.t.Fatal(err)
	}
	select {
	case m := <-ch:
		return m
	case <-time.After(60 * time.Second):
		c.t.Fatalf("no answer to %s", method)
		return nil
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.notify(method, params); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) open(uri, text string) {
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
}

// edit replaces the whole buffer (version v).
func (c *client) edit(uri string, v int, text string) {
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v},
		"contentChanges": []map[string]any{{"text": text}}})
}

// waitDiagnostics waits for uri's diagnostics of version v (any version
// when v is 0) that satisfy ok.
func (c *client) waitDiagnostics(uri string, v int, ok func([]diagnostic) bool) []diagnostic {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		p, has := c.diags[uri]
		c.mu.Unlock()
		if has && (v == 0 || p.Version != nil && *p.Version == v) && ok(p.Diagnostics) {
			return p.Diagnostics
		}
		select {
		case <-c.dchg:
		case <-deadline:
			c.t.Fatalf("%s: no diagnostics as wanted; last: %+v; shown: %+v", uri, p, c.shown)
			return nil
		}
	}
}

// published is the versions of uri's diagnostics received so far, in order.
func (c *client) published(uri string) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.versions[uri])
}

func (c *client) waitShown(ok func(showMessageParams) bool) showMessageParams {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		for _, s := range c.shown {
			if ok(s) {
				c.mu.Unlock()
				return s
			}
		}
		c.mu.Unlock()
		select {
		case <-c.dchg:
		case <-deadline:
			c.t.Fatalf("no message as wanted; shown: %+v", c.shown)
		}
	}
}

func codes(ds []diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

func has(code string) func([]diagnostic) bool {
	return func(ds []diagnostic) bool {
		for _, d := range ds {
			if d.Code == code {
				return true
			}
		}
		return false
	}
}

func lacks(code string) func([]diagnostic) bool {
	return func(ds []diagnostic) bool { return !has(code)(ds) }
}

// applyEdits applies a workspace edit's changes to text, last first.
func applyEdits(t testing.TB, text string, edits []textEdit) string {
	t.Helper()
	for i := len(edits) - 1; i >= 0; i-- {
		var err error
		if text, err = apply(text, contentChange{Range: &edits[i].Range, Text: edits[i].NewText}); err != nil {
			t.Fatal(err)
		}
	}
	return text
}
