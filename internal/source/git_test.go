package source_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
)

// needGit skips when git is missing, except in CI, where a missing git
// must fail the run rather than hide the review path going untested.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is not installed (CI=true, so this fails instead of skipping)")
		}
		t.Skipf("git is not installed")
	}
}

// gitRepo makes an empty repository that neither the user's configuration
// nor an enclosing git process (a hook sets GIT_DIR and GIT_INDEX_FILE)
// can steer, for the code under test as much as for the helper. git runs a
// git command in it, with stdin as its input, and returns its trimmed output.
func gitRepo(t *testing.T) (top string, git func(stdin string, args ...string) string) {
	t.Helper()
	needGit(t)
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR"} {
		if _, set := os.LookupEnv(k); set {
			t.Setenv(k, "") // restores the value when the test ends
			os.Unsetenv(k)
		}
	}
	top = t.TempDir()
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	git = func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "init", "-q", "-b", "main")
	return top, git
}

func writeFile(t *testing.T, top, name, text string, perm os.FileMode) {
	t.Helper()
	p := filepath.Join(top, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	// WriteFile keeps the mode of a file that already exists.
	if err := os.Chmod(p, perm); err != nil {
		t.Fatal(err)
	}
}

var big = strings.Repeat("x", 4096)

// history builds a repository in which api/v1.yaml has a different price at
// each of HEAD~1, HEAD, the index and the working tree, and whose tree holds
// what a Git source must not follow: symbolic links (one leaving the
// repository, one staying inside) and a submodule.
func history(t *testing.T) string {
	t.Helper()
	top, git := gitRepo(t)
	writeFile(t, top, "api/v1.yaml", "price: number\n", 0o644)
	writeFile(t, top, "api/common.yaml", "common\n", 0o644)
	writeFile(t, top, "docs/read me é.md", "doc\n", 0o644)
	writeFile(t, top, "tool.sh", "#!/bin/sh\n", 0o755)
	writeFile(t, top, "big.yaml", big, 0o644)
	writeFile(t, top, "gone.yaml", "gone\n", 0o644)
	if err := os.Symlink("../outside/secret", filepath.Join(top, "link-out.yaml")); err != nil {
		t.Skipf("cannot create symbolic links here: %v", err)
	}
	if err := os.Symlink("api/v1.yaml", filepath.Join(top, "link-in.yaml")); err != nil {
		t.Fatal(err)
	}
	git("", "add", "-A")
	// A gitlink's commit need not exist in this repository.
	git("", "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,vendor/mod")
	git("", "commit", "-q", "-m", "one")
	writeFile(t, top, "api/v1.yaml", "price: integer\n", 0o644)
	git("", "add", "api/v1.yaml")
	git("", "commit", "-q", "-m", "two")
	writeFile(t, top, "api/v1.yaml", "price: string\n", 0o644)
	writeFile(t, top, "api/new.yaml", "new\n", 0o644)
	git("", "add", "api/v1.yaml", "api/new.yaml")
	git("", "rm", "-q", "--cached", "gone.yaml")
	writeFile(t, top, "api/v1.yaml", "price: boolean\n", 0o644)
	return top
}

func openRev(t *testing.T, top, rev string) *source.Git {
	t.Helper()
	g, err := source.OpenRev(top, rev)
	if err != nil {
		t.Fatalf("OpenRev(%s): %v", rev, err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func openIndex(t *testing.T, top string) *source.Git {
	t.Helper()
	g, err := source.OpenIndex(top)
	if err != nil {
		t.Fatalf("OpenIndex: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// Each snapshot answers from itself alone: the point of reading the old
// side of a review from git rather than the working tree.
func TestGitSnapshots(t *testing.T) {
	top := history(t)
	wt, err := source.OpenDir(top)
	if err != nil {
		t.Fatal(err)
	}
	missing := "<missing>"
	sources := []struct {
		src   source.Source
		label string
		want  map[string]string
	}{
		{openRev(t, top, "HEAD~1"), "HEAD~1", map[string]string{"api/v1.yaml": "price: number\n", "api/new.yaml": missing, "gone.yaml": "gone\n"}},
		{openRev(t, top, "HEAD"), "HEAD", map[string]string{"api/v1.yaml": "price: integer\n", "api/new.yaml": missing, "gone.yaml": "gone\n"}},
		{openIndex(t, top), "index", map[string]string{"api/v1.yaml": "price: string\n", "api/new.yaml": "new\n", "gone.yaml": missing}},
		{wt, "working tree", map[string]string{"api/v1.yaml": "price: boolean\n", "api/new.yaml": "new\n", "gone.yaml": "gone\n"}},
	}
	for _, s := range sources {
		t.Run(s.label, func(t *testing.T) {
			if s.src.Label() != s.label {
				t.Errorf("Label() = %q, want %q", s.src.Label(), s.label)
			}
			for name, want := range s.want {
				b, err := s.src.ReadFile(name)
				if want == missing {
					if !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("ReadFile(%s) = %q, %v; want fs.ErrNotExist", name, b, err)
					}
					continue
				}
				if err != nil || string(b) != want {
					t.Errorf("ReadFile(%s) = %q, %v; want %q", name, b, err, want)
				}
			}
			// Names git quotes by default (space, non-ASCII) read as they are.
			if b, err := s.src.ReadFile("docs/read me é.md"); err != nil || string(b) != "doc\n" {
				t.Errorf("ReadFile(docs/read me é.md) = %q, %v", b, err)
			}
		})
	}
}

func TestGitReadFileRefuses(t *testing.T) {
	top := history(t)
	// The file a link leaving the repository would reach, were it followed.
	writeFile(t, filepath.Dir(top), "outside/secret", secret, 0o644)
	for _, g := range []*source.Git{openRev(t, top, "HEAD"), openIndex(t, top)} {
		tests := []struct {
			name    string
			wantErr string
			err     errKind
		}{
			{name: "../outside/secret", err: outside},
			{name: "api/../../outside/secret", err: outside},
			{name: "/etc/passwd", err: outside},
			{name: "api/v1.yaml\x00", wantErr: "NUL byte", err: other},
			// A link is followed only inside the repository
			// (TestGitSymlinkMessage holds what the refusal should say).
			{name: "link-out.yaml", wantErr: "link-out.yaml: ", err: outside},
			{name: "vendor/mod", wantErr: "vendor/mod: not a file in " + g.Label(), err: other},
			{name: "api", wantErr: "api: is a directory in " + g.Label(), err: other},
			{name: "missing.yaml", wantErr: "missing.yaml: file does not exist in " + g.Label(), err: notExist},
		}
		for _, tt := range tests {
			t.Run(g.Label()+"/"+tt.name, func(t *testing.T) {
				for _, read := range []func() ([]byte, error){
					func() ([]byte, error) { return g.ReadFile(tt.name) },
					func() ([]byte, error) { return source.ReadFileMax(g, tt.name, 1<<20) },
				} {
					b, err := read()
					if b != nil {
						t.Errorf("read %q, want nothing", b)
					}
					checkErr(t, top, err, tt.err)
					if err != nil && !strings.Contains(err.Error(), tt.wantErr) {
						t.Errorf("error %q does not say %q", err, tt.wantErr)
					}
				}
			})
		}
	}
}

// A reader told "not a file" about a link cannot tell why a $ref or import
// failed; the refusal names the link that leads outside.
func TestGitSymlinkMessage(t *testing.T) {
	g := openRev(t, history(t), "HEAD")
	_, err := g.ReadFile("link-out.yaml")
	if want := "link-out.yaml: path leaves the repository (the symbolic link link-out.yaml in HEAD points outside it)"; err == nil || err.Error() != want {
		t.Errorf("ReadFile(link-out.yaml) = %v, want %q", err, want)
	}
}

// A link inside the repository is followed in a snapshot as the working
// tree follows it: a linked file, a linked directory, a link to a link,
// each reading the same bytes and resolving to the same name on both.
func TestGitFollowsLinksLikeWorkingTree(t *testing.T) {
	top := history(t)
	for _, l := range [][2]string{{"api", "linked-api"}, {"linked-api/v1.yaml", "chain.yaml"}, {"chain.yaml", "loop-a"}} {
		if err := os.Symlink(l[0], filepath.Join(top, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("loop-c", filepath.Join(top, "loop-b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-b", filepath.Join(top, "loop-c")); err != nil {
		t.Fatal(err)
	}
	add := exec.Command("git", "add", "linked-api", "chain.yaml", "loop-a", "loop-b", "loop-c")
	add.Dir = top
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	wt, err := source.OpenDir(top)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []source.Source{wt, openIndex(t, top)} {
		for name, want := range map[string]string{"link-in.yaml": "api/v1.yaml", "linked-api/common.yaml": "api/common.yaml",
			"chain.yaml": "api/v1.yaml", "loop-a": "api/v1.yaml"} {
			real, err := source.Resolve(src, name)
			if err != nil || real != want {
				t.Errorf("%s: Resolve(%s) = %q, %v; want %q", src.Label(), name, real, err, want)
			}
			got, err1 := src.ReadFile(name)
			b, err2 := src.ReadFile(want)
			if err1 != nil || err2 != nil || string(got) != string(b) {
				t.Errorf("%s: ReadFile(%s) = %q, %v; want %q, as %s reads", src.Label(), name, got, err1, b, want)
			}
		}
		if _, err := source.Resolve(src, "loop-b"); err == nil {
			t.Errorf("%s: a cycle of links resolved", src.Label())
		}
		if _, err := source.Resolve(src, "link-out.yaml"); !errors.Is(err, source.ErrOutside) {
			t.Errorf("%s: Resolve(link-out.yaml) = %v, want ErrOutside", src.Label(), err)
		}
	}
}

func TestGitHas(t *testing.T) {
	g := openRev(t, history(t), "HEAD")
	for name, want := range map[string]bool{
		"api/v1.yaml":   true,
		"tool.sh":       true,
		"api":           false,
		"link-in.yaml":  false,
		"vendor/mod":    false,
		"missing.yaml":  false,
		"./api/v1.yaml": false, // Has takes names as git lists them
	} {
		if got := g.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestGitStat(t *testing.T) {
	top := history(t)
	g := openRev(t, top, "HEAD")
	tests := []struct {
		name string
		mode fs.FileMode
		size int64
		base string
		err  errKind
	}{
		{name: ".", mode: fs.ModeDir | 0o755, base: "."},
		{name: "api", mode: fs.ModeDir | 0o755, base: "api"},
		{name: "api/", mode: fs.ModeDir | 0o755, base: "api"},
		{name: "api/v1.yaml", mode: 0o644, size: int64(len("price: integer\n")), base: "v1.yaml"},
		{name: "big.yaml", mode: 0o644, size: int64(len(big)), base: "big.yaml"},
		{name: "tool.sh", mode: 0o755, size: int64(len("#!/bin/sh\n")), base: "tool.sh"},
		// A link is followed inside the repository, refused out of it.
		{name: "link-in.yaml", mode: 0o644, size: int64(len("price: integer\n")), base: "v1.yaml"},
		{name: "link-out.yaml", err: outside},
		// A submodule is irregular, so walks skip it.
		{name: "vendor/mod", mode: fs.ModeIrregular, base: "mod"},
		{name: "missing", err: notExist},
		{name: "../x", err: outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fi, err := g.Stat(tt.name)
			checkErr(t, top, err, tt.err)
			if err != nil {
				return
			}
			got := fmt.Sprintf("%s %v %d dir=%v", fi.Name(), fi.Mode(), fi.Size(), fi.IsDir())
			want := fmt.Sprintf("%s %v %d dir=%v", tt.base, tt.mode, tt.size, tt.mode.IsDir())
			if got != want {
				t.Errorf("Stat(%q) = %s, want %s", tt.name, got, want)
			}
			if !fi.ModTime().IsZero() || fi.Sys() != nil {
				t.Errorf("Stat(%q) ModTime, Sys = %v, %v; want zero, nil", tt.name, fi.ModTime(), fi.Sys())
			}
		})
	}
}

func TestGitReadDir(t *testing.T) {
	top := history(t)
	tests := []struct {
		rev  string // "" for the index
		name string
		want []string // name, with "/" for a directory, "@" for a link, "?" for irregular
		err  errKind
	}{
		{rev: "HEAD", name: ".", want: []string{"api/", "big.yaml", "docs/", "gone.yaml", "link-in.yaml@", "link-out.yaml@", "tool.sh", "vendor/"}},
		{rev: "HEAD", name: "", want: []string{"api/", "big.yaml", "docs/", "gone.yaml", "link-in.yaml@", "link-out.yaml@", "tool.sh", "vendor/"}},
		{rev: "HEAD", name: "api", want: []string{"common.yaml", "v1.yaml"}},
		{rev: "HEAD", name: "vendor", want: []string{"mod?"}},
		{name: "api", want: []string{"common.yaml", "new.yaml", "v1.yaml"}},
		{name: ".", want: []string{"api/", "big.yaml", "docs/", "link-in.yaml@", "link-out.yaml@", "tool.sh", "vendor/"}},
		{rev: source.EmptyTree, name: "."},
		{rev: "HEAD", name: "missing", err: notExist},
		// A file is not a directory; the snapshot has no directory by that name.
		{rev: "HEAD", name: "big.yaml", err: notExist},
		{rev: "HEAD", name: "..", err: outside},
		{rev: "HEAD", name: "api/../..", err: outside},
	}
	for _, tt := range tests {
		label := tt.rev
		if label == "" {
			label = "index"
		}
		t.Run(label+"/"+tt.name, func(t *testing.T) {
			var g *source.Git
			if tt.rev == "" {
				g = openIndex(t, top)
			} else {
				g = openRev(t, top, tt.rev)
			}
			ents, err := g.ReadDir(tt.name)
			checkErr(t, top, err, tt.err)
			if diff := cmp.Diff(tt.want, entryNames(ents)); diff != "" {
				t.Errorf("ReadDir(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

// Git learns a blob's size before its content, so a blob past the limit is
// skipped in the cat-file stream; the reads after it must stay in step.
func TestGitReadFileMax(t *testing.T) {
	g := openRev(t, history(t), "HEAD")
	steps := []struct {
		name     string
		max      int64
		want     string
		tooLarge int64
	}{
		{name: "big.yaml", max: 100, tooLarge: int64(len(big))},
		{name: "api/v1.yaml", max: 100, want: "price: integer\n"},
		{name: "big.yaml", max: int64(len(big)), want: big},
		// Now cached: the limit still holds, and names the file, not the blob.
		{name: "big.yaml", max: int64(len(big)) - 1, tooLarge: int64(len(big))},
		{name: "./api/common.yaml", max: 7, want: "common\n"},
		{name: "./api/common.yaml", max: 6, tooLarge: 7},
		{name: "tool.sh", max: 100, want: "#!/bin/sh\n"},
	}
	for i, s := range steps {
		b, err := source.ReadFileMax(g, s.name, s.max)
		if s.tooLarge == 0 && (err != nil || string(b) != s.want) {
			t.Errorf("step %d: ReadFileMax(%s, %d) = %.20q, %v; want %.20q", i, s.name, s.max, b, err, s.want)
		}
		if s.tooLarge != 0 && b != nil {
			t.Errorf("step %d: ReadFileMax(%s, %d) returned %d bytes, want none", i, s.name, s.max, len(b))
		}
		checkTooLarge(t, err, s.name, s.tooLarge)
	}
}

// One cat-file process serves every reader; the mutex must keep each
// request paired with its own answer.
func TestGitConcurrentReads(t *testing.T) {
	g := openRev(t, history(t), "HEAD")
	want := map[string]string{
		"api/v1.yaml":       "price: integer\n",
		"api/common.yaml":   "common\n",
		"docs/read me é.md": "doc\n",
		"tool.sh":           "#!/bin/sh\n",
		"big.yaml":          big,
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(want))
	for range 8 {
		for name, text := range want {
			wg.Go(func() {
				b, err := g.ReadFile(name)
				if err != nil || string(b) != text {
					errs <- fmt.Errorf("ReadFile(%s) = %.20q, %v; want %.20q", name, b, err, text)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestGitClose(t *testing.T) {
	top := history(t)
	g, err := source.OpenRev(top, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close before any read = %v, want nil", err)
	}
	if _, err := g.ReadFile("api/v1.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close after a read = %v, want nil", err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	// A read after Close starts cat-file again rather than failing.
	if b, err := g.ReadFile("api/common.yaml"); err != nil || string(b) != "common\n" {
		t.Errorf("ReadFile after Close = %q, %v", b, err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close after reopening = %v, want nil", err)
	}
}

// Only stage 0 is a snapshot: during a conflict the file has no staged
// version to compare, rather than one of its sides picked silently.
func TestOpenIndexSkipsConflictStages(t *testing.T) {
	top, git := gitRepo(t)
	writeFile(t, top, "ok.yaml", "ok\n", 0o644)
	git("", "add", "ok.yaml")
	oid := git("", "hash-object", "-w", "ok.yaml")
	var info strings.Builder
	for stage := 1; stage <= 3; stage++ {
		fmt.Fprintf(&info, "100644 %s %d\tconflict.yaml\n", oid, stage)
	}
	git(info.String(), "update-index", "--index-info")
	if ls := git("", "ls-files", "-s", "conflict.yaml"); strings.Count(ls, "\n") != 2 {
		t.Fatalf("the index does not hold three stages of conflict.yaml:\n%s", ls)
	}
	g := openIndex(t, top)
	if _, err := g.ReadFile("conflict.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(conflict.yaml) = %v, want fs.ErrNotExist", err)
	}
	if b, err := g.ReadFile("ok.yaml"); err != nil || string(b) != "ok\n" {
		t.Errorf("ReadFile(ok.yaml) = %q, %v", b, err)
	}
}

func TestOpenRevErrors(t *testing.T) {
	top := history(t)
	// A revision is passed to git as an argument; one that reads as an
	// option could make git write a file or run a command.
	planted := filepath.Join(t.TempDir(), "planted")
	for _, rev := range []string{"-", "--output=" + planted, "-h"} {
		if _, err := source.OpenRev(top, rev); err == nil || !strings.Contains(err.Error(), "is not a revision") {
			t.Errorf("OpenRev(%q) = %v, want \"is not a revision\"", rev, err)
		}
	}
	if _, err := os.Lstat(planted); err == nil {
		t.Errorf("OpenRev wrote the file an option named")
	}
	if _, err := source.OpenRev(top, "no-such-rev"); err == nil || !strings.HasPrefix(err.Error(), "git ls-tree: ") {
		t.Errorf("OpenRev(no-such-rev) = %v, want a git ls-tree error", err)
	}
	notRepo := t.TempDir()
	if _, err := source.OpenRev(notRepo, "HEAD"); err == nil {
		t.Errorf("OpenRev outside a repository succeeded")
	}
	if _, err := source.OpenIndex(notRepo); err == nil || !strings.HasPrefix(err.Error(), "git ls-files: ") {
		t.Errorf("OpenIndex outside a repository = %v, want a git ls-files error", err)
	}
}

// EmptyTree is the base of a first commit; it must name a real, empty tree.
func TestEmptyTree(t *testing.T) {
	top, git := gitRepo(t)
	if got := git("", "hash-object", "-t", "tree", os.DevNull); got != source.EmptyTree {
		t.Fatalf("git's empty tree is %s, EmptyTree is %s", got, source.EmptyTree)
	}
	g := openRev(t, top, source.EmptyTree)
	if _, err := g.ReadFile("a.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile in the empty tree = %v, want fs.ErrNotExist", err)
	}
}

func TestRunGit(t *testing.T) {
	top, git := gitRepo(t)
	writeFile(t, top, "ü.yaml", "x\n", 0o644)
	git("", "add", ".")
	// core.quotepath=off: a non-ASCII name comes back as it is, not "\303\274".
	out, err := source.RunGit(top, "ls-files")
	if err != nil || string(out) != "ü.yaml\n" {
		t.Errorf("RunGit(ls-files) = %q, %v; want %q", out, err, "ü.yaml\n")
	}
	_, err = source.RunGit(top, "cat-file", "-p", "no-such-object")
	if err == nil || !strings.HasPrefix(err.Error(), "git cat-file: ") || strings.TrimSpace(err.Error()) != err.Error() {
		t.Errorf("RunGit error = %q, want \"git cat-file: \" and git's trimmed message", err)
	}
}

// RunGit is exported; a call without a subcommand must fail, not panic.
func TestRunGitNoArgs(t *testing.T) {
	top, _ := gitRepo(t)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("RunGit(top) panicked: %v", r)
		}
	}()
	if _, err := source.RunGit(top); err == nil {
		t.Errorf("RunGit(top) with no subcommand succeeded")
	}
}

func TestSplitZ(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\x00", nil},
		{"\x00\x00", nil},
		{"a", []string{"a"}},
		{"a\x00", []string{"a"}},
		{"a\x00b\x00", []string{"a", "b"}},
		{"\x00a\x00\x00b", []string{"a", "b"}},
		// -z exists so that names may hold tabs, newlines and spaces.
		{"100644 blob 0a\tx y\nz\x00", []string{"100644 blob 0a\tx y\nz"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, source.SplitZ([]byte(tt.in))); diff != "" {
			t.Errorf("SplitZ(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
