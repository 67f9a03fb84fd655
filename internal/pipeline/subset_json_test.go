package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/internal/tojson"
)

// TestSubsetSameFindingsJSON is TestSubsetSameFindingsRules on every YAML
// pair of the rule cases written as indented JSON: the planned load (cut
// from JSON tokens) and the whole load find the same, field by field, and
// JSON documents get plans as their YAML does.
func TestSubsetSameFindingsJSON(t *testing.T) {
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
		ran++
		name := filepath.Base(filepath.Dir(filepath.Dir(o))) + "/" + filepath.Base(filepath.Dir(o))
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, text := range map[string]string{"old.json": oj, "new.json": nj} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			src, err := source.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{"old.json"}}, pipeline.Side{Src: src, Files: []string{"new.json"}}, everyRule())
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

// TestSubsetSameFindingsOpenAI compares both loads on two versions of
// OpenAI's spec (OpenAPI 3.1, with $recursiveRef and $recursiveAnchor,
// which kin-openapi does not resolve, |+ scalars and $refs broken over
// lines), as published and written as indented JSON: the plan leaves most
// of it out and finds what the whole load finds.
func TestSubsetSameFindingsOpenAI(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 3 MB documents")
	}
	dir := t.TempDir()
	for _, v := range []string{"1e5b3b1", "855e5d4"} {
		name := "openai-openapi-" + v + ".yaml"
		corpus.Gunzip(t, name, dir)
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
			st := subsetRun(t, pipeline.Side{Src: src, Files: []string{old}}, pipeline.Side{Src: src, Files: []string{new}}, everyRule())
			if st.ChunksSkipped*2 < st.Chunks {
				t.Errorf("subset left out %d of %d chunks, want at least half", st.ChunksSkipped, st.Chunks)
			}
		})
	}
}
