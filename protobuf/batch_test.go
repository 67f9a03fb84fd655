package protobuf

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bufbuild/protocompile/linker"
	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/cache"
)

// batchedTree is a tree of several directories whose files import one
// another across directories, share imports (common/, well-known types)
// and declare extensions, options, enums, services and map fields.
func batchedTree() map[string]string {
	files := map[string]string{
		"common/opts.proto": `syntax = "proto3";
package common;
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { string unit = 50001; }
// Shared is imported from every directory.
message Shared { string id = 1; }
enum Level { LEVEL_UNSPECIFIED = 0; HIGH = 1; }
`,
	}
	for i, d := range []string{"a", "b", "c", "d"} {
		next := []string{"a", "b", "c", "d"}[(i+1)%4]
		files[d+"/one.proto"] = fmt.Sprintf(`syntax = "proto3";
package %[1]s;
import "common/opts.proto";
import "google/protobuf/timestamp.proto";
option go_package = "example.com/%[1]s";
// One says hello.
message One {
  common.Shared shared = 1;
  google.protobuf.Timestamp at = 2 [(common.unit) = "seconds"];
  map<string, common.Level> levels = 3;
  oneof pick { string x = 4; int64 y = 5; }
  reserved 9;
}
`, d)
		files[d+"/two.proto"] = fmt.Sprintf(`syntax = "proto3";
package %[1]s;
import "%[1]s/one.proto";
import "%[2]s/one.proto";
service Svc {
  rpc Get(One) returns (%[2]s.One);
}
enum Kind { KIND_UNSPECIFIED = 0; %[3]s_KIND = 1; }
`, d, next, strings.ToUpper(d))
	}
	return files
}

// names lists files in sorted order: which of two clashing files an error
// names depends on the order they are given in.
func names(files map[string]string) []string {
	return slices.Sorted(maps.Keys(files))
}

