package source_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
)

// Every Source relies on Clean to keep a name inside the root before anything
// is opened, so a name it accepts must be one os.Root and fs.FS accept too.
func TestClean(t *testing.T) {
	tests := []struct {
		name    string
		want    string
		wantErr string // substring of the error; "" for success
		outside bool   // the error must wrap ErrOutside
	}{
		{name: "a.yaml", want: "a.yaml"},
		{name: "./dir//b.proto", want: "dir/b.proto"},
		{name: "dir/./sub/", want: "dir/sub"},
		{name: "dir/../b.yaml", want: "b.yaml"},
		{name: "a/..", want: "."},
		{name: ".", want: "."},
		{name: "", want: "."},
		// Dots that do not form a whole ".." element name ordinary files.
		{name: "...", want: "..."},
		{name: "..yaml", want: "..yaml"},
		{name: "a/..b/c", want: "a/..b/c"},

		{name: "/etc/passwd", wantErr: "absolute path", outside: true},
		{name: "//host/share", wantErr: "absolute path", outside: true},
		{name: "/", wantErr: "absolute path", outside: true},
		{name: "..", wantErr: "leaves the repository", outside: true},
		{name: "../x", wantErr: "leaves the repository", outside: true},
		{name: "./../x", wantErr: "leaves the repository", outside: true},
		{name: "a/../../x", wantErr: "leaves the repository", outside: true},
		{name: "a/b/../../../x", wantErr: "leaves the repository", outside: true},
		{name: "a/../..", wantErr: "leaves the repository", outside: true},
		// A NUL would truncate the name at the system call.
		{name: "a.yaml\x00../../etc/passwd", wantErr: "NUL byte"},
		{name: "\x00", wantErr: "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.name), func(t *testing.T) {
			got, err := source.Clean(tt.name)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Clean(%q) = %v, want %q", tt.name, err, tt.want)
				}
				if got != tt.want {
					t.Errorf("Clean(%q) = %q, want %q", tt.name, got, tt.want)
				}
				if !fs.ValidPath(got) {
					t.Errorf("Clean(%q) = %q, which fs.ValidPath refuses", tt.name, got)
				}
				return
			}
			if err == nil {
				t.Fatalf("Clean(%q) = %q, want an error", tt.name, got)
			}
			if got != "" {
				t.Errorf("Clean(%q) returned %q with its error, want \"\"", tt.name, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Clean(%q) error %q does not say %q", tt.name, err, tt.wantErr)
			}
			if tt.outside && !errors.Is(err, source.ErrOutside) {
				t.Errorf("Clean(%q) error %v does not wrap ErrOutside", tt.name, err)
			}
		})
	}
}

// FuzzClean holds the invariant every Source depends on: whatever Clean
// accepts stays below the root.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a", "../a", "a/../../b", "/a", "a\x00", "./.", "a//b/../..", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c, err := source.Clean(name)
		if err != nil {
			return
		}
		if !fs.ValidPath(c) {
			t.Fatalf("Clean(%q) = %q, not a valid fs path", name, c)
		}
		if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) || strings.ContainsRune(c, 0) {
			t.Fatalf("Clean(%q) = %q, which leaves the root", name, c)
		}
	})
}

// tree lays out a root with links that stay inside and links that leave it,
// beside an outside directory holding a secret no read may return.
//
//	base/outside/secret
//	base/root/a.yaml, sub/b.proto, sub/up -> ../a.yaml, link-in -> sub/b.proto,
//	link-dir -> sub, link-out -> ../outside/secret, link-dir-out -> ../outside,
//	link-abs -> base/root/a.yaml, link-parent -> .., dangling -> nothere,
//	chain -> sub/hop, sub/hop -> ../../outside/secret
func tree(t *testing.T) (base, root string) {
	t.Helper()
	base = t.TempDir()
	root = filepath.Join(base, "root")
	files := map[string]string{
		"outside/secret":   secret,
		"root/a.yaml":      "A",
		"root/sub/b.proto": "BB",
	}
	for name, text := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"sub/up":       "../a.yaml",
		"link-in":      "sub/b.proto",
		"link-dir":     "sub",
		"link-out":     "../outside/secret",
		"link-dir-out": "../outside",
		"link-abs":     filepath.Join(root, "a.yaml"),
		"link-parent":  "..",
		"dangling":     "nothere",
		"chain":        "sub/hop",
		"sub/hop":      "../../outside/secret",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Skipf("cannot create symbolic links here: %v", err)
		}
	}
	return base, root
}

const secret = "SECRET"

