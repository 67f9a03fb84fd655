package review

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// changeRepo commits five files, then leaves one of each kind of change:
// a.txt modified, b.txt deleted (not staged), c.txt renamed with git mv,
// f.txt added and staged, g.txt untracked, h.log ignored.
func changeRepo(t *testing.T) (*testRepo, string) {
	t.Helper()
	r := newRepo(t, "main")
	r.write(".gitignore", "*.log\n")
	r.write("a.txt", "alpha\n")
	r.write("b.txt", "bravo\n")
	// Long enough that the rename is an exact, unambiguous match.
	r.write("old/c.txt", strings.Repeat("charlie\n", 20))
	r.write("sub/d.txt", "delta\n")
	base := r.commit("base")

	r.write("a.txt", "alpha two\n")
	r.remove("b.txt")
	if err := os.Mkdir(filepath.Join(r.top, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("mv", "old/c.txt", "new/c.txt")
	r.write("f.txt", "foxtrot\n")
	r.git("add", "f.txt")
	r.write("g.txt", "golf\n")
	r.write("h.log", "hotel\n")
	return r, base
}

func sortChanges(cs []FileChange) []FileChange {
	slices.SortFunc(cs, func(a, b FileChange) int {
		return cmp.Or(cmp.Compare(a.New, b.New), cmp.Compare(a.Old, b.Old))
	})
	return cs
}

func TestChangedFiles(t *testing.T) {
	r, base := changeRepo(t)
	repo := r.repo()

	got, err := repo.changedFiles(r.top, base, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The ignored file is no change; the untracked one is, since a new
	// contract must be reviewed before anyone remembers to add it.
	want := []FileChange{
		{Status: Deleted, Old: "b.txt"},
		{Status: Modified, Old: "a.txt", New: "a.txt"},
		{Status: Added, New: "f.txt"},
		{Status: Added, New: "g.txt"},
		{Status: Renamed, Old: "old/c.txt", New: "new/c.txt"},
	}
	if d := gocmp.Diff(sortChanges(want), sortChanges(got)); d != "" {
		t.Errorf("working tree changes (-want +got):\n%s", d)
	}
	// A review lists the working tree once and takes the untracked files
	// from that listing: the same changes.
	files, err := source.ListWorkTree(r.top)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := repo.changedFiles(r.top, base, false, files)
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff(sortChanges(want), sortChanges(listed)); d != "" {
		t.Errorf("working tree changes from the listing (-want +got):\n%s", d)
	}

	// The index holds only what was staged: the rename and f.txt; neither
	// the unstaged edit and deletion nor the untracked file.
	got, err = repo.changedFiles(r.top, base, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = []FileChange{
		{Status: Added, New: "f.txt"},
		{Status: Renamed, Old: "old/c.txt", New: "new/c.txt"},
	}
	if d := gocmp.Diff(sortChanges(want), sortChanges(got)); d != "" {
		t.Errorf("staged changes (-want +got):\n%s", d)
	}
}

func TestChangedFilesPaths(t *testing.T) {
	r, base := changeRepo(t)
	r.write("sub/d.txt", "delta two\n")
	r.write("sub/new.txt", "new\n")
	// A sibling whose name merely starts like the path is not under it.
	r.write("sub2/x.txt", "x\n")
	repo := r.repo()
	// What a directory's review reads is the same for every case run from
	// it: its changes, and the repository opened from it, as a review run
	// there opens it (the prefix comes from the run that found the top).
	type open struct {
		all  []FileChange
		from *Repo
		err  error
	}
	opens := map[string]open{}
	opened := func(dir string) open {
		o, ok := opens[dir]
		if !ok {
			o.all, o.err = repo.changedFiles(dir, base, false, nil)
			if o.err == nil {
				o.from, o.err = OpenRepo(dir)
			}
			opens[dir] = o
		}
		return o
	}

	for _, tc := range []struct {
		name  string
		dir   string
		paths []string
		want  []FileChange
	}{
		{"a file", ".", []string{"a.txt"}, []FileChange{{Status: Modified, Old: "a.txt", New: "a.txt"}}},
		// A rename is kept when either side is under the path, and is
		// still a rename: git saw both sides.
		{"the old side of a rename", ".", []string{"old"}, []FileChange{{Status: Renamed, Old: "old/c.txt", New: "new/c.txt"}}},
		{"the new side of a rename", ".", []string{"new/"}, []FileChange{{Status: Renamed, Old: "old/c.txt", New: "new/c.txt"}}},
		{"a directory", ".", []string{"sub"}, []FileChange{
			{Status: Modified, Old: "sub/d.txt", New: "sub/d.txt"},
			{Status: Added, New: "sub/new.txt"},
		}},
		// Paths are relative to where the command runs, names are not.
		{"dot in a subdirectory", "sub", []string{"."}, []FileChange{
			{Status: Modified, Old: "sub/d.txt", New: "sub/d.txt"},
			{Status: Added, New: "sub/new.txt"},
		}},
		{"up from a subdirectory", "sub", []string{"../a.txt", "../b.txt"}, []FileChange{
			{Status: Deleted, Old: "b.txt"},
			{Status: Modified, Old: "a.txt", New: "a.txt"},
		}},
		{"nothing there", ".", []string{"missing"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(r.top, tc.dir)
			o := opened(dir)
			if o.err != nil {
				t.Fatal(o.err)
			}
			all := slices.Clone(o.all)
			rels, err := o.from.repoPaths(dir, tc.paths)
			if err != nil {
				t.Fatal(err)
			}
			in := pathFilter(rels)
			got := slices.DeleteFunc(all, func(c FileChange) bool { return !in(c.New) && !in(c.Old) })
			if d := gocmp.Diff(sortChanges(tc.want), sortChanges(got), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("changedFiles(%v) from %s (-want +got):\n%s", tc.paths, tc.dir, d)
			}
		})
	}

	// Without paths, a review started in a subdirectory still sees the whole
	// repository, untracked files included, under repository-relative names.
	got, err := repo.changedFiles(filepath.Join(r.top, "sub"), base, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "g.txt", "sub/new.txt", "sub2/x.txt"} {
		if !slices.ContainsFunc(got, func(c FileChange) bool { return c.New == name }) {
			t.Errorf("from sub/, %s is missing from %+v", name, got)
		}
	}
}

func TestParseNameStatus(t *testing.T) {
	got, err := parseNameStatus([]string{
		"M", "m.yaml",
		"T", "t.yaml", // a type change (file to symlink) is a modification
		"A", "a.yaml",
		"D", "d.yaml",
		"R087", "r-old.yaml", "r-new.yaml",
		"C075", "c-src.yaml", "c-copy.yaml", // a copy adds its second name
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Status: Modified, Old: "m.yaml", New: "m.yaml"},
		{Status: Modified, Old: "t.yaml", New: "t.yaml"},
		{Status: Added, New: "a.yaml"},
		{Status: Deleted, Old: "d.yaml"},
		{Status: Renamed, Old: "r-old.yaml", New: "r-new.yaml"},
		{Status: Added, New: "c-copy.yaml"},
	}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("parseNameStatus (-want +got):\n%s", d)
	}

	// Output cut short must be an error, never a half-read list.
	for _, f := range [][]string{{"M"}, {"R100", "only-old.yaml"}, {""}, {"M", "a", ""}} {
		if got, err := parseNameStatus(f); err == nil {
			t.Errorf("parseNameStatus(%q) = %+v, want an error", f, got)
		}
	}
}

func TestHasOpenAPIKey(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{"openapi: 3.0.3\ninfo: {title: t, version: '1'}\n", true},
		{`{"openapi": "3.1.0", "paths": {}}`, true},
		{"info: {title: t}\nopenapi: 3.1.0\n", true},
		{"swagger: '2.0'\n", false},
		{"title: not a contract\n", false},
		// Only the top level counts: a document that mentions OpenAPI is
		// not one.
		{"spec:\n  openapi: 3.0.3\n", false},
		{"- openapi\n", false},
		{"", false},
		// One that starts like a contract but does not parse is one: loading
		// it says why (contract-unreadable), where skipping passed silently.
		{"openapi: [\n", true},
		{"# spec\n{\"openapi\": \"3.0.3\", \"info\": \"\\ud800\"", true},
		{"paths: [\n", false},
	} {
		if got := hasOpenAPIKey([]byte(tc.doc)); got != tc.want {
			t.Errorf("hasOpenAPIKey(%q) = %v, want %v", tc.doc, got, tc.want)
		}
	}
}