// TestBatchesLowerAsOne: compiling in batches (files importing files of
// other batches, imports shared by all) lowers to exactly the tree one
// compile gives.
func TestBatchesLowerAsOne(t *testing.T) {
	files := batchedTree()
	src := tree(t, files)
	if g := batches(names(files), 2); len(g) < 4 {
		t.Fatalf("want at least 4 batches, got %d", len(g))
	}
	one, err := load(src, names(files), Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{1, 2, 3} {
		got, err := load(src, names(files), Options{}, batch)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(one, got); d != "" {
			t.Errorf("batches of %d differ from one compile (-one +batched):\n%s", batch, d)
		}
	}
}

// canonical is a problem list reduced to each line's positions and quoted
// names, sorted: of two files declaring one name, one compile blames
// either (protocompile links files in parallel), and words it as the
// order fell ("already defined" or "already defined as a package").
func canonical(problems string) string {
	lines := strings.Split(problems, "\n")
	for i, l := range lines {
		var kept []string
		for _, w := range strings.Fields(l) {
			if strings.Contains(w, ".proto:") || strings.HasPrefix(w, `"`) {
				kept = append(kept, strings.TrimRight(w, ":;"))
			}
		}
		slices.Sort(kept)
		lines[i] = strings.Join(kept, " ")
	}
	return strings.Join(lines, "\n")
}

// batchErrors are edits to batchedTree that one compile refuses: an error
// inside one batch, and names that clash only across batches.
var batchErrors = map[string]map[string]string{
	"error in one batch": {"c/two.proto": "syntax = \"proto3\";\npackage c;\nmessage M { Missing m = 1; }\n"},
	"message twice":      {"e/dup.proto": "syntax = \"proto3\";\npackage a;\nmessage One {}\n"},
	"enum value twice":   {"e/dup.proto": "syntax = \"proto3\";\npackage b;\nmessage B_KIND {}\n"},
	"package is a message": {"e/dup.proto": "syntax = \"proto3\";\npackage x.y;\n",
		"f/m.proto": "syntax = \"proto3\";\npackage x;\nmessage y {}\n"},
	"extension number twice": {"e/dup.proto": "syntax = \"proto3\";\npackage e;\nimport \"google/protobuf/descriptor.proto\";\nextend google.protobuf.FieldOptions { string other = 50001; }\n"},
}

// TestBatchErrorsAsOne: a batch's compile error, and names that clash only
// across batches (which no single batch sees), are reported exactly as
// one compile reports them.
func TestBatchErrorsAsOne(t *testing.T) {
	for name, edit := range batchErrors {
		t.Run(name, func(t *testing.T) {
			files := batchedTree()
			for k, v := range edit {
				files[k] = v
			}
			src := tree(t, files)
			_, want := load(src, names(files), Options{}, 0)
			if want == nil {
				t.Fatal("one compile accepted the tree")
			}
			for _, batch := range []int{1, 2} {
				_, got := load(src, names(files), Options{}, batch)
				if got == nil {
					t.Fatalf("batches of %d accepted the tree; one compile said %v", batch, want)
				}
				if canonical(problems(t, got)) != canonical(problems(t, want)) {
					t.Errorf("batches of %d:\n%s\none compile:\n%s", batch, problems(t, got), problems(t, want))
				}
			}
		})
	}
}

// TestLaterImportsLetGo: after a batch, only the linked files a later
// batch imports (directly or through other linked files) stay linked.
func TestLaterImportsLetGo(t *testing.T) {
	files := batchedTree()
	src := tree(t, files)
	r := &resolver{src: src, roots: []string{"."}, where: map[string]string{}}
	var all []string
	for _, n := range names(files) {
		n, err := r.importName(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, n)
	}
	compiled, err := r.compile(all)
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]linker.File{}
	for _, f := range newlyLinked(compiled, linked) {
		linked[f.Path()] = f
	}
	groups := [][]string{{"a/one.proto", "a/two.proto"}, {"b/one.proto", "b/two.proto"}}
	later := r.laterImports(groups)
	if later == nil {
		t.Fatal("imports of plain files read as unsure")
	}
	keepOnly(linked, later[0])
	got := slices.Sorted(maps.Keys(linked))
	// The standard imports are never linked here: the compiler has its own.
	want := []string{"b/one.proto", "c/one.proto", "common/opts.proto"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
}

// TestCheckErrorsAsOne: Check in batches accepts what one compile accepts,
// and reports a batch's compile error, and names that clash only across
// batches, exactly as one compile reports them.
func TestCheckErrorsAsOne(t *testing.T) {
	files := batchedTree()
	for _, batch := range []int{0, 1, 2} {
		if err := check(tree(t, files), names(files), Options{}, batch); err != nil {
			t.Fatalf("batches of %d: %v", batch, err)
		}
	}
	for name, edit := range batchErrors {
		t.Run(name, func(t *testing.T) {
			files := batchedTree()
			maps.Copy(files, edit)
			src := tree(t, files)
			_, want := load(src, names(files), Options{}, 0)
			if want == nil {
				t.Fatal("one compile accepted the tree")
			}
			for _, batch := range []int{1, 2} {
				got := check(src, names(files), Options{}, batch)
				if got == nil {
					t.Fatalf("batches of %d accepted the tree; one compile said %v", batch, want)
				}
				if canonical(problems(t, got)) != canonical(problems(t, want)) {
					t.Errorf("batches of %d:\n%s\none compile:\n%s", batch, problems(t, got), problems(t, want))
				}
			}
		})
	}
}

// mapCache is a Cache in memory that counts its reads that hit. Check
// reads and writes it on every core.
type mapCache struct {
	mu   sync.Mutex
	m    map[cache.Key][]byte
	hits int
}

func (c *mapCache) Get(k cache.Key) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k]
	if ok {
		c.hits++
	}
	return b, ok
}

func (c *mapCache) Put(k cache.Key, b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = b
	return nil
}

// TestCheckCached: with a cache, files Check found compiling are recorded
// under their bytes and imports, and a later Check of the same files
// compiles none of them; a file whose bytes change is compiled again, and
// its error reported.
func TestCheckCached(t *testing.T) {
	files := batchedTree()
	c := &mapCache{m: map[cache.Key][]byte{}}
	o := Options{Cache: c}
	if err := check(tree(t, files), names(files), o, 2); err != nil {
		t.Fatal(err)
	}
	if len(c.m) != len(files) {
		t.Fatalf("%d entries after checking %d files", len(c.m), len(files))
	}
	c.hits = 0
	if err := check(tree(t, files), names(files), o, 2); err != nil {
		t.Fatal(err)
	}
	if c.hits != len(files) || len(c.m) != len(files) {
		t.Errorf("warm check: %d hits, %d entries; want %d of each", c.hits, len(c.m), len(files))
	}
	files["c/two.proto"] = batchErrors["error in one batch"]["c/two.proto"]
	err := check(tree(t, files), names(files), o, 2)
	if err == nil || !strings.Contains(problems(t, err), "c/two.proto:3:13") {
		t.Errorf("an edited file that does not compile passed the warm check: %v", err)
	}
}
