package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// splitPair lays the old and new documents of a case out as split specs
// (corpus.SplitFiles: a root and a file per path) under old/ and new/ of
// one tree, read from memory.
func splitPair(old, new []byte) (pipeline.Side, pipeline.Side, bool) {
	tree := fstest.MapFS{}
	for side, b := range map[string][]byte{"old": old, "new": new} {
		files, err := corpus.SplitFiles(b)
		if err != nil {
			return pipeline.Side{}, pipeline.Side{}, false
		}
		for name, text := range files {
			tree[side+"/"+name] = &fstest.MapFile{Data: text, Mode: 0o644}
		}
	}
	src := source.FS{Name: "working tree", FS: tree}
	return pipeline.Side{Src: src, Files: []string{"old/openapi.yaml"}}, pipeline.Side{Src: src, Files: []string{"new/openapi.yaml"}}, true
}

// TestSplitSubsetSameFindings splits every YAML OpenAPI pair of the rule
// cases into a root and a file per path, and compares the subset load of the
// two trees, which reaches into the path files, with the whole load.
func TestSplitSubsetSameFindings(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	ran, skipped := 0, 0
	for _, dir := range cases {
		ob, oerr := os.ReadFile(filepath.Join(dir, "old.yaml"))
		nb, nerr := os.ReadFile(filepath.Join(dir, "new.yaml"))
		if oerr != nil || nerr != nil {
			continue
		}
		old, new, ok := splitPair(ob, nb)
		if !ok {
			continue
		}
		ran++
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			if st := subsetRun(t, old, new); st.ChunksSkipped > 0 {
				skipped++
			}
		})
	}
	t.Logf("%d split pairs, %d with chunks left out", ran, skipped)
	if skipped < 10 {
		t.Errorf("only %d of %d split pairs left a chunk out", skipped, ran)
	}
}

// TestSplitStripeOneFile is the benchmark's change checked for findings:
// Stripe split per path, one path file changed, both loads alike, and most
// of the root left out.
func TestSplitStripeOneFile(t *testing.T) {
	if testing.Short() {
		t.Skip("splits a 4 MB document")
	}
	// The default run splits a sample (every file of the tree $refs the
	// 4 MB root, and the whole load the subset is compared with reads it
	// for each); the full run all of Stripe.
	full := corpus.Full()
	old, new := splitStripe(t, !full)
	st := subsetRun(t, old, new)
	if full && st.ChunksSkipped*2 < st.Chunks {
		t.Errorf("subset left out %d of %d chunks, want at least half", st.ChunksSkipped, st.Chunks)
	}
	// The sample's 33 paths reach fewer of the schemas the change reaches
	// (337 of its 851 chunks were left out when it was written).
	if !full && st.ChunksSkipped*3 < st.Chunks {
		t.Errorf("subset left out %d of %d chunks of the sample, want at least a third", st.ChunksSkipped, st.Chunks)
	}
}

// splitStripe writes Stripe's spec split per path, and the same tree with
// the one-file change corpus.SplitChange makes; a sample keeps only
// samplePaths' paths.
func splitStripe(tb testing.TB, sample bool) (pipeline.Side, pipeline.Side) {
	const name = "stripe-spec3-2023-09-12.yaml"
	dir := tb.TempDir()
	corpus.Gunzip(tb, name, dir)
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	if sample {
		b = samplePaths(tb, b)
	}
	// Split once and copy: the two sides start as the same tree.
	if _, err := corpus.Split(b, filepath.Join(dir, "old")); err != nil {
		tb.Fatalf("Stripe's spec did not split: %v", err)
	}
	if err := os.CopyFS(filepath.Join(dir, "new"), os.DirFS(filepath.Join(dir, "old"))); err != nil {
		tb.Fatal(err)
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	old, new := pipeline.Side{Src: src, Files: []string{"old/openapi.yaml"}}, pipeline.Side{Src: src, Files: []string{"new/openapi.yaml"}}
	if err := corpus.SplitChange(filepath.Join(dir, "new")); err != nil {
		tb.Fatal(err)
	}
	return old, new
}

// BenchmarkSplitStripeOneFile diffs Stripe split per path (319 files) with
// one path file changed, as `contractlint diff old/openapi.yaml
// new/openapi.yaml` does, and reports the run over a whole load of the same
// trees (subset/whole, lower is better): what reading and comparing the
// files first saves. The side-by-side ratio against oasdiff comes from
// .ci/side-by-side stripe-split.
func BenchmarkSplitStripeOneFile(b *testing.B) {
	old, new := splitStripe(b, false)
	o := pipeline.Options{Registry: defaultRules(), Settings: &rules.Settings{}}
	whole := o
	whole.Whole = true
	var sub, all time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := pipeline.Diff(old, new, o); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := pipeline.Diff(old, new, whole); err != nil {
			b.Fatal(err)
		}
		sub, all = sub+mid.Sub(start), all+time.Since(mid)
	}
	b.ReportMetric(float64(sub)/float64(all), "subset/whole")
}

