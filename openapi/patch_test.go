package openapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// patchCase is one old and new text, as a rule case or an editor has them.
type patchCase struct{ name, old, new string }

// TestPatchIsTheLoad holds Patch to what it stands for, a load of the
// plan's new text: the changes diffed against the held base and the lowered
// contract must be the same, field by field (every place, so a chunk that
// moved down is placed where it now is), on every single-file OpenAPI rule
// case and on edits that move chunks. Patch may refuse only a text whose
// load has problems, whose $refs cannot all be stubbed or point into a
// component, and the test counts that it did not refuse the rest.
func TestPatchIsTheLoad(t *testing.T) {
	cases := patchEdits()
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*", "old.yaml"))
	for _, o := range dirs {
		n := filepath.Join(filepath.Dir(o), "new.yaml")
		ob, oerr := os.ReadFile(o)
		nb, nerr := os.ReadFile(n)
		if oerr != nil || nerr != nil {
			continue
		}
		cases = append(cases, patchCase{filepath.Base(filepath.Dir(filepath.Dir(o))) + "/" + filepath.Base(filepath.Dir(o)), string(ob), string(nb)})
	}
	patchAll(t, cases)
}

// patchAll runs patchOne on every case and counts that Patch stood in for
// half of them at least.
func patchAll(t *testing.T, cases []patchCase) {
	t.Helper()
	patched := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if patchOne(t, tc) {
				patched++
			}
		})
	}
	t.Logf("Patch stood in for %d of %d cases", patched, len(cases))
	if patched < len(cases)/2 {
		t.Errorf("Patch stood in for %d of %d cases", patched, len(cases))
	}
}

// TestLoadOldIsTheLoad holds the diff's loads of a plan to loads of its
// texts on the same cases: the old side parsed as two halves (LoadOld),
// the new side patched from it, field by field as TestPatchIsTheLoad
// compares them; and a whole document parsed as two halves (Cut.Load, the
// language server's base) to its load.
func TestLoadOldIsTheLoad(t *testing.T) {
	cases := patchEdits()
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*", "old.yaml"))
	for _, o := range dirs {
		ob, oerr := os.ReadFile(o)
		nb, nerr := os.ReadFile(filepath.Join(filepath.Dir(o), "new.yaml"))
		if oerr == nil && nerr == nil {
			cases = append(cases, patchCase{filepath.Base(filepath.Dir(filepath.Dir(o))) + "/" + filepath.Base(filepath.Dir(o)), string(ob), string(nb)})
		}
	}
	split := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if whole, ok := NewCut([]byte(tc.old)).Load("old.yaml", nil); ok {
				want, err := Load(memSource(t, map[string]string{"old.yaml": tc.old}), "old.yaml", nil)
				if err != nil {
					t.Fatalf("Cut.Load stood in for a text that does not load: %v", err)
				}
				if d := cmp.Diff(want.Contract(), whole.Contract()); d != "" {
					t.Errorf("the whole document's halves lower otherwise than its load (-load +halves):\n%s", d)
				}
			}
			s, ok := PlanSubset([]byte(tc.old), []byte(tc.new))
			if !ok {
				return
			}
			src := memSource(t, map[string]string{"old.yaml": string(s.OldText()), "new.yaml": string(s.NewText())})
			wantOld, oerr := Load(src, "old.yaml", nil)
			wantNew, nerr := Load(src, "new.yaml", nil)
			got, ok := s.LoadOld("old.yaml", nil)
			if !ok {
				if oerr == nil && len(wantOld.Problems) == 0 && halvesOK(s) && !s.o.asText {
					t.Errorf("LoadOld refused a plan whose old text loads without problems")
				}
				return
			}
			split++
			if oerr != nil {
				t.Fatalf("LoadOld stood in for a text that does not load: %v", oerr)
			}
			if d := cmp.Diff(wantOld.Contract(), got.Contract(), unplaced(s)); d != "" {
				t.Errorf("the halves lower otherwise than the load (-load +halves):\n%s", d)
			}
			patched, ok := got.Patch(s.Cut(), s, "new.yaml", nil)
			if !ok || nerr != nil {
				return
			}
			if d := cmp.Diff(Diff(wantOld, wantNew), Diff(got, patched), unplaced(s)); d != "" {
				t.Errorf("changes of the halves and the patch differ from the loads' (-loads +halves):\n%s", d)
			}
		})
	}
	t.Logf("LoadOld stood in for %d of %d cases", split, len(cases))
	if split < len(cases)/2 {
		t.Errorf("LoadOld stood in for %d of %d cases", split, len(cases))
	}
}

