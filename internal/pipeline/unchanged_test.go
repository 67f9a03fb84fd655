package pipeline_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// shopTree is a small tree with an import chain (service -> order ->
// common), a package of two files, and a file whose comments mention
// imports that do not exist.
var shopTree = map[string]string{
	"common/v1/common.proto": `syntax = "proto3";
package common.v1;
message Meta { string id = 1; }
`,
	"shop/v1/order.proto": `syntax = "proto3";
package shop.v1;
import "common/v1/common.proto";
message Order { common.v1.Meta meta = 1; int32 total = 2; }
`,
	"shop/v1/service.proto": `syntax = "proto3";
package shop.v1;
import "shop/v1/order.proto";
service Shop { rpc Get(Order) returns (Order); }
`,
	"billing/v1/invoice.proto": `syntax = "proto3";
package billing.v1;
message Invoice { string id = 1; }
`,
	"billing/v1/extra.proto": `syntax = "proto3";
package billing.v1;
message Extra { string id = 1; }
`,
	"misc/v1/note.proto": `syntax = "proto3";
// import "missing/one.proto"; is only a comment
/* import "missing/two.proto"; neither is this */
package misc.v1;
message Note { string text = 1; } // "//" and import "missing/three.proto";
`,
}

// protoSides writes shopTree as old/ and, edited, as new/, and opens both.
func protoSides(t *testing.T, edit func(map[string]string)) (pipeline.Side, pipeline.Side) {
	t.Helper()
	root := t.TempDir()
	newTree := maps.Clone(shopTree)
	edit(newTree)
	for dir, tree := range map[string]map[string]string{"old": shopTree, "new": newTree} {
		for name, text := range tree {
			writeFile(t, filepath.Join(root, dir, name), text)
		}
	}
	return protoDirs(t, root)
}

// skipRun diffs old and new with the skip and without it: the findings
// must be the same, and the stats say what the skip left out.
func skipRun(t *testing.T, old, new pipeline.Side) ([]rules.Finding, *pipeline.Stats) {
	t.Helper()
	st := &pipeline.Stats{}
	// At buf's FILE level every removal and move counts, packages too.
	o := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{ProtoLevel: rules.LevelFile}, Stats: st}
	got, err := pipeline.Diff(old, new, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Stats, o.Whole = nil, true
	want, err := pipeline.Diff(old, new, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings with unchanged files skipped differ from a whole run (-whole +skipped):\n%s", d)
	}
	return got, st
}

func phases(st *pipeline.Stats) []string {
	var out []string
	for _, p := range st.Phases {
		out = append(out, p.Name)
	}
	return out
}

func TestUnchangedProto(t *testing.T) {
	for _, tc := range []struct {
		name              string
		edit              func(map[string]string)
		compared, skipped int
		rules             []string // the rules that fire, sorted
	}{
		{"identical trees compile nothing", func(map[string]string) {}, 0, 6, nil},
		{"a change reaches every file that imports it", func(m map[string]string) {
			m["common/v1/common.proto"] = "syntax = \"proto3\";\npackage common.v1;\nmessage Meta { int64 id = 1; }\n"
		}, 3, 3, []string{"field-redefined"}},
		{"a package still declared by an unchanged file is not removed", func(m map[string]string) {
			delete(m, "billing/v1/extra.proto")
		}, 1, 5, []string{"proto-file-removed"}},
		{"a new file importing an unchanged one", func(m map[string]string) {
			m["shop/v1/refund.proto"] = "syntax = \"proto3\";\npackage shop.v1;\nimport \"common/v1/common.proto\";\nmessage Refund { common.v1.Meta meta = 1; }\n"
		}, 1, 6, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, new := protoSides(t, tc.edit)
			fs, st := skipRun(t, old, new)
			if st.Compared != tc.compared || st.Skipped != tc.skipped {
				t.Errorf("%d compared, %d skipped; want %d and %d", st.Compared, st.Skipped, tc.compared, tc.skipped)
			}
			if tc.compared == 0 && slices.Contains(phases(st), "load") {
				t.Errorf("identical trees were compiled: phases %v", phases(st))
			}
			var got []string
			for _, f := range fs {
				if !slices.Contains(got, f.Rule) {
					got = append(got, f.Rule)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.rules) {
				t.Errorf("rules fired %v, want %v", got, tc.rules)
			}
		})
	}
}

const petsMain = `openapi: 3.0.3
info: {title: pets, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                $ref: >-
                  schemas.yaml#/Pet
`

func TestUnchangedOpenAPI(t *testing.T) {
	pet := func(typ string) string {
		return "Pet:\n  type: object\n  properties:\n    name: {type: " + typ + "}\n"
	}
	// A code sample named as a $ref under an extension, to a file the
	// export left out: the loader never reads it.
	sampled := strings.Replace(petsMain, "    get:\n", "    get:\n      x-codeSamples:\n        - $ref: samples/missing.yaml\n", 1)
	// A $ref above the root's folder: no plan is made for it, and the
	// sides are still found the same.
	above := strings.Replace(petsMain, "schemas.yaml#/Pet", "../shared/schemas.yaml#/Pet", 1)
	for _, tc := range []struct {
		name            string
		main            string // pets.yaml on both sides
		oldRef, newRef  string // schemas.yaml on each side
		compared, found int
	}{
		{"identical with its $ref targets: not loaded", petsMain, pet("string"), pet("string"), 0, 0},
		{"identical document, changed $ref target: compared", petsMain, pet("string"), pet("integer"), 1, 1},
		{"identical, a data $ref to a missing file: not loaded", sampled, pet("string"), pet("string"), 0, 0},
		{"identical, a data $ref to a missing file, changed target: compared", sampled, pet("string"), pet("integer"), 1, 1},
		{"identical, a $ref above the root's folder: not loaded", above, pet("string"), pet("string"), 0, 0},
		{"identical document, a changed file above its folder: compared", above, pet("string"), pet("integer"), 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range map[string]string{"old/api/pets.yaml": tc.main, "old/api/schemas.yaml": tc.oldRef,
				"new/api/pets.yaml": tc.main, "new/api/schemas.yaml": tc.newRef,
				"old/shared/schemas.yaml": tc.oldRef, "new/shared/schemas.yaml": tc.newRef} {
				writeFile(t, filepath.Join(root, name), text)
			}
			src, err := source.OpenDir(root)
			if err != nil {
				t.Fatal(err)
			}
			fs, st := skipRun(t, pipeline.Side{Src: src, Files: []string{"old/api/pets.yaml"}},
				pipeline.Side{Src: src, Files: []string{"new/api/pets.yaml"}})
			if st.Compared != tc.compared || len(fs) < tc.found || (tc.found == 0 && len(fs) > 0) {
				t.Errorf("%d compared, %d findings; want %d compared and findings: %v", st.Compared, len(fs), tc.compared, tc.found > 0)
			}
			if tc.compared == 0 && slices.Contains(phases(st), "load") {
				t.Errorf("identical documents were loaded: phases %v", phases(st))
			}
		})
	}
}

// protoDirs opens root's old/ and new/ folders as the two sides, each with
// every .proto file in it.
func protoDirs(t *testing.T, root string) (old, new pipeline.Side) {
	t.Helper()
	src, err := source.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	side := func(dir string) pipeline.Side {
		files, err := pipeline.ProtoFiles(src, dir)
		if err != nil {
			t.Fatal(err)
		}
		return pipeline.Side{Src: src, Dir: dir, Files: files}
	}
	return side("old"), side("new")
}
