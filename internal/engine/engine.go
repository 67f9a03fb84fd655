// Package engine runs rules over a typed diff and passes their findings
// through the comparison's chain of named steps (Comparison, of
// internal/chain's Step): supersession, inline ignores, config accepts,
// ignored paths, severity overrides, de-duplication, one finding per edit,
// the version gate (whose findings pass the same steps), unused inline
// ignores and order. The rules themselves, and the
// model they read, live in package rules.
package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/chain"
	"github.com/contractlint/contractlint/internal/glob"
	"github.com/contractlint/contractlint/rules"
)

// Run runs the enabled rules of mode m over in and passes the findings through
// the filters (supersession, ignores, paths, severities, de-duplication, one
// finding per edit, order).
func Run(reg *rules.Registry, s *rules.Settings, m rules.Mode, in *rules.Input) []rules.Finding {
	return RunMatched(reg, s, nil, m, in)
}

// RunMatched is Run, also recording in matched (when not nil) each of
// s.Accepts that dropped a finding, for the command to report those that
// never did.
func RunMatched(reg *rules.Registry, s *rules.Settings, matched *rules.Matched, m rules.Mode, in *rules.Input) []rules.Finding {
	var out []rules.Finding
	for _, r := range reg.All() {
		if r.Mode != m || !s.Enabled(r) || r.Check == nil || !s.Judges(r) {
			continue
		}
		// buf's strictness levels: a proto rule outside the chosen one does not run.
		if r.Levels != 0 && r.Levels&s.Level() == 0 {
			continue
		}
		out = append(out, withBump(r, s.Labelled(r, r.Check(in)))...)
	}
	return Comparison(reg, s, matched, m, in).Run(out).Findings
}

// Comparison is the chain (internal/chain) a comparison's findings pass, in
// order: supersession, inline ignores, config accepts, ignored paths,
// severity overrides, de-duplication, one finding per edit, the version
// gate (whose findings pass the same steps from the inline ignores on),
// unused inline ignores and order. The command's own chain (chain.For)
// follows, once every comparison ran.
func Comparison(reg *rules.Registry, s *rules.Settings, matched *rules.Matched, m rules.Mode, in *rules.Input) chain.Chain {
	ignores := newIgnoreSet(reg, in)
	// rest is the chain after the inline ignores, in order; every finding
	// passes it, whatever made it.
	rest := chain.Chain{acceptsStep{s, matched}, pathsStep{s}, severityStep{s}, dedupeStep{}}
	if m == rules.DiffRule {
		rest = append(rest, MergeStep{reg})
	}
	inline := inlineStep{ignores: ignores, rest: rest, matched: matched}
	steps := chain.Chain{supersedeStep{reg}, inline}
	steps = append(steps, rest...)
	// The version gate holds the declared version to what the findings
	// left need, and its own findings are accepted like any rule's; an
	// inline ignore is judged unused only once they are.
	if m == rules.DiffRule && gateOn(reg, s) {
		steps = append(steps, gateStep{in: in, after: append(chain.Chain{inline}, rest...)})
	}
	return append(steps, unusedStep{ignores: ignores, mode: m, rest: rest}, chain.Sort{})
}

type supersedeStep struct{ reg *rules.Registry }

func (supersedeStep) Name() string { return "supersede" }

func (x supersedeStep) Process(set *chain.Set) { set.Findings = supersede(x.reg, set.Findings) }

// inlineStep drops what the contracts' inline ignores accept; what only an
// ignore the change itself added accepted passes the rest of the chain
// and is recorded, for every report to show.
type inlineStep struct {
	ignores *ignoreSet
	rest    chain.Chain
	matched *rules.Matched
}

func (inlineStep) Name() string { return "inline-ignores" }

func (x inlineStep) Process(set *chain.Set) {
	kept, added := x.ignores.drop(set.Findings)
	for i, acc := range added {
		x.matched.Accept(x.ignores.all[i], x.rest.Run(acc).Findings)
	}
	set.Findings = kept
}

type acceptsStep struct {
	s       *rules.Settings
	matched *rules.Matched
}

func (acceptsStep) Name() string { return "config-accepts" }

func (x acceptsStep) Process(set *chain.Set) {
	set.Findings = applyAccepts(set.Findings, x.s, x.matched)
}

type pathsStep struct{ s *rules.Settings }

