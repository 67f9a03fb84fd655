package rules_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/ruletest"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// storyPairs are the versions of testdata/story and testdata/examples a
// user diffs one after the other.
var storyPairs = [][2]string{
	{"story/v1.yaml", "story/v2-bad.yaml"}, {"story/v1.yaml", "story/v2-good.yaml"},
	{"story/v1-string.yaml", "story/v2-string-cents.yaml"}, {"story/v1-unstated.yaml", "story/v2-unstated-cents.yaml"},
	{"story/v2-good.yaml", "story/v3.yaml"}, {"story/v3.yaml", "story/v4.yaml"},
	{"story/proto-v1", "story/proto-v2"}, {"examples/tickets-v1.yaml", "examples/tickets-v2.yaml"},
}

// TestOneEditOneFinding runs every rule (every pack, the rules off by
// default too, both compat directions, every proto level) over every pair
// in testdata and fails when two findings report one edit: the same element
// on the same side, in one file and direction. Only rules declared Apart
// (each finding one part of the element: a range, a reservation) may, and
// lint findings beside each other (each is its own problem to fix) or
// beside an edit that did not make them true.
func TestOneEditOneFinding(t *testing.T) {
	reg := rules.Default()
	cases, err := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases found: %v", err)
	}
	sampled := map[string]bool{} // rules whose first diff case is in the race sample
	for _, dir := range cases {
		oldSide, newSide, ok := casePair(t, dir)
		if !ok {
			continue // a lint case
		}
		rule := filepath.Base(filepath.Dir(dir))
		inSample := !sampled[rule]
		sampled[rule] = true
		t.Run(strings.TrimPrefix(filepath.ToSlash(dir), "../testdata/rules/"), func(t *testing.T) {
			if !inSample {
				skipRaceSample(t)
			}
			t.Parallel()
			o := pipeline.Options{Registry: reg}
			if fi, err := os.Stat(filepath.Join(dir, "readers")); err == nil && fi.IsDir() {
				now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
				if o.Readers, err = readers.Load(dir, []string{filepath.Join(dir, "readers")}, readers.DefaultWindow, now, limits.DefaultFileSize, func(string) {}); err != nil {
					t.Fatal(err)
				}
			}
			checkEdits(t, reg, oldSide, newSide, o)
		})
	}
	for _, p := range storyPairs {
		t.Run(p[0]+"->"+p[1], func(t *testing.T) {
			t.Parallel()
			src, err := source.OpenDir(filepath.Join("..", "testdata"))
			if err != nil {
				t.Fatal(err)
			}
			checkEdits(t, reg, testdataSide(t, src, p[0]), testdataSide(t, src, p[1]), pipeline.Options{Registry: reg})
		})
	}
}

// TestMain runs the tests with the collector's target raised: most of
// their CPU is loading whole corpus documents (Stripe's) (see corpus.LoadingGC).
func TestMain(m *testing.M) {
	corpus.LoadingGC()
	os.Exit(m.Run())
}

// TestOneEditOneFindingCorpus is TestOneEditOneFinding on the real
// contracts of the corpus: adjacent Stripe versions, and googleapis six
// months apart (a sample of its APIs unless corpus.Full).
func TestOneEditOneFindingCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the corpus")
	}
	skipRaceSample(t)
	reg := rules.Default()
	t.Run("stripe", func(t *testing.T) {
		const a, b = "stripe-spec3-2023-09-11.yaml", "stripe-spec3-2023-09-12.yaml"
		src := corpusDocs(t, a, b)
		checkEditsAt(t, reg, pipeline.Side{Src: src, Files: []string{a}}, pipeline.Side{Src: src, Files: []string{b}},
			pipeline.Options{Registry: reg}, []rules.ProtoLevel{rules.LevelWireJSON})
	})
	t.Run("googleapis", func(t *testing.T) {
		// Read in memory: writing both trees' 13,000 files to disk was
		// most of this test's CPU.
		tree := fstest.MapFS{}
		for side, name := range map[string]string{"old": "googleapis-2026-02-20.tar.gz", "new": "googleapis-2026-08-22.tar.gz"} {
			for rel, b := range corpus.Protos(t, name) {
				tree[side+"/"+rel] = &fstest.MapFile{Data: b, Mode: 0o644}
			}
		}
		src := source.FS{FS: tree, Name: "googleapis"}
		var old, new pipeline.Side
		if corpus.Full() {
			old, new = testdataSide(t, src, "old"), testdataSide(t, src, "new")
		} else {
			old = pipeline.Side{Src: src, Dir: "old", Files: sampleFiles(tree, "old/")}
			new = pipeline.Side{Src: src, Dir: "new", Files: sampleFiles(tree, "new/")}
		}
		n := checkEditsAt(t, reg, old, new, pipeline.Options{Registry: reg}, []rules.ProtoLevel{rules.LevelFile})
		t.Logf("%d findings over %d and %d files", n, len(old.Files), len(new.Files))
		if n == 0 {
			t.Error("no finding: nothing was checked")
		}
	})
}

