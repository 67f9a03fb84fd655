// Package pipeline runs the one-way flow: load both sides -> typed model ->
// typed diff -> rules -> filtered findings. The CLI, review and the tests all
// come through here, so every entry point sees the same findings.
package pipeline

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/contractlint/contractlint/internal/chain"
	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// Side is one version of a contract: where its bytes come from, which files
// (root-relative) it consists of, and how its file names are shown.
type Side struct {
	Src source.Source
	// Files are root-relative names: one OpenAPI document, or .proto files.
	Files []string
	// Dir is set when the side is a directory of .proto files (root-relative).
	Dir string
	// Display maps a root-relative name to the name shown in findings.
	Display func(string) string
	// ProtoPaths are this side's own extra import roots (root-relative),
	// searched before Options.ProtoPaths: --proto-path names them from the
	// working directory, so each side maps them into its own root.
	ProtoPaths []string
	// Label names the side in its problems when the two sides show one
	// file name (review's base and head); "" adds nothing.
	Label string
	// ByName compares .proto files by import name even when each side
	// holds one: review's moved file is a deletion and an addition, where
	// `diff a.proto b.proto` compares the two files as one.
	ByName bool
}

// Options shape one run.
type Options struct {
	Settings *rules.Settings
	// Matched, when set, records which of Settings.Accepts matched a
	// finding, across every run of one command (see rules.Matched).
	Matched *rules.Matched
	// Needed, when set, records the largest version bump the command's
	// comparisons need (see rules.Needed).
	Needed   *rules.Needed
	Registry *rules.Registry
	// Stats, when set, receives time and allocations per phase.
	Stats *Stats
	// ProtoPaths are extra import roots (root-relative), like protoc's -I.
	ProtoPaths []string
	// Readers is consumer evidence (--readers); nil when none was given.
	Readers *readers.Set
	// Compared, when set, sees each typed diff Diff judges (review's
	// --changelog lists every change, not only the breaking ones).
	Compared func(*rules.Input)
	// Unmatched, when set, is called once per contract compared with the
	// evidence entries that match nothing in it (possibly none), instead of
	// failing the run: review compares several contracts against one
	// evidence set and judges the entries across them.
	Unmatched func(rules.Format, []readers.Entry)
	// History is the proto field numbers used in earlier versions (review's
	// git walk or contractlint.lock); nil when unknown.
	History *rules.History
	// Whole compares every file, even those unchanged on both sides with
	// everything they import or $ref, which are otherwise left out (the
	// findings are the same; the skip's tests compare the two).
	Whole bool
	// Limits bound what each side may read (file size, nesting, files);
	// zero fields take the defaults.
	Limits limits.Limits
	// Now is the clock the rules judge dates by (Input.Now); nil means the
	// system clock.
	Now func() time.Time
	// Exclude names the parts of a field a diff does not judge, as
	// oasdiff's --exclude-elements: "description", "title", "examples".
	// A meaning change only they showed is then no change.
	Exclude []string
	// bufDrop, set from buf.yaml's breaking ignores (see withBuf), drops
	// the findings buf breaking would not report.
	bufDrop func(rules.Finding) bool
	// loadDoc, when set, stands for openapi.Load: the tests' reference
	// runs share one whole load of a document they all compare (see
	// export_test.go); nil everywhere else.
	loadDoc func(src source.Source, name string, display func(string) string) (*openapi.Doc, error)
	// Cache, when set, keeps the lowering of .proto files between runs
	// (--cache DIR); OpenAPI documents always load.
	Cache protobuf.Cache
	// Held, when set, keeps the old side's OpenAPI documents loaded across
	// runs that all compare against it (the language server's base).
	Held *Held
	// Context, when set, cancels the run: the language server's comparison
	// of a buffer an edit has made stale. It is checked between the
	// phases (scan, load, diff, rules), so a cancelled run returns its
	// error within one phase; nil is never cancelled.
	Context context.Context
}