func (pathsStep) Name() string { return "ignored-paths" }

func (x pathsStep) Process(set *chain.Set) {
	set.Findings = dropPaths(set.Findings, x.s.IgnorePaths, x.s.IgnoreName)
}

type severityStep struct{ s *rules.Settings }

func (severityStep) Name() string { return "severity" }

func (x severityStep) Process(set *chain.Set) {
	set.Findings = overrideSeverity(set.Findings, x.s.Severity)
}

type dedupeStep struct{}

func (dedupeStep) Name() string { return "dedupe" }

func (dedupeStep) Process(set *chain.Set) { set.Findings = dedupe(set.Findings) }

// MergeStep is one finding per edit (Merge), as a step: the pipeline runs
// it again once the lint findings a change made true join the diff's.
type MergeStep struct{ Reg *rules.Registry }

func (MergeStep) Name() string { return "one-finding-per-edit" }

func (x MergeStep) Process(set *chain.Set) { set.Findings = Merge(x.Reg, set.Findings) }

// gateStep adds the version gate's findings, passed through after.
type gateStep struct {
	in    *rules.Input
	after chain.Chain
}

func (gateStep) Name() string { return "version-gate" }

func (x gateStep) Process(set *chain.Set) {
	set.Findings = append(set.Findings, x.after.Run(rules.VersionGate(x.in, set.Findings)).Findings...)
}

// unusedStep adds an unused-ignore for every inline ignore that matched
// nothing, passed through the rest of the chain.
type unusedStep struct {
	ignores *ignoreSet
	mode    rules.Mode
	rest    chain.Chain
}

func (unusedStep) Name() string { return "unused-ignores" }

func (x unusedStep) Process(set *chain.Set) {
	set.Findings = append(set.Findings, x.rest.Run(x.ignores.unused(x.mode)).Findings...)
}

// gateOn reports whether the version gate runs (--fail-on version-bump or
// the config turned its rule on).
func gateOn(reg *rules.Registry, s *rules.Settings) bool {
	r, ok := reg.Get(rules.VersionBumpMissingID)
	return ok && s.Enabled(r)
}

// withBump stamps each finding of r with the version bump r requires,
// before any filter: a severity override must not change it.
func withBump(r *rules.Rule, fs []rules.Finding) []rules.Finding {
	for i := range fs {
		fs[i].Bump = r.RequiredBump()
	}
	return fs
}

// key identifies a finding for de-duplication: two findings of one rule at
// one place are the same only when they are about the same element, come
// from the same old place and say the same thing.
type key struct {
	rule, path, msg string
	at, old         rules.Location
}

// lineKey is a (rule, file, line) triple: a finding that supersedes another
// may point at the property's key while the other points at its `type:`.
// Proto findings add the element: a message's line carries the findings
// about every field deleted from it, and one field's must not hide another's.
type lineKey struct {
	rule, file string
	line       int
	path       string
}

func supersedeKey(rule string, f rules.Finding) lineKey {
	k := lineKey{rule: rule, file: f.Where.File, line: f.Where.Line}
	if f.Format == rules.Proto {
		k.path = f.Path
	}
	return k
}

// supersede drops findings that a more specific rule replaced at the same
// place: the same line, or the same element (Path), since in block-style YAML
// a property's key and its `type:` sit on different lines. A proto element
// is on one line; by name alone, a field that moved to another number would
// also lose the findings about its old number.
//
// The finding that stays names the rules it replaced in Also, so the peer
// rules they cover (buf's, oasdiff's) are still accounted for.
func supersede(reg *rules.Registry, fs []rules.Finding) []rules.Finding {
	// Each key maps to the first finding that supersedes there.
	gone := map[lineKey]int{}
	goneAt := map[[2]string]int{}
	for i, f := range fs {
		if r, ok := reg.Get(f.Rule); ok {
			for _, id := range r.Supersedes {
				if _, ok := gone[supersedeKey(id, f)]; !ok {
					gone[supersedeKey(id, f)] = i
				}
				if _, ok := goneAt[[2]string{id, f.Path}]; f.Path != "" && !ok {
					goneAt[[2]string{id, f.Path}] = i
				}
			}
		}
	}
	if len(gone) == 0 {
		return fs
	}
	by := make([]int, len(fs))
	for i, f := range fs {
		by[i] = -1
		if j, ok := gone[supersedeKey(f.Rule, f)]; ok {
			by[i] = j
		} else if j, ok := goneAt[[2]string{f.Rule, f.Path}]; ok && f.Format != rules.Proto && f.Path != "" {
			by[i] = j
		}
	}
	for i, f := range fs {
		j := by[i]
		// A superseder superseded in turn hands on to the one that stays.
		for n := 0; j >= 0 && by[j] >= 0 && n < len(fs); n++ {
			j = by[j]
		}
		if j < 0 || by[j] >= 0 {
			continue
		}
		fs[j].Bump = max(fs[j].Bump, f.Bump)
		for _, id := range append([]string{f.Rule}, f.Also...) {
			if id != fs[j].Rule && !slices.Contains(fs[j].Also, id) {
				fs[j].Also = append(slices.Clip(fs[j].Also), id)
			}
		}
	}
	out := fs[:0]
	for i, f := range fs {
		if by[i] < 0 {
			out = append(out, f)
		}
	}
	return out
}