// unplaced lets a place be missing where LoadOld parsed without places:
// in a chunk kept only so that $refs resolve, on the old side (old.yaml) or
// where Patch reused it on the new (new.yaml). Every other place must be the
// load's.
func unplaced(s *Subset) cmp.Option {
	bare := map[string][][2]int{} // by file, line ranges, 1-based, both ends in
	_, bareChunks := s.placement()
	for p := range bareChunks {
		if c := s.o.chunks[p]; c != nil {
			bare["old.yaml"] = append(bare["old.yaml"], [2]int{c.first + 1, c.end})
			if n := s.n.chunks[p]; n != nil && !s.changed[p] {
				bare["new.yaml"] = append(bare["new.yaml"], [2]int{n.first + 1, n.end})
			}
		}
	}
	in := func(l rules.Location) bool {
		for _, r := range bare[l.File] {
			if r[0] <= l.Line && l.Line <= r[1] {
				return true
			}
		}
		return false
	}
	lost := func(a, b rules.Location) bool { return a.Line == 0 && a.Column == 0 && a.File == b.File && in(b) }
	return cmp.Comparer(func(a, b rules.Location) bool { return a == b || lost(a, b) || lost(b, a) })
}

// patchOne compares Patch with the load on one case; false when there was
// no plan or Patch refused, as it may.
func patchOne(t *testing.T, tc patchCase) bool {
	t.Helper()
	src := memSource(t, map[string]string{"old.yaml": tc.old, "new.yaml": tc.new})
	base, err := Load(src, "old.yaml", nil)
	if err != nil {
		return false
	}
	c := NewCut([]byte(tc.old))
	s, ok := PlanSubsetCut(c, []byte(tc.new))
	if !ok {
		return false
	}
	old, ok := base.Restrict(c, s)
	if !ok {
		return false
	}
	got, ok := base.Patch(c, s, "new.yaml", nil)
	if !ok {
		want, err := Load(textSource{src, "new.yaml", s.NewText()}, "new.yaml", nil)
		if _, _, stubs := s.fragment(); err == nil && len(want.Problems) == 0 && stubs && !s.o.asText && !s.n.asText {
			t.Errorf("Patch refused a plan whose text loads without problems")
		}
		return false
	}
	want, err := Load(textSource{src, "new.yaml", s.NewText()}, "new.yaml", nil)
	if err != nil {
		t.Fatalf("Patch stood in for a text that does not load: %v", err)
	}
	if d := cmp.Diff(Diff(old, want), Diff(old, got)); d != "" {
		t.Errorf("changes against the patched model differ from the load's (-load +patched):\n%s", d)
	}
	if d := cmp.Diff(want.Contract(), got.Contract()); d != "" {
		t.Errorf("the patched model lowers otherwise than the load (-load +patched):\n%s", d)
	}
	return true
}

// patchEdits are edits of a small document as an editor makes them: a
// line added in a shared schema moves every chunk below it, a $ref turned
// to another schema, a path added above the others.
func patchEdits() []patchCase {
	old := subsetDoc(pathA+pathC, schA+schB+schC)
	return []patchCase{
		{"a shared schema grows, moving what follows", old,
			subsetDoc(pathA+pathC, "    A:\n      type: object\n      description: grown\n      required: [b]\n      properties:\n        b:\n          $ref: '#/components/schemas/B'\n"+schB+schC)},
		{"a schema reached through another changes type", old, subsetDoc(pathA+pathC, schA+"    B:\n      type: integer\n"+schC)},
		{"a path's $ref turns to another schema", old, subsetDoc(strings.Replace(pathA, "schemas/A", "schemas/C", 1)+pathC, schA+schB+schC)},
		{"a path is added above the others", old, subsetDoc("  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n"+pathA+pathC, schA+schB+schC)},
		{"lines removed above a reused path", old, subsetDoc(pathA+pathC, "    A:\n      type: object\n"+schB+schC)},
	}
}

// halvesOK reports whether every $ref the halves of s's old side make can
// be stubbed.
func halvesOK(s *Subset) bool {
	_, ok := s.o.halves(s.keep)
	return ok
}

// memSource is a tree holding the given files, read from memory: the
// cases load hundreds of small documents, and writing each to a directory
// cost more system time than loading it.
func memSource(t *testing.T, files map[string]string) source.Source {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	return source.FS{Name: "working tree", FS: fsys}
}

// textSource serves one name's text from memory, the rest from src.
type textSource struct {
	source.Source
	name string
	text []byte
}

func (s textSource) ReadFile(name string) ([]byte, error) {
	if name == s.name {
		return s.text, nil
	}
	return s.Source.ReadFile(name)
}