// corpusDocs is a source holding the named documents of the corpus,
// unpacked in memory.
func corpusDocs(t *testing.T, names ...string) source.Source {
	tree := fstest.MapFS{}
	for _, n := range names {
		tree[n] = &fstest.MapFile{Data: corpus.Text(t, n), Mode: 0o644}
	}
	return source.FS{FS: tree, Name: "corpus"}
}

// googleapisSample are the APIs of googleapis whose six months the default
// run checks (compiling all 6,757 files of each side takes two minutes of
// CPU; CI checks them all, see corpus.Full): files added, changed and
// removed, a whole API removed (apigeeregistry), with the common protos
// they import read as imports.
var googleapisSample = []string{
	"google/chat/v1/", "google/firestore/v1/", "google/maps/routing/", "google/cloud/batch/",
	"google/cloud/apigeeregistry/", "google/bigtable/v2/",
}

// sampleFiles lists the files of googleapisSample's APIs in tree (named
// under dir) in the order pipeline.ProtoFiles walks them, without its walk
// of every directory (an in-memory tree reads each one whole).
func sampleFiles(tree fstest.MapFS, dir string) []string {
	var out []string
	for f := range tree {
		for _, p := range googleapisSample {
			if strings.HasPrefix(f, dir+p) {
				out = append(out, f)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/")) })
	return out
}

// casePair opens a rule case's old and new sides; ok is false for a lint
// case (no old side).
func casePair(t *testing.T, dir string) (old, new pipeline.Side, ok bool) {
	src := memDir(t, dir)
	old, hasOld := ruletest.Side(src, dir, "old")
	new, hasNew := ruletest.Side(src, dir, "new")
	return old, new, hasOld && hasNew
}

// memDir is a source holding the files under dir, read into memory once:
// the tests that diff a case several times (at each proto level, and its
// old side's lint) read each file once from disk.
func memDir(t *testing.T, dir string) source.Source {
	tree := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		tree[filepath.ToSlash(rel)] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return source.FS{FS: tree, Name: dir}
}

// testdataSide is a file or a directory of .proto files under testdata.
func testdataSide(t *testing.T, src source.Source, name string) pipeline.Side {
	if strings.HasSuffix(name, ".yaml") {
		return pipeline.Side{Src: src, Files: []string{name}}
	}
	files, err := pipeline.ProtoFiles(src, name)
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.Side{Src: src, Dir: name, Files: files}
}

func checkEdits(t *testing.T, reg *rules.Registry, old, new pipeline.Side, o pipeline.Options) {
	levels := []rules.ProtoLevel{rules.LevelWireJSON}
	if pipeline.FormatOf(new) == rules.Proto {
		levels = []rules.ProtoLevel{rules.LevelFile, rules.LevelPackage, rules.LevelWireJSON, rules.LevelWire}
	}
	checkEditsAt(t, reg, old, new, o, levels)
}

// checkEditsAt diffs old and new with every rule on, at each level,
// reports findings that share an edit, and returns how many findings the
// levels made.
func checkEditsAt(t *testing.T, reg *rules.Registry, old, new pipeline.Side, o pipeline.Options, levels []rules.ProtoLevel) (findings int) {
	t.Helper()
	// The old side's lint findings, by the lint rules a level runs: the
	// levels that run the same ones (every level, unless a lint rule
	// declares Levels) lint the old side once.
	lintBy := map[string]map[string]bool{}
	for _, lv := range levels {
		s := &rules.Settings{Rules: map[string]bool{}, ProtoLevel: lv, Compat: rules.Full}
		for _, r := range reg.All() {
			s.Rules[r.ID] = true
		}
		o.Settings = s
		fs, err := pipeline.Diff(old, new, o)
		if err != nil {
			t.Fatalf("level %v: %v", lv, err)
		}
		findings += len(fs)
		// A lint finding the old side had too is no part of the edit (diff
		// does not report it; the filter keeps this check independent of that).
		// Linting the old side is a whole load of it: only a lint finding
		// asks for it.
		k := lintRulesAt(reg, lv)
		ofEdit := func(f rules.Finding) bool {
			if !isLint(reg, f.Rule) {
				return true
			}
			before, ok := lintBy[k]
			if !ok {
				oldLint, err := pipeline.Lint(old, o)
				if err != nil {
					t.Fatalf("level %d: lint old side: %v", lv, err)
				}
				before = map[string]bool{}
				for _, f := range oldLint {
					before[f.Rule+" "+f.Path] = true
				}
				lintBy[k] = before
			}
			return !before[f.Rule+" "+f.Path]
		}
		seen := map[edit][]rules.Finding{}
		for _, f := range fs {
			if f.Path == "" {
				t.Errorf("%s at %s names no element: %s", f.Rule, f.Where, f.Message)
				continue
			}
			if apart(reg, f.Rule) || !ofEdit(f) {
				continue
			}
			k := edit{f.Where.File, f.Path, f.Removed, f.Compat}
			for _, g := range seen[k] {
				// Lint findings are states of the new contract, each
				// its own problem: two of them are two things to fix.
				if isLint(reg, g.Rule) && isLint(reg, f.Rule) {
					continue
				}
				t.Errorf("level %d: one edit, two findings about %s:\n  %s\n  %s", lv, k.path,
					describe(g), describe(f))
			}
			seen[k] = append(seen[k], f)
		}
	}
	return findings
}

// lintRulesAt names the lint rules that run at proto level lv.
func lintRulesAt(reg *rules.Registry, lv rules.ProtoLevel) string {
	var ids []string
	for _, r := range reg.All() {
		if r.Mode == rules.LintRule && (r.Levels == 0 || r.Levels&lv != 0) {
			ids = append(ids, r.ID)
		}
	}
	return strings.Join(ids, " ")
}

// edit is what a finding reports: one element on one side, in one file,
// judged in one direction.
type edit struct {
	file, path string
	removed    bool
	compat     rules.Compat
}

// apart reports whether a rule is declared to report a different edit with
// each finding about one element.
func apart(reg *rules.Registry, id string) bool {
	r, ok := reg.Get(id)
	return ok && r.Apart
}

func isLint(reg *rules.Registry, id string) bool {
	r, ok := reg.Get(id)
	return ok && r.Mode == rules.LintRule
}

func describe(f rules.Finding) string {
	return fmt.Sprintf("%s %s %s: %s", f.Where, f.Severity, f.Rule, f.Message)
}

// skipRaceSample skips a corpus test, or a rule's fixture cases after its
// first in TestOneEditOneFinding, under -race unless corpus.Full: the plain
// run checks them all, the full run under -race too. (TestRules runs every
// case under -race, in parallel, through the same pipeline.)
func skipRaceSample(t *testing.T) {
	t.Helper()
	if raceEnabled && !corpus.Full() {
		t.Skip("not in the -race sample: the race detector makes the pipeline several times slower; the plain run checks it, and the full run (CI=true or CONTRACTLINT_FULL=1) under -race too")
	}
}