// ignoreSet is the inline ignores of both sides of a comparison, and which
// of them dropped a finding so far.
type ignoreSet struct {
	reg   *rules.Registry
	in    *rules.Input
	all   []rules.Ignore
	used  []bool
	names map[string][]string
	// added marks the ignores the change itself added or widened: on its
	// new side with no ignore of the same rule, scope and element on its
	// old side. What they accept is shown, never silent.
	added []bool
}

func newIgnoreSet(reg *rules.Registry, in *rules.Input) *ignoreSet {
	x := &ignoreSet{reg: reg, in: in}
	for _, c := range []*rules.Contract{in.Old, in.New} {
		if c != nil {
			x.all = append(x.all, c.Ignores...)
		}
	}
	x.used = make([]bool, len(x.all))
	x.added = make([]bool, len(x.all))
	if in.Old != nil && in.New != nil {
		for i := len(in.Old.Ignores); i < len(x.all); i++ {
			ig := x.all[i]
			x.added[i] = !slices.ContainsFunc(in.Old.Ignores, func(o rules.Ignore) bool {
				return o.Rule == ig.Rule && o.Scope == ig.Scope && o.Element == ig.Element
			})
		}
	}
	x.names = ruleNames(reg, x.all)
	return x
}

// drop drops the findings under a matching inline ignore, noting it used,
// and returns apart, by the index of the ignore, those that only an ignore
// the change added accepted.
func (x *ignoreSet) drop(fs []rules.Finding) ([]rules.Finding, map[int][]rules.Finding) {
	if len(x.all) == 0 {
		return fs, nil
	}
	var added map[int][]rules.Finding
	kept := slices.DeleteFunc(fs, func(f rules.Finding) bool {
		silent, by := false, -1
		for i, ig := range x.all {
			if slices.Contains(x.names[ig.Rule], f.Rule) && ignoreCovers(ig, f.Path) {
				x.used[i] = true
				switch {
				case !x.added[i]:
					silent = true
				case by < 0:
					by = i
				}
			}
		}
		if !silent && by >= 0 {
			if added == nil {
				added = map[int][]rules.Finding{}
			}
			added[by] = append(added[by], f)
		}
		return silent || by >= 0
	})
	return kept, added
}

// unused reports every ignore that matched nothing, so stale suppressions
// do not pile up. Only the new version's ignores can be stale: the old ones
// went away with the change under review. An ignore kept from an earlier
// change that matches nothing in this one is reported too: left in place
// it would accept the next, unrelated change below it unseen.
func (x *ignoreSet) unused(m rules.Mode) []rules.Finding {
	var out []rules.Finding
	for i, ig := range x.all {
		if x.used[i] || x.in.New == nil || !slices.Contains(x.in.New.Ignores, ig) {
			continue
		}
		// A diff runs diff rules and lint rules separately; each run judges
		// only the ignores of its own rules.
		r, known := x.reg.Get(ig.Rule)
		if ids := x.names[ig.Rule]; !known && len(ids) > 0 {
			r, known = x.reg.Get(ids[0]) // a buf or oasdiff name for the rule
		}
		if known && r.Mode != m {
			continue
		}
		msg := fmt.Sprintf("ignore of %s matched no finding; remove it", ig.Rule)
		if ig.Element != "" {
			msg = fmt.Sprintf("ignore of %s for element %s matched no finding; remove it", ig.Rule, ig.Element)
		}
		if !known {
			msg = fmt.Sprintf("ignore names unknown rule %q", ig.Rule)
		}
		out = append(out, rules.Finding{Rule: rules.UnusedIgnoreID, Severity: rules.Warning, Message: msg, Where: ig.Loc, Path: ig.Scope})
	}
	return out
}