func openTree(t *testing.T) (base string, d *source.Dir) {
	t.Helper()
	base, root := tree(t)
	d, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	return base, d
}

type errKind int

const (
	ok errKind = iota
	outside
	notExist
	other
)

// checkErr asserts the class of err and that its message neither leaks
// the machine path (messages name files relative to the root) nor the
// outside file's bytes.
func checkErr(t *testing.T, base string, err error, want errKind) {
	t.Helper()
	switch want {
	case ok:
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	case outside:
		if !errors.Is(err, source.ErrOutside) {
			t.Errorf("error %v, want one wrapping ErrOutside", err)
		}
	case notExist:
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v, want one wrapping fs.ErrNotExist", err)
		}
	case other:
		if err == nil {
			t.Errorf("no error, want one")
		}
		if errors.Is(err, source.ErrOutside) || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v, want neither ErrOutside nor ErrNotExist", err)
		}
	}
	if err != nil && (strings.Contains(err.Error(), base) || strings.Contains(err.Error(), secret)) {
		t.Errorf("error %q leaks the machine path or the outside file", err)
	}
}

func TestDirReadFile(t *testing.T) {
	base, d := openTree(t)
	tests := []struct {
		name string
		want string
		err  errKind
	}{
		{name: "a.yaml", want: "A"},
		{name: "sub/b.proto", want: "BB"},
		{name: "./sub/../a.yaml", want: "A"},
		// os.Root follows a relative link whose target stays inside the root,
		// even one that climbs with .. to get there.
		{name: "link-in", want: "BB"},
		{name: "sub/up", want: "A"},
		{name: "link-dir/b.proto", want: "BB"},

		{name: "../outside/secret", err: outside},
		{name: "sub/../../outside/secret", err: outside},
		{name: "/etc/passwd", err: outside},
		{name: "link-out", err: outside},
		{name: "link-dir-out/secret", err: outside},
		{name: "link-parent/outside/secret", err: outside},
		{name: "chain", err: outside},
		// os.Root refuses every absolute link target, even one that names
		// a file inside the root.
		{name: "link-abs", err: outside},

		{name: "missing.yaml", err: notExist},
		{name: "dangling", err: notExist},
		{name: "sub", err: other},
		{name: "a.yaml\x00", err: other},
	}
	// The second pass reads through the directories the first opened
	// (subroot.go), all at once: the answers must not change.
	for pass := range 2 {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%d/%q", pass, tt.name), func(t *testing.T) {
				if pass == 1 {
					t.Parallel()
				}
				b, err := d.ReadFile(tt.name)
				checkErr(t, base, err, tt.err)
				if string(b) != tt.want {
					t.Errorf("ReadFile(%q) = %q, want %q", tt.name, b, tt.want)
				}
			})
		}
	}
}

func TestDirStat(t *testing.T) {
	base, d := openTree(t)
	tests := []struct {
		name  string
		isDir bool
		size  int64
		err   errKind
	}{
		{name: ".", isDir: true},
		{name: "sub", isDir: true},
		{name: "a.yaml", size: 1},
		// Stat follows links, as ReadFile does.
		{name: "link-in", size: 2},
		{name: "link-dir", isDir: true},
		{name: "link-out", err: outside},
		{name: "link-dir-out", err: outside},
		{name: "../outside", err: outside},
		{name: "missing", err: notExist},
		{name: "dangling", err: notExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fi, err := d.Stat(tt.name)
			checkErr(t, base, err, tt.err)
			if err != nil {
				return
			}
			if fi.IsDir() != tt.isDir {
				t.Errorf("Stat(%q).IsDir() = %v, want %v", tt.name, fi.IsDir(), tt.isDir)
			}
			if !tt.isDir && fi.Size() != tt.size {
				t.Errorf("Stat(%q).Size() = %d, want %d", tt.name, fi.Size(), tt.size)
			}
		})
	}
}

