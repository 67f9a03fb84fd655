package timeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/gittest"
	"github.com/contractlint/contractlint/internal/timeline"
)

// gitEnv keeps git, the test's and the code's, away from the user's
// configuration and from any repository the test runs inside.
func gitEnv(t testing.TB) {
	t.Helper()
	gittest.Isolate(t)
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// buildRepo makes a real repository from a txtar archive: files outside a
// version directory are committed first; each of v1/ ... vN/ replaces the
// contracts and is committed and tagged vN.0.0, oldest first; head/ is
// committed last, untagged.
func buildRepo(t testing.TB, top, archive string) {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	tree := map[string][]byte{}
	versions := map[string][]txtar.File{}
	var order []string
	for _, f := range a.Files {
		v, rest, ok := strings.Cut(f.Name, "/")
		if !ok || (v != "head" && !strings.HasPrefix(v, "v")) {
			tree[f.Name] = f.Data
			continue
		}
		if _, seen := versions[v]; !seen {
			order = append(order, v)
		}
		versions[v] = append(versions[v], txtar.File{Name: rest, Data: f.Data})
	}
	sort.SliceStable(order, func(i, j int) bool { return order[j] == "head" && order[i] != "head" })
	var commits []commit
	for _, v := range order {
		maps.DeleteFunc(tree, func(name string, _ []byte) bool {
			return strings.HasPrefix(name, "api/") || strings.HasPrefix(name, "proto/")
		})
		for _, f := range versions[v] {
			tree[f.Name] = f.Data
		}
		c := commit{msg: v, files: maps.Clone(tree)}
		if v != "head" {
			c.tag = v + ".0.0"
		}
		commits = append(commits, c)
	}
	importRepo(t, top, commits)
}

// commit is one commit of a test repository: its whole tree and the tag
// that names it, if any.
type commit struct {
	msg, tag string
	files    map[string][]byte
}

// importRepo makes a repository in top whose branch main holds commits,
// oldest first, and checks out the last: three git starts (init,
// fast-import, checkout) where an add, a commit and a tag per commit took
// three each.
func importRepo(t testing.TB, top string, commits []commit) {
	t.Helper()
	git(t, top, "init", "-q", "-b", "main")
	var in bytes.Buffer
	when := time.Now().Unix() - int64(len(commits))*3600
	for i, c := range commits {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata %d\n%s\ndeleteall\n",
			i+1, when+int64(i)*3600, len(c.msg), c.msg)
		for _, name := range slices.Sorted(maps.Keys(c.files)) {
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", name, len(c.files[name]), c.files[name])
		}
		if c.tag != "" {
			fmt.Fprintf(&in, "reset refs/tags/%s\nfrom :%d\n\n", c.tag, i+1)
		}
	}
	// The imported pack is kept as it is: below fastimport.unpackLimit's
	// 100 objects git would start unpack-objects to write each object
	// again, loose, compressed anew (Stripe's spec is 6 MB a release).
	cmd := exec.Command("git", "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = top, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	git(t, top, "checkout", "-q", "-f", "main")
}

// newTop is a new directory for a repository of t's own, its path with
// symbolic links resolved, as git reports it; gitEnv is set.
func newTop(t testing.TB) string {
	t.Helper()
	gitEnv(t)
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// root holds what the package's tests share: TestMain makes it and removes
// it after them.
var root string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "timeline-test-")
	if err == nil {
		root, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	chrome.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shared is a repository and its history, page and JSON, which several
// tests read and none changes: made once, by the first test that asks. A
// history of five releases is a dozen reviews; each test making its own
// cost more than the checks themselves.
type shared struct {
	once sync.Once
	// name is its directory under root; made fills the repository in.
	name string
	made func(t testing.TB, top string)
	// args are history's, beside the page and the JSON format.
	args []string

	top, page, json string
	r               *timeline.Report
}

// get makes s on first use and returns it; a test after a failed first use
// fails too.
func (s *shared) get(t *testing.T) *shared {
	t.Helper()
	gitEnv(t)
	s.once.Do(func() {
		dir := filepath.Join(root, s.name)
		top := filepath.Join(dir, "repo")
		if err := os.MkdirAll(top, 0o755); err != nil {
			t.Fatal(err)
		}
		s.made(t, top)
		page := filepath.Join(dir, "history.html")
		out, _ := run(t, top, append([]string{"history", "--format", "json", "--html", page}, s.args...)...)
		var r timeline.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("history --format json: %v\n%s", err, out)
		}
		s.top, s.page, s.json, s.r = top, page, out, &r
	})
	if s.r == nil {
		t.Fatalf("the shared %s repository and its history failed in an earlier test", s.name)
	}
	return s
}

// fiveReleases is five-releases.txtar's repository and its history with
// the evidence read, v3 supported and links to a forge.
var fiveReleases = &shared{name: "five-releases",
	made: func(t testing.TB, top string) { buildRepo(t, top, "testdata/five-releases.txtar") },
	args: []string{"--readers", "evidence", "--supported", "v3.*", "--link-base", "https://git.example.com/shop/api/blob"}}

func write(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// today is the clock of every run: the evidence's window ends here.
var today = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// run runs contractlint in dir, in-process, and returns its standard
// output and exit code.
func run(t testing.TB, dir string, args ...string) (string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errs,
		Getenv: func(string) string { return "" }, Now: func() time.Time { return today },
		Getwd: func() (string, error) { return dir, nil }}
	code := cli.Main(args, e)
	if code > 1 {
		t.Fatalf("contractlint %s: exit %d\n%s", strings.Join(args, " "), code, errs.String())
	}
	return out.String(), code
}

// history runs `contractlint history --format json` with args.
func history(t testing.TB, dir string, args ...string) *timeline.Report {
	t.Helper()
	out, _ := run(t, dir, append([]string{"history", "--format", "json"}, args...)...)
	var r timeline.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("history --format json: %v\n%s", err, out)
	}
	return &r
}
