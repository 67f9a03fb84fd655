package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// cacheTree writes shopTree as old/ and, with a field widened, as new/
// under a fresh root.
func cacheTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range shopTree {
		writeFile(t, filepath.Join(root, "old", name), text)
		if name == "shop/v1/order.proto" {
			text = strings.Replace(text, "int32 total", "int64 total", 1)
		}
		writeFile(t, filepath.Join(root, "new", name), text)
	}
	return root
}

// cacheRun diffs root's old/ and new/ whole (no file skipped as
// unchanged, so every file goes through the cache) and returns the
// findings and the cache use per side.
func cacheRun(t *testing.T, root string, c pipeline.Options) ([]rules.Finding, map[string]pipeline.CacheUse) {
	t.Helper()
	old, new := protoDirs(t, root)
	st := &pipeline.Stats{}
	o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{ProtoLevel: rules.LevelFile},
		Stats: st, Whole: true, Cache: c.Cache}
	got, err := pipeline.Diff(old, new, o)
	if err != nil {
		t.Fatal(err)
	}
	use := map[string]pipeline.CacheUse{}
	for k, u := range st.Cache {
		use[k] = *u
	}
	return got, use
}

func openCache(t *testing.T, dir, version string) pipeline.Options {
	t.Helper()
	s, err := cache.Open(dir, version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return pipeline.Options{Cache: s}
}

func allHit(n int) map[string]pipeline.CacheUse {
	return map[string]pipeline.CacheUse{"old": {Hits: n, Files: n}, "new": {Hits: n, Files: n}}
}

func noHit(n int) map[string]pipeline.CacheUse {
	return map[string]pipeline.CacheUse{"old": {Files: n}, "new": {Files: n}}
}

// A cache hit gives the findings of a cold run, and a spoiled entry (its
// bytes flipped, cut short, or written by another version) is ignored and
// then overwritten.
func TestCacheFindings(t *testing.T) {
	root := cacheTree(t)
	want, _ := cacheRun(t, root, pipeline.Options{})
	if len(want) == 0 {
		t.Fatal("the widened field gives no finding: the test compares nothing")
	}
	n := len(shopTree)
	dir := t.TempDir()
	o := openCache(t, dir, "v1")
	for i, wantUse := range []map[string]pipeline.CacheUse{noHit(n), allHit(n)} {
		sameRun(t, i, want, wantUse, root, o)
	}
	spoils := map[string]func(t *testing.T, entry string){
		"corrupted": func(t *testing.T, entry string) {
			b := readFile(t, entry)
			b[len(b)-1] ^= 0xff
			rewrite(t, entry, b)
		},
		"truncated": func(t *testing.T, entry string) {
			b := readFile(t, entry)
			rewrite(t, entry, b[:len(b)/2])
		},
	}
	for name, spoil := range spoils {
		t.Run(name, func(t *testing.T) {
			entries, err := filepath.Glob(filepath.Join(dir, "*.entry"))
			if err != nil || len(entries) != 2*n {
				t.Fatalf("%d entries (%v), want %d", len(entries), err, 2*n)
			}
			for _, e := range entries {
				spoil(t, e)
			}
			for i, wantUse := range []map[string]pipeline.CacheUse{noHit(n), allHit(n)} {
				got, use := cacheRun(t, root, o)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("run %d: findings differ (-cold +cached):\n%s", i, d)
				}
				if d := cmp.Diff(wantUse, use); d != "" {
					t.Fatalf("run %d: cache use (-want +got):\n%s", i, d)
				}
			}
		})
	}
	t.Run("another version", func(t *testing.T) {
		other := openCache(t, dir, "v2")
		for i, wantUse := range []map[string]pipeline.CacheUse{noHit(n), allHit(n)} {
			sameRun(t, i, want, wantUse, root, other)
		}
	})
}

// An edit to an imported file reaches every file that imports it,
// transitively, and no other: their entries no longer match.
func TestCacheImportEdit(t *testing.T) {
	root := cacheTree(t)
	o := openCache(t, t.TempDir(), "v1")
	cacheRun(t, root, o)
	writeFile(t, filepath.Join(root, "new", "common/v1/common.proto"),
		"syntax = \"proto3\";\npackage common.v1;\nmessage Meta { int64 id = 1; }\n")
	want, _ := cacheRun(t, root, pipeline.Options{})
	got, use := cacheRun(t, root, o)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("findings differ (-cold +cached):\n%s", d)
	}
	// common, order and service import the edit; billing (2) and misc do not.
	n := len(shopTree)
	if d := cmp.Diff(map[string]pipeline.CacheUse{"old": {Hits: n, Files: n}, "new": {Hits: n - 3, Files: n}}, use); d != "" {
		t.Errorf("cache use (-want +got):\n%s", d)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rewrite(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameRun checks that run i with cache o gives the findings of a run
// without the cache, with the cache use wantUse.
func sameRun(t *testing.T, i int, want []rules.Finding, wantUse map[string]pipeline.CacheUse, root string, o pipeline.Options) {
	t.Helper()
	got, use := cacheRun(t, root, o)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("run %d: findings differ from a run without the cache (-cold +cached):\n%s", i, d)
	}
	if d := cmp.Diff(wantUse, use); d != "" {
		t.Fatalf("run %d: cache use (-want +got):\n%s", i, d)
	}
}