func TestDirReadDir(t *testing.T) {
	base, d := openTree(t)
	tests := []struct {
		name string
		want []string // name, with "/" for a directory and "@" for a link
		err  errKind
	}{
		// Listing does not follow links: each shows as a link, wherever it points.
		{name: ".", want: []string{"a.yaml", "chain@", "dangling@", "link-abs@", "link-dir@", "link-dir-out@", "link-in@", "link-out@", "link-parent@", "sub/"}},
		{name: "sub", want: []string{"b.proto", "hop@", "up@"}},
		{name: "link-dir", want: []string{"b.proto", "hop@", "up@"}},
		{name: "link-dir-out", err: outside},
		{name: "link-parent", err: outside},
		{name: "..", err: outside},
		{name: "missing", err: notExist},
		{name: "a.yaml", err: other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ents, err := d.ReadDir(tt.name)
			checkErr(t, base, err, tt.err)
			if diff := cmp.Diff(tt.want, entryNames(ents)); diff != "" {
				t.Errorf("ReadDir(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestOpenDir(t *testing.T) {
	_, root := tree(t)
	d, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if d.Path() != root || d.Label() != "working tree" {
		t.Errorf("Path, Label = %q, %q; want %q, %q", d.Path(), d.Label(), root, "working tree")
	}
	if _, err := source.OpenDir(filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenDir(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := source.OpenDir(filepath.Join(root, "a.yaml")); err == nil {
		t.Errorf("OpenDir(a file) succeeded, want an error")
	}
}

// fifo makes a named pipe in the root: opening it for reading would block
// until a writer came, so a Source must refuse it before it opens it.
func fifo(t *testing.T, root, name string) {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(root, name), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
}

func TestDirReadFileMax(t *testing.T) {
	base, root := tree(t)
	fifo(t, root, "pipe.yaml")
	if err := os.Symlink("pipe.yaml", filepath.Join(root, "link-pipe")); err != nil {
		t.Fatal(err)
	}
	d, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		max      int64
		want     string
		err      errKind
		tooLarge int64 // the size a *TooLargeError must report; 0 for none
		notReg   bool
	}{
		{name: "sub/b.proto", max: 2, want: "BB"},
		{name: "sub/b.proto", max: 100, want: "BB"},
		{name: "link-in", max: 2, want: "BB"},
		{name: "sub/b.proto", max: 1, err: other, tooLarge: 2},
		{name: "a.yaml", max: 0, err: other, tooLarge: 1},
		{name: "pipe.yaml", max: 100, err: other, notReg: true},
		{name: "link-pipe", max: 100, err: other, notReg: true},
		{name: "sub", max: 100, err: other},
		{name: "link-out", max: 100, err: outside},
		{name: "../outside/secret", max: 100, err: outside},
		{name: "missing", max: 100, err: notExist},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/max=%d", tt.name, tt.max), func(t *testing.T) {
			type result struct {
				b   []byte
				err error
			}
			done := make(chan result, 1)
			go func() {
				// Through the package function, as the limits guard calls it.
				b, err := source.ReadFileMax(d, tt.name, tt.max)
				done <- result{b, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFileMax(%q) blocked", tt.name)
			}
			checkErr(t, base, r.err, tt.err)
			if string(r.b) != tt.want {
				t.Errorf("ReadFileMax(%q, %d) = %q, want %q", tt.name, tt.max, r.b, tt.want)
			}
			if got := errors.Is(r.err, source.ErrNotRegular); got != tt.notReg {
				t.Errorf("ReadFileMax(%q) error %v: errors.Is ErrNotRegular = %v, want %v", tt.name, r.err, got, tt.notReg)
			}
			checkTooLarge(t, r.err, tt.name, tt.tooLarge)
		})
	}
}

// TestDirReadFileFIFO: the unlimited ReadFile refuses a FIFO too, directly
// or through a link, instead of waiting for a writer that never comes.
func TestDirReadFileFIFO(t *testing.T) {
	_, root := tree(t)
	fifo(t, root, "pipe.yaml")
	if err := os.Symlink("pipe.yaml", filepath.Join(root, "link-pipe")); err != nil {
		t.Fatal(err)
	}
	d, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pipe.yaml", "link-pipe"} {
		done := make(chan error, 1)
		go func() {
			_, err := d.ReadFile(name)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, source.ErrNotRegular) {
				t.Errorf("ReadFile(%q) = %v, want ErrNotRegular", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%q) blocked on a FIFO", name)
		}
	}
}

// checkTooLarge asserts err is (or, for size 0, is not) a *TooLargeError
// naming the file as it was asked for, with its size.
func checkTooLarge(t *testing.T, err error, name string, size int64) {
	t.Helper()
	var tl *source.TooLargeError
	if !errors.As(err, &tl) {
		if size != 0 {
			t.Errorf("error %v, want a *TooLargeError", err)
		}
		return
	}
	if size == 0 {
		t.Errorf("unexpected *TooLargeError %v", err)
		return
	}
	if !errors.Is(err, source.ErrTooLarge) {
		t.Errorf("error %v does not wrap ErrTooLarge", err)
	}
	if diff := cmp.Diff(source.TooLargeError{Name: name, Size: size}, *tl); diff != "" {
		t.Errorf("TooLargeError (-want +got):\n%s", diff)
	}
	if want := fmt.Sprintf("%s: file too large (%d bytes)", name, size); err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// A Source without its own ReadFileMax is read whole and then measured.
func TestReadFileMaxFallback(t *testing.T) {
	src := source.FS{FS: fstest.MapFS{"a.yaml": {Data: []byte("12345")}}, Name: "mem"}
	if b, err := source.ReadFileMax(src, "a.yaml", 5); err != nil || string(b) != "12345" {
		t.Errorf("ReadFileMax at the limit = %q, %v; want the file", b, err)
	}
	b, err := source.ReadFileMax(src, "a.yaml", 4)
	if b != nil {
		t.Errorf("ReadFileMax past the limit returned %q, want nil", b)
	}
	checkTooLarge(t, err, "a.yaml", 5)
	if _, err := source.ReadFileMax(src, "../a.yaml", 100); !errors.Is(err, source.ErrOutside) {
		t.Errorf("ReadFileMax(../a.yaml) = %v, want ErrOutside", err)
	}
}

// FS must refuse what Dir and Git refuse, even though an fs.FS would
// refuse most of it on its own, so that fuzzing over memory covers the
// same names as a real run.
func TestFS(t *testing.T) {
	src := source.FS{FS: fstest.MapFS{
		"a.yaml":      {Data: []byte("A")},
		"dir/b.proto": {Data: []byte("BB")},
	}, Name: "mem"}
	if src.Label() != "mem" {
		t.Errorf("Label() = %q, want mem", src.Label())
	}
	for _, name := range []string{"../a.yaml", "/a.yaml", "dir/../../a.yaml"} {
		if _, err := src.ReadFile(name); !errors.Is(err, source.ErrOutside) {
			t.Errorf("ReadFile(%q) = %v, want ErrOutside", name, err)
		}
		if _, err := src.Stat(name); !errors.Is(err, source.ErrOutside) {
			t.Errorf("Stat(%q) = %v, want ErrOutside", name, err)
		}
		if _, err := src.ReadDir(name); !errors.Is(err, source.ErrOutside) {
			t.Errorf("ReadDir(%q) = %v, want ErrOutside", name, err)
		}
	}
	// fs.FS itself refuses these unclean names; Clean makes them readable.
	if b, err := src.ReadFile("./dir//../a.yaml"); err != nil || string(b) != "A" {
		t.Errorf("ReadFile(./dir//../a.yaml) = %q, %v; want A", b, err)
	}
	if fi, err := src.Stat("dir/"); err != nil || !fi.IsDir() {
		t.Errorf("Stat(dir/) = %v, %v; want a directory", fi, err)
	}
	ents, err := src.ReadDir("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"a.yaml", "dir"}, names); diff != "" {
		t.Errorf("ReadDir(\"\") (-want +got):\n%s", diff)
	}
	if _, err := src.ReadFile("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want fs.ErrNotExist", err)
	}
}

// mkdirs creates each directory (trailing "/") or empty file under base.
func mkdirs(t *testing.T, base string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(base, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRoot(t *testing.T) {
	base := t.TempDir()
	mkdirs(t, base,
		"repo/.git/", "repo/api/v1/x.yaml",
		"outer/.git/", "outer/inner/.git/", "outer/inner/a.proto",
		// A linked work tree or a submodule has a .git file, not a directory.
		"wt/.git", "wt/api/x.yaml",
	)
	j := func(p string) string { return filepath.Join(base, filepath.FromSlash(p)) }
	tests := []struct {
		file, want string
	}{
		{file: "repo/api/v1/x.yaml", want: "repo"},
		{file: "repo/api", want: "repo"},
		{file: "repo", want: "repo"},
		// A file not yet written still has a directory to start from.
		{file: "repo/api/v1/missing.yaml", want: "repo"},
		{file: "outer/inner/a.proto", want: "outer/inner"},
		{file: "wt/api/x.yaml", want: "wt"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := source.Root(j(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got != j(tt.want) {
				t.Errorf("Root(%s) = %s, want %s", tt.file, got, j(tt.want))
			}
		})
	}
}

// Outside any repository the root is the file's own directory, or the
// directory itself when given one.
func TestRootOutsideRepository(t *testing.T) {
	base := t.TempDir()
	for d := base; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("the temporary directory is inside a repository at %s", d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	mkdirs(t, base, "plain/sub/x.yaml")
	for file, want := range map[string]string{
		"plain/sub/x.yaml":       "plain/sub",
		"plain/sub":              "plain/sub",
		"plain/sub/missing.yaml": "plain/sub",
	} {
		got, err := source.Root(filepath.Join(base, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		if w := filepath.Join(base, filepath.FromSlash(want)); got != w {
			t.Errorf("Root(%s) = %s, want %s", file, got, w)
		}
	}
}

// A relative argument, as typed on the command line, resolves from the
// working directory.
func TestRootRelative(t *testing.T) {
	base := t.TempDir()
	mkdirs(t, base, "repo/.git/", "repo/api/x.yaml")
	t.Chdir(filepath.Join(base, "repo", "api"))
	got, err := source.Root("x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(filepath.Join(base, "repo"))
	if err != nil {
		t.Fatal(err)
	}
	if g, err := filepath.EvalSymlinks(got); err != nil || g != want {
		t.Errorf("Root(x.yaml) = %s, want %s", got, want)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    source.Problem
		want string
	}{
		{source.Problem{File: "api.yaml", Line: 3, Column: 7, Msg: "bad"}, "api.yaml:3:7: bad"},
		{source.Problem{File: "api.yaml", Line: 3, Msg: "bad"}, "api.yaml:3: bad"},
		{source.Problem{File: "api.yaml", Msg: "bad"}, "api.yaml: bad"},
		// A column without a line cannot be placed, so neither is shown.
		{source.Problem{File: "api.yaml", Column: 7, Msg: "bad"}, "api.yaml: bad"},
		{source.Problem{Line: 3, Column: 7, Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestProblemsError(t *testing.T) {
	ps := source.Problems{
		{File: "b.yaml", Line: 1, Msg: "z"},
		{File: "a.yaml", Line: 10, Column: 1, Msg: "y"},
		{File: "a.yaml", Line: 2, Column: 5, Msg: "x"},
		{File: "a.yaml", Line: 2, Column: 5, Msg: "w"},
		{File: "a.yaml", Line: 2, Column: 1, Msg: "v"},
	}
	// Sorted by file, then line and column numerically, then message.
	want := strings.Join([]string{
		"a.yaml:2:1: v",
		"a.yaml:2:5: w",
		"a.yaml:2:5: x",
		"a.yaml:10:1: y",
		"b.yaml:1: z",
	}, "\n")
	if got := ps.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
	if got := (source.Problems{}).Error(); got != "" {
		t.Errorf("empty Problems Error() = %q, want \"\"", got)
	}
}

func TestErrorf(t *testing.T) {
	err := source.Errorf("api.yaml", 4, 2, "field %q: %d levels", "price", 3)
	want := source.Problems{{File: "api.yaml", Line: 4, Column: 2, Msg: `field "price": 3 levels`}}
	if diff := cmp.Diff(want, err); diff != "" {
		t.Errorf("Errorf (-want +got):\n%s", diff)
	}
	if got := err.Error(); got != `api.yaml:4:2: field "price": 3 levels` {
		t.Errorf("Error() = %q", got)
	}
}

func TestNamed(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain error", errors.New("boom"), false},
		{"empty Problems", source.Problems{}, false},
		{"one named", source.Errorf("a.yaml", 1, 1, "bad"), true},
		{"named without a line", source.Errorf("a.yaml", 0, 0, "bad"), true},
		{"wrapped", fmt.Errorf("loading: %w", source.Errorf("a.yaml", 1, 1, "bad")), true},
		{"one unnamed", source.Problems{{File: "a.yaml", Msg: "x"}, {Msg: "y"}}, false},
		{"ErrOutside", fmt.Errorf("x: %w", source.ErrOutside), false},
	}
	for _, tt := range tests {
		if got := source.Named(tt.err); got != tt.want {
			t.Errorf("%s: Named(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// explain recognises os.Root's escape by the text of its message, and that
// text includes the name asked for, so a missing file whose name happens to
// hold the phrase must still be reported as missing, not as an escape.
func TestDirMissingFileNamedLikeAnEscape(t *testing.T) {
	base, d := openTree(t)
	for _, name := range []string{"path escapes from parent.yaml", "sub/path escapes.proto"} {
		_, err := d.ReadFile(name)
		checkErr(t, base, err, notExist)
		if errors.Is(err, source.ErrOutside) {
			t.Errorf("ReadFile(%q) = %v: a missing file reported as leaving the repository", name, err)
		}
	}
}

// entryNames lists a directory as ls -F would: a link ends in @, a
// directory in /, anything irregular (a submodule) in ?.
func entryNames(ents []fs.DirEntry) []string {
	var out []string
	for _, e := range ents {
		n := e.Name()
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			n += "@"
		case e.IsDir():
			n += "/"
		case e.Type()&fs.ModeIrregular != 0:
			n += "?"
		}
		out = append(out, n)
	}
	return out
}
