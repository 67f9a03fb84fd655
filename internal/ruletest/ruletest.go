// Package ruletest runs rule fixtures: a case directory holds an old and a
// new contract (a diff) or only a new one (a lint run), and the findings it
// must produce are written inline, on the line each points at:
// `# want rule-a "pattern"` (YAML) or `// want rule-a "pattern"` (proto).
// The built-in rules' tests and `contractlint test` both run through it, so
// a team's own rules are tested exactly as contractlint's are.
package ruletest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Rule IDs in wants may be namespaced (acme/amount-needs-unit). Each rule ID
// is followed by a regular expression, between double quotes, that its
// message must match; a quote inside one is written \x22.
var (
	wantRE     = regexp.MustCompile(`(?:#|//)\s*want\s+((?:[a-z0-9/-]+\s+"[^"]*"\s*)+)$`)
	wantItemRE = regexp.MustCompile(`([a-z0-9/-]+)\s+"([^"]*)"`)
	// alsoRE names the rules a case runs beside the one under test
	// (`# also-run rule-a rule-b`): the rules that speak first, supersede it
	// or are ignored in the case. No other rule runs, so a new rule never
	// reaches into another rule's cases.
	alsoRE = regexp.MustCompile(`(?:#|//)\s*also-run\s+([a-z0-9/-]+(?:\s+[a-z0-9/-]+)*)\s*$`)
	// looseWantRE is a want this harness would not read: one without patterns.
	looseWantRE = regexp.MustCompile(`(?:#|//)\s*want\b`)
)

// Want is one expected finding: where, which rule, what it says.
type Want struct {
	At, Rule string
	Msg      *regexp.Regexp
}

func (w Want) String() string { return fmt.Sprintf("%s %s %q", w.At, w.Rule, w.Msg) }

// Case is one fixture directory and the rule it tests: the directory
// holding it, relative to the root of the cases (rule-id/case-name).
type Case struct {
	Dir, Rule string
}

// Cases finds every case under root: each directory holding a new side
// (new.yaml, new.yml, new.json, new.proto or new/), whose parent, relative
// to root, names the rule it tests.
func Cases(root string) ([]Case, error) {
	var out []Case
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == root {
			return err
		}
		if _, ok := sideOf(p, "new"); !ok {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil || rel == "." {
			return fmt.Errorf("%s: a case sits in a directory named for its rule (RULE-ID/CASE)", p)
		}
		out = append(out, Case{Dir: p, Rule: filepath.ToSlash(rel)})
		return filepath.SkipDir
	})
	return out, err
}

// Expectations reads the case's inline wants and its also-run header; a
// malformed want is an error naming its file and line.
func Expectations(dir string) ([]Want, []string, error) {
	var wants []Want
	var also []string
	var probs []error
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
			if !strings.Contains(sc.Text(), "want") && !strings.Contains(sc.Text(), "also-run") {
				continue // the common line: no regular expression can match it
			}
			if m := alsoRE.FindStringSubmatch(sc.Text()); m != nil {
				also = append(also, strings.Fields(m[1])...)
				continue
			}
			m := wantRE.FindStringSubmatch(sc.Text())
			if m == nil {
				if looseWantRE.MatchString(sc.Text()) {
					probs = append(probs, fmt.Errorf("%s:%d: a want names each rule with a message pattern: want rule-id \"pattern\"", rel, line))
				}
				continue
			}
			for _, it := range wantItemRE.FindAllStringSubmatch(m[1], -1) {
				re, err := regexp.Compile(it[2])
				if err != nil {
					probs = append(probs, fmt.Errorf("%s:%d: %v", rel, line, err))
					continue
				}
				wants = append(wants, Want{At: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), line), Rule: it[1], Msg: re})
			}
		}
		return sc.Err()
	})
	if err != nil {
		return nil, nil, err
	}
	return wants, also, errors.Join(probs...)
}

// Check runs case c with only its rule and the rules its also-run header
// names, and returns every finding not expected inline (rule, line and
// message) and every expectation unmet, one line each; none when it passes.
// An error means the case could not run.
func Check(reg *rules.Registry, c Case) ([]string, error) {
	_, fails, err := CheckFindings(reg, c)
	return fails, err
}

