package review

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
)

// TestCommitSourceIsCatFile: what a version's imports are read through
// (another commit's files, links followed) answers as `git cat-file
// --batch-command --follow-symlinks` does for every name, found or not: a
// link to a file or a directory, a chain of links, a link through .., one
// out of the repository (absolute or by ..), one that dangles, a loop,
// a path through a file, a link ending in /, and two commits whose trees
// share most of their directories.
func TestCommitSourceIsCatFile(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a/x.proto", "syntax = \"proto3\";\n")
	r.write("a/b/y.proto", "syntax = \"proto3\"; // y\n")
	r.write("c/buf.yaml", "version: v1\n")
	r.write("exec.proto", "x")
	for _, l := range [][2]string{ // target, link
		{"a", "la"}, {"a/b/y.proto", "ly.proto"}, {"la", "lla"}, {"../a/x.proto", "c/up.proto"},
		{"../../a", "c/out"}, {"/etc/passwd", "abs.proto"}, {"nowhere.proto", "dangling.proto"},
		{"loop2", "loop1"}, {"loop1", "loop2"}, {"a/", "slash"}, {"a/b/..", "dotdot"}, {"./a", "dot"},
		{"c/up.proto", "chain.proto"},
	} {
		symlink(t, r, l[0], l[1])
	}
	first := r.commit("first")
	r.write("a/x.proto", "syntax = \"proto2\";\n")
	r.write("d/z.proto", "z")
	second := r.commit("second")

	names := []string{
		"a/x.proto", "a/b/y.proto", "a", "a/b", "c/buf.yaml", "exec.proto", "la/x.proto", "la/b/y.proto",
		"la", "ly.proto", "lla/b/y.proto", "c/up.proto", "c/out/x.proto", "abs.proto", "dangling.proto",
		"loop1", "loop1/x", "a/x.proto/y", "slash/x.proto", "slash", "dotdot/x.proto", "dotdot", "dot/x.proto",
		"chain.proto", "missing.proto", "a/missing/x.proto", "d/z.proto", "la/missing.proto",
	}
	cat, err := source.StartCat(r.top, "--batch-command", "--follow-symlinks")
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	c := &commits{top: r.top}
	defer c.close()
	for _, rev := range []string{first, second, first} {
		src := commitSource{c: c, rev: rev}
		for _, name := range names {
			want := catAnswer(t, cat, rev+":"+name)
			got := sourceAnswer(src, name)
			if got != want {
				t.Errorf("%s:%s: commitSource says %q, cat-file %q", rev[:7], name, got, want)
			}
		}
	}
}

