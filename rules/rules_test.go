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

// wantRE finds an inline expectation, written on the line the finding
// points at: `# want rule-a "pattern" rule-b "pattern"` (YAML) or
// `// want rule-a "pattern"` (proto). Each rule ID is followed by a regular
// expression, between double quotes, that its message must match; a quote
// inside one is written \x22.
var (
	wantRE     = regexp.MustCompile(`(?:#|//)\s*want\s+((?:[a-z0-9-]+\s+"[^"]*"\s*)+)$`)
	wantItemRE = regexp.MustCompile(`([a-z0-9-]+)\s+"([^"]*)"`)
	// alsoRE names the rules a case runs beside the one under test
	// (`# also-run rule-a rule-b`): the rules that speak first, supersede it
	// or are ignored in the case. No other rule runs, so a new rule never
	// reaches into another rule's cases.
	alsoRE = regexp.MustCompile(`(?:#|//)\s*also-run\s+([a-z0-9-]+(?:\s+[a-z0-9-]+)*)\s*$`)
	// looseWantRE is a want this test would not read: one without patterns.
	looseWantRE = regexp.MustCompile(`(?:#|//)\s*want\b`)
)

// want is one expected finding: where, which rule, what it says.
type want struct {
	at, rule string
	msg      *regexp.Regexp
}

func (w want) String() string { return fmt.Sprintf("%s %s %q", w.at, w.rule, w.msg) }

// TestRules runs every case under testdata/rules/<rule-id>/<case>/ with only
// the rule under test and the rules its also-run header names, and fails on
// any finding that is not expected inline (rule, line and message), and on
// any expectation unmet. A case holds old/new contracts (a diff) or only new
// (a lint run); an optional level.txt sets the proto level and compat.txt
// the directions judged.
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
			wants, also := expectations(t, dir)
			for _, a := range also {
				if _, ok := reg.Get(a); !ok {
					t.Fatalf("also-run names unknown rule %q", a)
				}
			}
			// Counted, not only matched: a line that wants a rule twice
			// (two reserved ranges released) must get two findings.
			left := slices.Clone(wants)
			for _, f := range runCase(t, reg, dir, append(also, id)) {
				at := fmt.Sprintf("%s:%d", f.Where.File, f.Where.Line)
				i := slices.IndexFunc(left, func(w want) bool { return w.at == at && w.rule == f.Rule && w.msg.MatchString(f.Message) })
				if i < 0 {
					t.Errorf("unexpected finding %s %s: %s", at, f.Rule, f.Message)
					continue
				}
				left = slices.Delete(left, i, i+1)
			}
			for _, w := range left {
				t.Errorf("missing finding %s", w)
			}
		})
	}
}

// TestDeclaredSeverity fails when a rule reports, in any case, a severity
// other than the one it declares (and `contractlint rules` prints): a rule
// with two severities is two rules.
func TestDeclaredSeverity(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "testdata", "rules", "*", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no rule cases found: %v", err)
	}
	reg := rules.Default()
	for _, dir := range cases {
		_, also := expectations(t, dir)
		for _, f := range runCase(t, reg, dir, append(also, filepath.Base(filepath.Dir(dir)))) {
			r, ok := reg.Get(f.Rule)
			if ok && f.Severity != r.Severity {
				t.Errorf("%s: %s reported %s at %s, but declares %s", dir, f.Rule, f.Severity, f.Where, r.Severity)
			}
		}
	}
}

// runCase runs the rules named in run (and no other) over the case in dir.
func runCase(t *testing.T, reg *rules.Registry, dir string, run []string) []rules.Finding {
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Every pack off, then the rules run switched on by name.
	settings := &rules.Settings{Packs: map[string]bool{}, Rules: map[string]bool{}}
	for _, r := range reg.All() {
		settings.Packs[string(r.Pack)] = false
	}
	for _, id := range run {
		settings.Rules[id] = true
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
	return fs
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

// expectations reads the case's inline wants and its also-run header.
func expectations(t *testing.T, dir string) ([]want, []string) {
	var wants []want
	var also []string
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
			if m := alsoRE.FindStringSubmatch(sc.Text()); m != nil {
				also = append(also, strings.Fields(m[1])...)
				continue
			}
			m := wantRE.FindStringSubmatch(sc.Text())
			if m == nil {
				if looseWantRE.MatchString(sc.Text()) {
					t.Errorf("%s:%d: a want names each rule with a message pattern: want rule-id \"pattern\"", rel, line)
				}
				continue
			}
			for _, it := range wantItemRE.FindAllStringSubmatch(m[1], -1) {
				re, err := regexp.Compile(it[2])
				if err != nil {
					t.Errorf("%s:%d: %v", rel, line, err)
					continue
				}
				wants = append(wants, want{at: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), line), rule: it[1], msg: re})
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return wants, also
}