// covers reports whether ig accepts a finding about the element at p: one
// inside its scope and, when it names an element, that element: what a JSON
// pointer reaches, or the element whose own name (p's last segment) it is.
func ignoreCovers(ig rules.Ignore, p string) bool {
	switch {
	case ig.Element == "":
		return covers(ig.Scope, p)
	case strings.HasPrefix(ig.Element, "#/"):
		return covers(ig.Element, p)
	}
	// A config ignore has no scope: the element's name is looked for
	// wherever the finding is.
	inScope := ig.Scope == "" || covers(ig.Scope, p) && p != ig.Scope
	return inScope && lastSegment(strings.TrimPrefix(p[len(ig.Scope):], "#")) == ig.Element
}

// lastSegment is the last name in the rest of a path after a scope: JSON
// pointer segments (unescaped) after a '/', proto names after a '.'. An
// OpenAPI path may start with the schema file's $ref ("schemas/order.yaml/
// properties/total"), whose dots are not separators.
func lastSegment(rest string) string {
	if strings.Contains(rest, "/") {
		seg := rest[strings.LastIndexByte(rest, '/')+1:]
		return strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
	}
	return rest[strings.LastIndexAny(rest, ". ")+1:]
}

// covers reports whether an ignore scoped at scope covers an element at p:
// the same element or one nested below it.
func covers(scope, p string) bool {
	if !strings.HasPrefix(p, scope) {
		return false
	}
	rest := p[len(scope):]
	return rest == "" || rest[0] == '/' || rest[0] == '.' || rest[0] == ' '
}

func dropPaths(fs []rules.Finding, globs []string, name func(string) string) []rules.Finding {
	if len(globs) == 0 {
		return fs
	}
	if name == nil {
		name = func(f string) string { return f }
	}
	return slices.DeleteFunc(fs, func(f rules.Finding) bool {
		file := name(f.Where.File)
		// A file outside the config's directory is never its to ignore,
		// however wide the glob ("**").
		if file == ".." || strings.HasPrefix(file, "../") {
			return false
		}
		return slices.ContainsFunc(globs, func(g string) bool { return glob.Match(g, file) })
	})
}

func overrideSeverity(fs []rules.Finding, sev map[string]rules.Severity) []rules.Finding {
	for i := range fs {
		if s, ok := sev[fs[i].Rule]; ok {
			fs[i].Severity = s
		}
	}
	return fs
}

// dedupe keeps one finding per change reported twice (a shared schema
// reached by several operations), and every distinct finding, even when
// several share a line.
func dedupe(fs []rules.Finding) []rules.Finding {
	seen := make(map[key]int, len(fs))
	out := fs[:0]
	for _, f := range fs {
		k := key{rule: f.Rule, path: f.Path, msg: f.Message, at: f.Where}
		if f.Old != nil {
			k.old = *f.Old
		}
		if i, ok := seen[k]; ok {
			out[i].Operations = mergeOps(out[i].Operations, f.Operations)
			continue
		}
		seen[k] = len(out)
		out = append(out, f)
	}
	return out
}

func mergeOps(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	m := slices.Concat(a, b)
	slices.Sort(m)
	return slices.Compact(m)
}

// applyAccepts drops the findings an accepted change covers, noting in
// matched which accepts did.
func applyAccepts(fs []rules.Finding, s *rules.Settings, matched *rules.Matched) []rules.Finding {
	if len(s.Accepts) == 0 {
		return fs
	}
	name := s.IgnoreName
	if name == nil {
		name = func(f string) string { return f }
	}
	out := fs[:0]
	for _, f := range fs {
		hit := false
		for i, a := range s.Accepts {
			if a.Rule == f.Rule && ignoreCovers(a, f.Path) && (a.File == "" || glob.Match(a.File, name(f.Where.File))) {
				hit = true
				matched.Add(i)
			}
		}
		if !hit {
			out = append(out, f)
		}
	}
	return out
}
