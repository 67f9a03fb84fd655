package rules_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// wantRE finds an inline expectation: `# want rule-a rule-b` (YAML) or
// `// want rule-a` (proto), written on the line the finding points at.
var wantRE = regexp.MustCompile(`(?:#|//)\s*want\s+([a-z0-9-]+(?:\s+[a-z0-9-]+)*)\s*$`)

// TestRules runs every case under testdata/rules/<rule-id>/<case>/ and fails
// on any finding that is not expected inline, and on any expectation unmet.
// A case holds old/new contracts (a diff) or only new (a lint run); an
// optional level.txt sets the proto level, compat.txt the directions judged
// and off.txt switches packs or rules off.
func TestRules(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases found: %v", err)
	}
	reg := rules.Default()
	for _, dir := range cases {
		id := filepath.Base(filepath.Dir(dir))
		t.Run(id+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			if _, ok := reg.Get(id); !ok && id != rules.UnusedIgnoreID {
				t.Fatalf("testdata names unknown rule %q", id)
			}
			got := runCase(t, reg, dir, id)
			want := expectations(t, dir)
			// Counted, not only matched: a line that wants a rule twice
			// (two reserved ranges released) must get two findings.
			left := slices.Clone(want)
			for _, k := range got {
				if i := slices.Index(left, k); i >= 0 {
					left = slices.Delete(left, i, i+1)
				} else {
					t.Errorf("unexpected finding %s", k)
				}
			}
			for _, k := range left {
				t.Errorf("missing finding %s", k)
			}
		})
	}
}

func runCase(t *testing.T, reg *rules.Registry, dir, id string) []string {
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	settings := &rules.Settings{Rules: map[string]bool{id: true}}
	// off.txt lists packs or rules the case switches off, to show what a
	// rule says when the rules that usually speak first are not running.
	if b, err := os.ReadFile(filepath.Join(dir, "off.txt")); err == nil {
		settings.Packs = map[string]bool{}
		for _, name := range strings.Fields(string(b)) {
			if _, isRule := reg.Get(name); isRule {
				settings.Rules[name] = false
			} else {
				settings.Packs[name] = false
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "level.txt")); err == nil {
		if settings.ProtoLevel, err = rules.ParseProtoLevel(strings.TrimSpace(string(b))); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "compat.txt")); err == nil {
		if settings.Compat, err = rules.ParseCompat(string(b)); err != nil {
			t.Fatal(err)
		}
	}
	o := pipeline.Options{Registry: reg, Settings: settings}
	if fi, err := os.Stat(filepath.Join(dir, "readers")); err == nil && fi.IsDir() {
		// Evidence is judged on a fixed day so that cases do not age.
		now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		if o.Readers, err = readers.Load(dir, []string{filepath.Join(dir, "readers")}, readers.DefaultWindow, now, limits.DefaultFileSize, func(string) {}); err != nil {
			t.Fatal(err)
		}
	}
	newSide, hasNew := side(src, dir, "new")
	oldSide, hasOld := side(src, dir, "old")
	if !hasNew {
		t.Fatalf("case has no new.yaml, new.json or new/")
	}
	var fs []rules.Finding
	if hasOld {
		fs, err = pipeline.Diff(oldSide, newSide, o)
	} else {
		fs, err = pipeline.Lint(newSide, o)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var keys []string
	for _, f := range fs {
		keys = append(keys, fmt.Sprintf("%s:%d %s", f.Where.File, f.Where.Line, f.Rule))
	}
	return keys
}

func side(src source.Source, dir, name string) (pipeline.Side, bool) {
	if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.IsDir() {
		files, err := pipeline.ProtoFiles(src, name)
		return pipeline.Side{Src: src, Dir: name, Files: files}, err == nil
	}
	for _, ext := range []string{".yaml", ".yml", ".json", ".proto"} {
		if _, err := os.Stat(filepath.Join(dir, name+ext)); err == nil {
			return pipeline.Side{Src: src, Files: []string{name + ext}}, true
		}
	}
	return pipeline.Side{}, false
}

func expectations(t *testing.T, dir string) []string {
	var want []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			if m := wantRE.FindStringSubmatch(sc.Text()); m != nil {
				for _, id := range strings.Fields(m[1]) {
					want = append(want, fmt.Sprintf("%s:%d %s", filepath.ToSlash(rel), line, id))
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}
