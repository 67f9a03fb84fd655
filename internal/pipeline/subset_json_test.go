package pipeline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/internal/tojson"
)

// TestSubsetSameFindingsJSON is TestSubsetSameFindingsRules on every YAML
// pair of the rule cases written as indented JSON, and minified: the
// planned load (cut from JSON tokens, by lines or by bytes) and the whole
// load find the same, field by field, and JSON documents get plans as
// their YAML does.
func TestSubsetSameFindingsJSON(t *testing.T) {
	for _, minify := range []bool{false, true} {
		t.Run(map[bool]string{false: "indented", true: "minified"}[minify], func(t *testing.T) {
			sameFindingsJSON(t, minify)
		})
	}
}

func sameFindingsJSON(t *testing.T, minify bool) {
	cases, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*", "old.yaml"))
	ran, planned, skipped := 0, 0, 0
	for _, o := range cases {
		ob, oerr := os.ReadFile(o)
		nb, nerr := os.ReadFile(filepath.Join(filepath.Dir(o), "new.yaml"))
		if oerr != nil || nerr != nil {
			continue
		}
		oj, ook := tojson.Indented(string(ob))
		nj, nok := tojson.Indented(string(nb))
		if !ook || !nok {
			continue
		}
		if minify {
			oj, nj = compact(t, oj), compact(t, nj)
		}
		ran++
		name := filepath.Base(filepath.Dir(filepath.Dir(o))) + "/" + filepath.Base(filepath.Dir(o))
		t.Run(name, func(t *testing.T) {
			st := subsetRunJSON(t, oj, nj)
			if st.Chunks > 0 {
				planned++
			}
			if st.ChunksSkipped > 0 {
				skipped++
			}
		})
	}
	t.Logf("%d JSON pairs, %d planned, %d with chunks left out", ran, planned, skipped)
	if planned < ran/2 || skipped < 10 {
		t.Errorf("of %d JSON pairs %d planned, %d left a chunk out", ran, planned, skipped)
	}
}

// subsetRunJSON is subsetRun, with every rule on, on the JSON documents
// old and new read as old.json and new.json from memory (a directory
// written per pair cost more than the pair's diffs).
func subsetRunJSON(t *testing.T, old, new string) *pipeline.Stats {
	t.Helper()
	src := source.FS{Name: "working tree", FS: fstest.MapFS{
		"old.json": {Data: []byte(old), Mode: 0o644},
		"new.json": {Data: []byte(new), Mode: 0o644},
	}}
	return subsetRun(t, pipeline.Side{Src: src, Files: []string{"old.json"}}, pipeline.Side{Src: src, Files: []string{"new.json"}})
}

// compact is the JSON text j on one line.
func compact(t *testing.T, j string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(j)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSubsetSameFindingsOpenAI compares both loads on two versions of
// OpenAI's spec (OpenAPI 3.1, with $recursiveRef and $recursiveAnchor,
// which kin-openapi does not resolve, |+ scalars and $refs broken over
// lines), as published and written as indented JSON: the plan leaves most
// of it out and finds what the whole load finds. The default run compares
// them as published; JSON cut by tokens it checks on every rule case and
// layout (TestSubsetSameFindingsJSON, TestSubsetSameFindingsLayouts), and
// the full run (see corpus.Full) on OpenAI's JSON too.
func TestSubsetSameFindingsOpenAI(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 3 MB documents")
	}
	dir := t.TempDir()
	for _, v := range []string{"1e5b3b1", "855e5d4"} {
		name := "openai-openapi-" + v + ".yaml"
		corpus.Gunzip(t, name, dir)
		if !corpus.Full() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		j, ok := tojson.Indented(string(b))
		if !ok {
			t.Fatalf("%s does not convert to JSON", name)
		}
		if err := os.WriteFile(filepath.Join(dir, v+".json"), []byte(j), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".yaml", ".json"} {
		old, new := "1e5b3b1.json", "855e5d4.json"
		if ext == ".yaml" {
			old, new = "openai-openapi-1e5b3b1.yaml", "openai-openapi-855e5d4.yaml"
		}
		t.Run(ext, func(t *testing.T) {
			if ext == ".json" {
				corpus.FullOnly(t)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}})
			if st.ChunksSkipped*2 < st.Chunks {
				t.Errorf("subset left out %d of %d chunks, want at least half", st.ChunksSkipped, st.Chunks)
			}
		})
	}
}

// TestSubsetSameFindingsLayouts compares both loads on the layout cases
// (openapi/testdata/layouts: Box's indented JSON with properties named $id,
// and the layouts the cutter reads by tokens), each of which must be
// planned with a chunk left out.
func TestSubsetSameFindingsLayouts(t *testing.T) {
	olds, _ := filepath.Glob(filepath.Join("..", "..", "openapi", "testdata", "layouts", "*", "old.*"))
	if len(olds) == 0 {
		t.Fatal("no layout cases")
	}
	for _, o := range olds {
		dir := filepath.Dir(o)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			ext := filepath.Ext(o)
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{"old" + ext}}, pipeline.Side{Src: src, Files: []string{"new" + ext}})
			if st.ChunksSkipped == 0 || st.NoPlan != "" {
				t.Errorf("left out %d of %d chunks (%s)", st.ChunksSkipped, st.Chunks, st.NoPlan)
			}
		})
	}
}

// TestNoPlanSaysWhere: --stats names the rule a document broke and where,
// so a user can tell why a contract loads whole.
func TestNoPlanSaysWhere(t *testing.T) {
	ob, err := os.ReadFile(filepath.Join("..", "..", "openapi", "testdata", "layouts", "box", "old.json"))
	if err != nil {
		t.Fatal(err)
	}
	const at = `      "User": {
        "type": "object",`
	nb := strings.Replace(string(ob), at, at+"\n        \"$id\": \"https://example.com/user\",", 1)
	line := strings.Count(nb[:strings.Index(nb, `"$id": "https`)], "\n") + 1
	st := subsetRunJSON(t, string(ob), nb)
	want := fmt.Sprintf("no plan: a JSON Schema identity keyword ($id) at new.json:%d", line)
	if st.NoPlan != want {
		t.Errorf("NoPlan %q, want %q", st.NoPlan, want)
	}
	var out strings.Builder
	st.Write(&out)
	if !strings.Contains(out.String(), "stats: "+want+"\n") {
		t.Errorf("--stats does not say why there is no plan:\n%s", out.String())
	}
}