// cancelled is the run's context error, once it is cancelled.
func (o Options) cancelled() error {
	if o.Context == nil {
		return nil
	}
	return o.Context.Err()
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// FormatOf tells which format a side holds: a directory or .proto file is
// protobuf, anything else is OpenAPI.
func FormatOf(s Side) rules.Format {
	if s.Dir != "" {
		return rules.Proto
	}
	for _, f := range s.Files {
		if strings.EqualFold(path.Ext(f), ".proto") {
			return rules.Proto
		}
	}
	return rules.OpenAPI
}

// Diff compares old with new and returns the findings of the diff rules, plus
// the lint rules' findings that the change made true.
func Diff(old, new Side, o Options) ([]rules.Finding, error) {
	if err := o.cancelled(); err != nil {
		return nil, err
	}
	o, err := withBuf(old, new, o)
	if err != nil {
		return nil, err
	}
	in, sub, err := compare(old, new, o, true)
	if err != nil {
		return nil, err
	}
	if o.Compared != nil {
		o.Compared(in)
	}
	if err := o.cancelled(); err != nil {
		return nil, err
	}
	findings, lint := judge(in, o)
	if needsWhole(sub, findings, lint) {
		o.Stats.rerun()
		o.Whole = true
		return Diff(old, new, o)
	}
	o.Needed.Add(rules.NeededBump(in, findings, nil))
	return findings, nil
}

// needsWhole reports whether a subset run's findings can only be told by
// the whole documents. A lint finding outside the chunks loaded with all
// that reaches them may owe its place in the report to what was left out.
// And the chunks kept only so that $refs resolve were parsed without
// places: a finding there (a changed $ref turned from one to another) has
// none.
func needsWhole(sub *openapi.Subset, findings, lint []rules.Finding) bool {
	incomplete := func(f rules.Finding) bool { return !sub.Complete(f.Path) }
	return slices.ContainsFunc(lint, incomplete) ||
		sub.Unplaced() > 0 && (slices.ContainsFunc(findings, placeless) || slices.ContainsFunc(lint, placeless))
}

// placeless reports whether a finding, or the old place it names, has no
// line.
func placeless(f rules.Finding) bool {
	return f.Where.Line == 0 || f.Old != nil && f.Old.Line == 0
}

// Compare loads both sides and returns the typed diff with what the rules
// read beside it (evidence, history), for callers that show every change
// (changelog) as well as judging them.
func Compare(old, new Side, o Options) (*rules.Input, error) {
	in, _, err := compare(old, new, o, false)
	return in, err
}

// compare is Compare; with subset, an OpenAPI diff may load only the chunks
// a change can reach, and returns which (the caller checks its findings).
func compare(old, new Side, o Options, subset bool) (*rules.Input, *openapi.Subset, error) {
	old, err := guard(old, o)
	if err != nil {
		return nil, nil, err
	}
	if new, err = guard(new, o); err != nil {
		return nil, nil, err
	}
	fo, fn := FormatOf(old), FormatOf(new)
	if fo != fn {
		return nil, nil, source.Errorf(new.display(firstName(new)), 0, 0,
			"cannot compare %s contract with %s contract (%s)", contractNoun(fn), contractNoun(fo), old.display(firstName(old)))
	}
	var in *rules.Input
	var sub *openapi.Subset
	if fo == rules.Proto {
		in, err = diffProto(old, new, o)
	} else {
		in, sub, err = diffOpenAPI(old, new, o, subset)
	}
	if err != nil {
		return nil, nil, err
	}
	if o.Unmatched != nil {
		var unmatched []readers.Entry
		in.Readers, unmatched = o.Readers.BindSome(fo, in.Old, in.New)
		o.Unmatched(fo, unmatched)
	} else if in.Readers, err = o.Readers.Bind(fo, in.Old, in.New); err != nil {
		return nil, nil, err
	}
	in.History = o.History
	excludeElements(in, o.Exclude)
	in.Now = o.now()
	return in, sub, nil
}

// judge runs the diff rules, and the lint rules on what the change made
// true, over a Compare result; it also returns the lint findings among
// those reported.
func judge(in *rules.Input, o Options) (findings, lint []rules.Finding) {
	o.Stats.measure("rules", func() error {
		// Rules only read the input: the lint passes run beside the diff rules.
		var wg sync.WaitGroup
		var made []rules.Finding
		wg.Go(func() { made = newLintFindings(in, o) })
		findings = engine.RunMatched(o.Registry, o.Settings, o.Matched, rules.DiffRule, in)
		wg.Wait()
		// One edit, one finding: what the change made true joins the diff
		// finding about the same element (a field redefined as a float is
		// one field-redefined that also says money-as-float); then what
		// buf.yaml's breaking ignores accept goes.
		findings = chain.Chain{engine.MergeStep{Reg: o.Registry}, chain.Drop{Label: "buf-ignores", Fn: o.bufDrop}, chain.Sort{}}.Run(append(findings, made...)).Findings
		lint = made
		return nil
	})
	return findings, lint
}

// Lint runs the single-contract rules on one side.
func Lint(s Side, o Options) ([]rules.Finding, error) {
	o, err := withBuf(Side{}, s, o)
	if err != nil {
		return nil, err
	}
	c, err := Load(s, o)
	if err == nil {
		err = o.cancelled()
	}
	if err != nil {
		return nil, err
	}
	return engine.RunMatched(o.Registry, o.Settings, o.Matched, rules.LintRule, &rules.Input{New: c}), nil
}

// Load lowers one side into a contract, for callers that read it themselves
// (review's walk through a file's history).
func Load(s Side, o Options) (*rules.Contract, error) {
	s, err := guard(s, o)
	if err != nil {
		return nil, err
	}
	if FormatOf(s) == rules.Proto {
		return lintProto(s, o)
	}
	return lintOpenAPI(s, o)
}

// newLintFindings reports the lint findings on the new side that the diff
// made true: absent on the old side. An operation the change added, or one
// whose relevant part it changed (its key removed, its method changed), has
// a finding the old side lacked; a problem the old side had already is not
// the pull request's, however much else of its operation the change
// touched (golangci-lint's new-from-rev). `lint` still lists everything.
func newLintFindings(in *rules.Input, o Options) []rules.Finding {
	if in.New == nil {
		return nil
	}
	var old []rules.Finding
	var wg sync.WaitGroup
	if in.Old != nil {
		wg.Go(func() {
			old = engine.RunMatched(o.Registry, o.Settings, o.Matched, rules.LintRule, &rules.Input{New: in.Old})
		})
	}
	now := engine.RunMatched(o.Registry, o.Settings, o.Matched, rules.LintRule, &rules.Input{New: in.New})
	wg.Wait()
	before := map[string]bool{}
	for _, f := range old {
		for _, id := range append([]string{f.Rule}, f.Also...) {
			for _, k := range elementKeys(f) {
				before[id+"\x00"+k] = true
			}
		}
	}
	var made []rules.Finding
	for _, f := range now {
		if !allBefore(o.Registry, before, f) {
			made = append(made, f)
		}
	}
	return made
}

// elementKeys are the names under which the old side's lint findings are
// remembered: the element's path, and each operation the finding is about
// (a rule reports an operation once).
func elementKeys(f rules.Finding) []string {
	keys := []string{f.Path}
	for _, op := range f.Operations {
		keys = append(keys, "op\x00"+op)
	}
	return keys
}

// allBefore reports whether every rule a finding stands for reported its
// element on the old side too, itself or a rule it continues: at the same
// path, or on every operation the finding is about. The path alone names an
// element by the layout it is written in: a key parameter that is a
// component in one version and, in the next, a file that several
// operation files $ref (Redocly's split layout) is the same problem on the
// same operations, not a new one.
func allBefore(reg *rules.Registry, before map[string]bool, f rules.Finding) bool {
	had := func(id, key string) bool { return before[id+"\x00"+key] || continued(reg, before, id, key) }
	for _, id := range append([]string{f.Rule}, f.Also...) {
		onOps := len(f.Operations) > 0 && !slices.ContainsFunc(f.Operations, func(op string) bool { return !had(id, "op\x00"+op) })
		if !had(id, f.Path) && !onOps {
			return false
		}
	}
	return true
}

// continued reports whether the old side had, under key, a finding of a
// rule that rule id continues.
func continued(reg *rules.Registry, before map[string]bool, id, key string) bool {
	if reg == nil {
		return false
	}
	r, ok := reg.Get(id)
	if !ok {
		return false
	}
	for _, c := range r.Continues {
		if before[c+"\x00"+key] {
			return true
		}
	}
	return false
}

// contractNoun names a format with its article: "an OpenAPI", "a proto".
func contractNoun(f rules.Format) string {
	if f == rules.OpenAPI {
		return "an OpenAPI"
	}
	return "a " + f.String()
}

func firstName(s Side) string {
	if s.Dir != "" {
		return s.Dir
	}
	if len(s.Files) > 0 {
		return s.Files[0]
	}
	return ""
}

// Shown lists the side's files as findings name them.
func (s Side) Shown() []string {
	out := make([]string, len(s.Files))
	for i, f := range s.Files {
		out[i] = s.display(f)
	}
	return out
}

func (s Side) display(name string) string {
	if s.Display == nil {
		return name
	}
	return s.Display(name)
}

// ProtoFiles lists the .proto files under dir in src, root-relative and
// sorted; a symbolic link is not followed.
func ProtoFiles(src source.Source, dir string) ([]string, error) {
	return protoFiles(src, dir, false)
}

// ModuleFiles lists the .proto files of dir as buf reads a module
// directory: through the symbolic links inside it (buf follows links
// unless told not to), each file once, under the first name the walk meets
// it by, in name order, so a file is named by its link only when the link
// sorts first (shared -> vendor), and a buf.yaml that excludes the first
// name leaves the file out under every name (istio/api's common-protos
// before its google link). A link into a directory the walk is in is not
// followed again.
func ModuleFiles(src source.Source, dir string) ([]string, error) {
	return protoFiles(src, dir, true)
}

func protoFiles(src source.Source, dir string, follow bool) ([]string, error) {
	var out []string
	seen := map[string]bool{} // real names already listed
	add := func(name string) {
		real := name
		if follow {
			if r, err := source.Resolve(src, name); err == nil {
				real = r
			}
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, name)
		}
	}
	var walk func(d string, within []string) error
	walk = func(d string, within []string) error {
		ents, err := src.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := path.Join(d, e.Name())
			isProto := strings.EqualFold(path.Ext(e.Name()), ".proto") // any case, as review selects contracts
			switch {
			case e.IsDir():
				if err := walk(name, within); err != nil {
					return err
				}
			case e.Type()&fs.ModeSymlink == 0:
				if isProto {
					add(name)
				}
			case follow:
				real, isDir, ok := linked(src, name, within)
				switch {
				case ok && isDir:
					if err := walk(name, append(slices.Clip(within), real)); err != nil {
						return err
					}
				case ok && isProto:
					add(name)
				}
			}
		}
		return nil
	}
	top, err := source.Resolve(src, dir)
	if err != nil {
		return nil, err
	}
	return out, walk(dir, []string{top})
}

// linked is what a link leads to, when that is inside the directory walked
// (within[0]) and, for a directory, not one the walk is already in.
func linked(src source.Source, name string, within []string) (real string, isDir, ok bool) {
	real, err := source.Resolve(src, name)
	if err != nil {
		return "", false, false // it leaves the root
	}
	fi, err := src.Stat(real)
	if err != nil {
		return "", false, false
	}
	if top := within[0]; top != "." && real != top && !strings.HasPrefix(real, top+"/") {
		return "", false, false // it leaves the directory compared
	}
	if !fi.IsDir() {
		return real, false, true
	}
	for _, w := range within {
		if w == real || real == "." || strings.HasPrefix(w, real+"/") {
			return "", false, false // a way back up: a cycle
		}
	}
	return real, true, true
}

// guard holds every read of a side to the run's limits, so a $ref or an
// import is bounded like the file that names it.
func guard(s Side, o Options) (Side, error) {
	if err := o.Limits.CheckFiles(s.display(firstName(s)), len(s.Files)); err != nil {
		return s, s.labelled(err)
	}
	s.Src = o.Limits.Guard(s.Src, s.Display)
	return s, nil
}