// samplePaths keeps every tenth path of Stripe's spec and /v1/coupons, the
// one SplitChange edits (33 of 318), and every component: the split tree
// keeps its shape (path files $ref-ing the root's schemas) at a tenth of
// the files.
func samplePaths(tb testing.TB, doc []byte) []byte {
	tb.Helper()
	text := string(doc)
	start := strings.Index(text, "\npaths:\n")
	if start < 0 {
		tb.Fatal("no top-level paths in Stripe's spec")
	}
	start += len("\npaths:\n")
	var out strings.Builder
	out.WriteString(text[:start])
	lines := strings.SplitAfter(text[start:], "\n")
	i, keep := 0, false
	for n, l := range lines {
		if l != "" && l != "\n" && l[0] != ' ' { // the next top-level key: the paths end
			out.WriteString(strings.Join(lines[n:], ""))
			break
		}
		if len(l) > 2 && l[2] != ' ' { // a path
			keep = i%10 == 0 || l == "  /v1/coupons:\n"
			i++
		}
		if keep {
			out.WriteString(l)
		}
	}
	return []byte(out.String())
}

// TestSplitCommentedRefPlanned: Lob's tree keeps $refs it retired in YAML
// comments (`#   $ref: "../models/components_us.yml"`), to files that are
// gone. The loader never reads a comment; the tree's reading stopped at
// them and no plan was made. A commented $ref to a file that exists is
// still followed: reaching too far only keeps more.
func TestSplitCommentedRefPlanned(t *testing.T) {
	files := map[string]string{
		"openapi.yaml": "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n" +
			"  /a:\n    $ref: 'paths/a.yml'\n  /b:\n    $ref: 'paths/b.yml'\n" +
			"components:\n  schemas:\n    A:\n      type: object\n      properties:\n        id: {type: string}\n    B:\n      type: string\n",
		"paths/a.yml":  "get:\n  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n          schema:\n            $ref: '../models/a.yml'\n",
		"paths/b.yml":  "get:\n  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n          schema:\n            $ref: '../openapi.yaml#/components/schemas/B'\n",
		"models/a.yml": "type: object\nproperties:\n  id: {type: string}\n  # retired:\n  #   $ref: \"./gone.yml\"\n  name: {type: string}\n",
	}
	old, new := writeTrees(t, files, func(side, name, text string) string {
		if side == "new" && name == "paths/b.yml" {
			return strings.Replace(text, "'200'", "'201'", 1)
		}
		return text
	})
	st := subsetRun(t, old, new)
	if st.NoPlan != "" || st.ChunksSkipped == 0 {
		t.Errorf("no chunk left out (%d of %d): %s", st.ChunksSkipped, st.Chunks, st.NoPlan)
	}
}

// writeTrees writes files as an old and a new tree, each file as edit
// returns it for the side ("" leaves it out), and returns the two sides,
// rooted at openapi.yaml.
func writeTrees(t *testing.T, files map[string]string, edit func(side, name, text string) string) (pipeline.Side, pipeline.Side) {
	t.Helper()
	root := t.TempDir()
	for _, side := range []string{"old", "new"} {
		for name, text := range files {
			if text = edit(side, name, text); text == "" {
				continue
			}
			p := filepath.Join(root, side, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Side{Src: src, Files: []string{"old/openapi.yaml"}}, pipeline.Side{Src: src, Files: []string{"new/openapi.yaml"}}
}

// TestSplitNewPostNoKeyPlanned: a tree that names no idempotency key in
// any file (DigitalOcean's) adding a POST is judged from the subset: the
// files left out cannot show a key convention. Before, every such diff
// loaded the whole tree again.
func TestSplitNewPostNoKeyPlanned(t *testing.T) {
	files := map[string]string{
		"openapi.yaml": "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n" +
			"  /a:\n    $ref: 'paths/a.yml'\n  /b:\n    $ref: 'paths/b.yml'\n  /c:\n    $ref: 'paths/c.yml'\n",
		"paths/a.yml": "get:\n  responses:\n    '200':\n      description: ok\n",
		"paths/b.yml": "post:\n  responses:\n    '201':\n      description: made\n",
		"paths/c.yml": "get:\n  responses:\n    '200':\n      description: ok\n",
	}
	old, new := writeTrees(t, files, func(side, name, text string) string {
		if side == "new" && name == "paths/c.yml" {
			return text + "post:\n  responses:\n    '201':\n      description: made\n"
		}
		return text
	})
	if st := subsetRun(t, old, new); st.ChunksSkipped == 0 || st.Rerun != 0 {
		t.Errorf("skipped %d of %d chunks, %d reruns (%s); want /a and /b left out and no rerun", st.ChunksSkipped, st.Chunks, st.Rerun, st.NoPlan)
	}
	// A key named in a file left out may be the API's convention: the
	// index of every operation in the tree counts it (see
	// TestKeyConventionFromIndexLob), without loading the tree whole.
	files["paths/b.yml"] = "post:\n  parameters:\n    - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}\n  responses:\n    '201':\n      description: made\n"
	old, new = writeTrees(t, files, func(side, name, text string) string {
		if side == "new" && name == "paths/c.yml" {
			return text + "post:\n  responses:\n    '201':\n      description: made\n"
		}
		return text
	})
	if st := subsetRun(t, old, new); st.ChunksSkipped == 0 || st.Rerun != 0 {
		t.Errorf("a key in a file left out: skipped %d of %d chunks, %d reruns, want the index to count it", st.ChunksSkipped, st.Chunks, st.Rerun)
	}
}