// CheckFindings is Check that returns the case's findings too, for a test
// that holds them to more than the inline expectations (each rule's
// declared severity) without running the case again.
func CheckFindings(reg *rules.Registry, c Case) ([]rules.Finding, []string, error) {
	wants, also, err := Expectations(c.Dir)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range append([]string{c.Rule}, also...) {
		if _, ok := reg.Get(id); !ok && id != rules.UnusedIgnoreID {
			return nil, nil, fmt.Errorf("%s: names unknown rule %q", c.Dir, id)
		}
	}
	fs, err := Run(reg, c.Dir, append(also, c.Rule))
	if err != nil {
		return nil, nil, err
	}
	// Counted, not only matched: a line that wants a rule twice (two
	// reserved ranges released) must get two findings.
	var fails []string
	left := slices.Clone(wants)
	for _, f := range fs {
		at := fmt.Sprintf("%s:%d", f.Where.File, f.Where.Line)
		i := slices.IndexFunc(left, func(w Want) bool { return w.At == at && w.Rule == f.Rule && w.Msg.MatchString(f.Message) })
		if i < 0 {
			fails = append(fails, fmt.Sprintf("unexpected finding %s %s: %s", at, f.Rule, f.Message))
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	for _, w := range left {
		fails = append(fails, fmt.Sprintf("missing finding %s", w))
	}
	return fs, fails, nil
}

// Run runs the rules named in run (and no other) over the case in dir. An
// optional level.txt sets the proto level, compat.txt the directions
// judged and history.json the field numbers earlier versions used; a readers/ directory is consumer evidence, judged on a fixed day
// so that cases do not age.
func Run(reg *rules.Registry, dir string, run []string) ([]rules.Finding, error) {
	src, err := source.OpenDir(dir)
	if err != nil {
		return nil, err
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
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "level.txt"), err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "compat.txt")); err == nil {
		if settings.Compat, err = rules.ParseCompat(string(b)); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "compat.txt"), err)
		}
	}
	o := pipeline.Options{Registry: reg, Settings: settings}
	if b, err := os.ReadFile(filepath.Join(dir, "history.json")); err == nil {
		// The earlier uses of field numbers review's walk of git history
		// would find, as contractlint.lock records them.
		o.History = &rules.History{}
		if err := json.Unmarshal(b, &o.History.Used); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "history.json"), err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "readers")); err == nil && fi.IsDir() {
		now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		if o.Readers, err = readers.Load(dir, []string{filepath.Join(dir, "readers")}, readers.DefaultWindow, now, limits.DefaultFileSize, func(string) {}); err != nil {
			return nil, err
		}
	}
	newSide, hasNew := Side(src, dir, "new")
	oldSide, hasOld := Side(src, dir, "old")
	if !hasNew {
		return nil, fmt.Errorf("%s: case has no new.yaml, new.json, new.proto or new/", dir)
	}
	if hasOld {
		return pipeline.Diff(oldSide, newSide, o)
	}
	return pipeline.Lint(newSide, o)
}

// sideOf names the file (or directory) holding one side of the case in dir.
func sideOf(dir, name string) (string, bool) {
	if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.IsDir() {
		return name, true
	}
	for _, ext := range []string{".yaml", ".yml", ".json", ".proto"} {
		if _, err := os.Stat(filepath.Join(dir, name+ext)); err == nil {
			return name + ext, true
		}
	}
	return "", false
}

// Side opens one side (old or new) of the case in dir: a file, or a
// directory of .proto files; false when the case has no such side.
func Side(src source.Source, dir, name string) (pipeline.Side, bool) {
	file, ok := sideOf(dir, name)
	if !ok {
		return pipeline.Side{}, false
	}
	if file == name {
		files, err := pipeline.ProtoFiles(src, name)
		return pipeline.Side{Src: src, Dir: name, Files: files}, err == nil
	}
	return pipeline.Side{Src: src, Files: []string{file}}, true
}