// catAnswer is what cat-file says of obj: its id, kind and content (a
// blob's), or "none".
func catAnswer(t *testing.T, cat *source.Cat, obj string) string {
	t.Helper()
	header, err := cat.Ask("info " + obj)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] != "missing" {
		if _, err := cat.Out.Discard(atoi(t, f[1]) + 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(f) != 3 {
		return "none"
	}
	if f[1] != "blob" {
		return f[0] + " " + f[1]
	}
	out := f[0] + " " + f[1] + " " + f[2]
	{
		if _, err := cat.Ask("contents " + obj); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, atoi(t, f[2])+1)
		if _, err := io.ReadFull(cat.Out, b); err != nil {
			t.Fatal(err)
		}
		out += " " + string(b[:len(b)-1])
	}
	return out
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sourceAnswer is the same read through src: Stat, blobID and ReadFile.
func sourceAnswer(src commitSource, name string) string {
	fi, err := src.Stat(name)
	if err != nil {
		if !strings.Contains(err.Error(), fs.ErrNotExist.Error()) {
			return "error " + err.Error()
		}
		return "none"
	}
	if fi.IsDir() {
		id, _, _, _ := src.c.object(src.rev, name, false)
		return id + " tree"
	}
	id, err := src.blobID(name)
	if err != nil {
		return "error " + err.Error()
	}
	b, err := src.ReadFile(name)
	if err != nil {
		return "error " + err.Error()
	}
	return fmt.Sprintf("%s blob %d %s", id, fi.Size(), b)
}

// TestRootsMemoIsProtoRoots: the import roots remembered for versions read
// at their own commits are those ProtoRoots finds at each commit, whatever
// the commit before held: a buf.yaml added, changed, moved down or removed,
// a buf.work.yaml added, the imports that settle the roots without one
// there or not, and the import statements the version itself reads, the
// same or changed, over lines, commented out, two on a line.
func TestRootsMemoIsProtoRoots(t *testing.T) {
	r := newRepo(t, "main")
	name := "proto/api/v1/a.proto"
	text := "syntax = \"proto3\";\nimport \"dep/d.proto\";\nmessage A { dep.D d = 1; }\n"
	r.write(name, text)
	r.write("proto/api/dep/d.proto", "syntax = \"proto3\";\npackage dep;\nmessage D {}\n")
	revs := []string{r.commit("no buf.yaml, the import from api/")}
	r.write("buf.yaml", "version: v1\nbuild:\n  roots: [proto]\n")
	revs = append(revs, r.commit("buf.yaml at the top"))
	r.write("README", "unrelated\n")
	revs = append(revs, r.commit("nothing the roots read"))
	r.write("buf.yaml", "version: v1\nbuild:\n  roots: [proto/api]\n")
	revs = append(revs, r.commit("buf.yaml changed"))
	r.remove("buf.yaml")
	r.write("proto/buf.yaml", "version: v1\n")
	revs = append(revs, r.commit("buf.yaml moved down"))
	r.write("buf.work.yaml", "version: v1\ndirectories: [proto]\n")
	revs = append(revs, r.commit("buf.work.yaml"))
	r.remove("proto/buf.yaml")
	r.remove("buf.work.yaml")
	r.remove("proto/api/dep/d.proto")
	r.write("proto/dep/d.proto", "syntax = \"proto3\";\npackage dep;\nmessage D {}\n")
	revs = append(revs, r.commit("none again, the import from proto/"))
	r.write("proto/api/dep/d.proto", "syntax = \"proto3\";\npackage dep;\nmessage D {}\n")
	for i, imports := range []string{
		"import \"dep/d.proto\";\n// another field\n",
		"import \"dep/d.proto\";\n// and another\n",
		"import\n  \"api/dep/d.proto\"\n  ;\n",
		"// import \"dep/d.proto\";\nimport \"api/dep/d.proto\";\n",
		"/*\nimport \"dep/d.proto\";\n*/\nimport \"api/dep/d.proto\";\n",
		"import \"dep/d.proto;x\";\n",
		"import \"dep/d.proto\"; import \"api/dep/d.proto\";\n",
		"import public \"api/dep/d.proto\";\n// imports nothing else\n",
		"import weak \"dep/d.proto\"\n;\n",
		"import \"api/dep/\nd.proto\";\nimport \"dep/d.proto\";\n",
		"import2 \"api/dep/d.proto\";\nimport \"dep/d.proto\";\n",
	} {
		r.write(name, "syntax = \"proto3\";\n"+imports+"message A {}\n")
		revs = append(revs, r.commit(fmt.Sprintf("imports %d", i)))
	}
	c := &commits{top: r.top}
	defer c.close()
	m := &rootsMemo{}
	po := options(r.top).Pipeline
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, {17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
		{1, 3, 1, 0, 6, 0, 7, 12, 7, 9, 8, 10, 11, 13, 7, 14, 15, 16, 17, 15, 14, 17}} {
		for _, i := range order {
			src := commitSource{c: c, rev: revs[i]}
			want, werr := pipeline.ProtoRoots(src, name, po)
			text, _ := src.ReadFile(name)
			got, gerr := m.find(src, name, text, po)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(want, got) {
				t.Errorf("commit %d: remembered %v (%v), ProtoRoots %v (%v)", i, got, gerr, want, werr)
			}
		}
	}
}
