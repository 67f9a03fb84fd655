package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/internal/waiver"
	"github.com/contractlint/contractlint/rules"
)

// waivers is the state of a command that applies .contractlint-waivers.yaml
// (diff and review: waivers accept changes), with the oasdiff flags that
// choose and accept changes, under their oasdiff names and meanings.
type waivers struct {
	// dir holds the waivers file; list is what it says.
	dir   string
	list  []waiver.Waiver
	lines []waiver.IgnoreLine
	// matchPath is --match-path: only findings about paths it matches.
	matchPath             string
	match                 *regexp.Regexp
	errIgnore, warnIgnore string
	errorFormat           string
	resolve               func(string) []string
	// names is what an oasdiff ignore line may call a finding's rule.
	names waiver.Names
	// exclude is --exclude-elements.
	exclude []string
}

// registerWaivers makes the command apply the waivers file, and adds the
// oasdiff and buf flags a team moving from either keeps using.
func (c *common) registerWaivers() {
	w := &waivers{}
	c.waive = w
	f := c.flags
	f.StringVar(&w.matchPath, "match-path", "", "report only changes to paths matching this regular expression (as oasdiff's --match-path)")
	f.StringVar(&w.errIgnore, "err-ignore", "", "oasdiff ignore file: each line (METHOD /path and the change) accepts an error finding")
	f.StringVar(&w.warnIgnore, "warn-ignore", "", "oasdiff ignore file whose lines accept warning findings")
	f.StringSliceVar(&w.exclude, "exclude-elements", nil, "parts of a field not judged, as oasdiff's flag: "+strings.Join(pipeline.ExcludableElements, ", ")+" (comma-separated)")
	f.StringVar(&w.errorFormat, "error-format", "", "buf's name for --format: text, json, github-actions, msvs or junit")
}

// bufFormats maps buf's --error-format values to report formats.
var bufFormats = map[string]string{"text": "text", "json": "json", "github-actions": "github", "msvs": "msvs", "junit": "junit"}

// loadAdopted reads the oasdiff and buf flags of a command that applies
// waivers.
func (c *common) loadAdopted(e *Env, reg *rules.Registry) error {
	w := c.waive
	w.resolve = resolver(reg)
	w.names = waiver.Names{Resolve: w.resolve, Checks: func(id string) []string {
		if x, ok := reg.Get(id); ok {
			return x.Oasdiff
		}
		return nil
	}}
	if w.errorFormat != "" {
		f, ok := bufFormats[w.errorFormat]
		if !ok {
			return usageErr("--error-format: want text, json, github-actions, msvs or junit, not %q", w.errorFormat)
		}
		c.format = f
	}
	for _, x := range w.exclude {
		if !slices.Contains(pipeline.ExcludableElements, x) {
			return usageErr("--exclude-elements: %q is none of %s", x, strings.Join(pipeline.ExcludableElements, ", "))
		}
	}
	if w.matchPath != "" {
		re, err := regexp.Compile(w.matchPath)
		if err != nil {
			return usageErr("--match-path: %v", err)
		}
		w.match = re
	}
	// review loads options twice (the head's config, then the base's): the
	// lines are read afresh, never once per load.
	w.lines = nil
	for _, x := range []struct {
		flag, file string
		sev        rules.Severity
	}{{"--err-ignore", w.errIgnore, rules.Error}, {"--warn-ignore", w.warnIgnore, rules.Warning}} {
		if x.file == "" {
			continue
		}
		data, err := os.ReadFile(e.abs(x.file))
		if err != nil {
			return usageErr("%s: %v", x.flag, err)
		}
		w.lines = append(w.lines, waiver.ParseIgnoreFile(x.file, data, x.sev)...)
	}
	return nil
}

// matchesPath reports whether f is about a path --match-path selects:
// one of its operations' paths matches. A finding about no operation (a
// config or waiver finding) is kept.
func (w *waivers) matchesPath(f rules.Finding) bool {
	if w.match == nil || len(f.Operations) == 0 {
		return true
	}
	for _, op := range f.Operations {
		_, p, ok := strings.Cut(op, " ")
		if !ok {
			p = op
		}
		if w.match.MatchString(p) {
			return true
		}
	}
	return false
}

// waiverDir is where the waivers file is: beside the config, else in the
// working directory.
func waiverDir(e *Env, cfg *config.Config) string {
	if cfg != nil && cfg.File != "" && cfg.Dir != "" {
		return cfg.Dir
	}
	return e.abs(".")
}

// loadWaivers reads the waivers file of a command that applies it.
func (c *common) loadWaivers(e *Env, cfg *config.Config, reg *rules.Registry) error {
	if c.waive == nil {
		return nil
	}
	dir := waiverDir(e, cfg)
	list, err := waiver.Load(dir, displayPath(e, filepath.Join(dir, waiver.FileName)), resolver(reg))
	if err != nil {
		return inputErr(err)
	}
	c.waive.dir, c.waive.list = dir, list
	return c.loadAdopted(e, reg)
}

// resolver maps a rule name, or a buf or oasdiff alias, to rule IDs.
func resolver(reg *rules.Registry) func(string) []string {
	return func(name string) []string {
		if name == rules.UnusedIgnoreID {
			return []string{name}
		}
		ids, _ := reg.Resolve(name)
		return ids
	}
}

// applyWaivers moves the findings a live waiver accepts out of r's findings
// into its waived list, and reports expired and unused waivers. What the
// change's own inline ignores accepted (recorded in matched) and what a
// waiver the base did not have accepted are marked as accepted in this PR.
func (c *common) applyWaivers(e *Env, r *report.Report, matched *rules.Matched) {
	for _, a := range matched.Accepted() {
		if c.waive == nil || c.waive.matchesPath(a.Finding) {
			c.acceptedInPR(r, a.Finding, a.By.Loc, c.owner(a.By.Owner, a.By.Loc, a.By.Rule, "inline ignore"), a.By.Reason)
		}
	}
	// A config line that loosens the gate is already a failing
	// config-weakened finding; it is listed with what the change accepted
	// too, so no list of acceptances leaves it out.
	for _, f := range r.Findings {
		if f.Rule == rules.ConfigWeakenedID {
			r.Waived = append(r.Waived, report.Waived{Finding: f, InPR: true,
				Justification: "accepted in this PR by " + c.owner("", f.Where, "", "config line")})
		}
	}
	defer func() { rules.SortFindings(r.Findings) }()
	if c.waive == nil {
		return
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	r.Findings = slices.DeleteFunc(r.Findings, func(f rules.Finding) bool { return !c.waive.matchesPath(f) })
	var waived, ignored []waiver.Waived
	r.Findings, waived = waiver.Apply(c.waive.list, r.Findings, now())
	r.Findings, ignored = waiver.ApplyIgnoreLines(c.waive.lines, r.Findings, c.waive.names)
	inBase := c.waive.inBase(r.Review)
	for _, w := range waived {
		if inBase != nil && !inBase(w.Waiver) {
			c.acceptedInPR(r, w.Finding, w.Waiver.Loc, w.Waiver.Owner, w.Waiver.Reason)
			continue
		}
		r.Waived = append(r.Waived, report.Waived{Finding: w.Finding, Justification: w.Justification()})
	}
	lineInBase := c.waive.lineInBase(e, r.Review)
	for _, w := range ignored {
		if lineInBase != nil && !lineInBase(w.Waiver.Loc) {
			c.acceptedInPR(r, w.Finding, w.Waiver.Loc, w.Waiver.Owner+" "+w.Waiver.Loc.File, fmt.Sprintf("line %d", w.Waiver.Loc.Line))
			continue
		}
		r.Waived = append(r.Waived, report.Waived{Finding: w.Finding, Justification: w.Justification()})
	}
}

// owner names who answers for an acceptance the change added at at, and
// what it is: the owner it names itself, else the author of its line as
// review's blame tells ("Ada <ada@example.com> (inline ignore at
// api.yaml:3:5)"), else only what and where.
func (c *common) owner(named string, at rules.Location, says, what string) string {
	where := what + " at " + at.String()
	if named == "" {
		if rs, ok := c.sources.(*reviewSources); ok {
			named = rs.author(at.File, at.Line, says)
		}
	}
	if named == "" {
		return "the " + where
	}
	return named + " (" + where + ")"
}

// acceptedInPR records in r that the change under review accepted its own
// finding f, by what (an owner, an inline ignore) for reason, written at
// at: allowed, but shown in every report; a failing finding of its own
// when the config requires approval.
func (c *common) acceptedInPR(r *report.Report, f rules.Finding, at rules.Location, by, reason string) {
	r.Waived = append(r.Waived, report.Waived{Finding: f, InPR: true,
		Justification: fmt.Sprintf("accepted in this PR by %s: %s", by, reason)})
	if c.requireApproval {
		r.Findings = append(r.Findings, waiver.Unapproved(f, at, by, reason))
	}
}

func newWaiveCmd(e *Env) *cobra.Command {
	var w waiver.Waiver
	var expires, configFile string
	cmd := &cobra.Command{
		Use:   "waive RULE ELEMENT --fingerprint FP --reason TEXT --owner WHO [--expires YYYY-MM-DD]",
		Short: "Accept one change: add a waiver to " + waiver.FileName,
		Long: "waive records that the change a finding reports is accepted: the finding's rule, its element\n" +
			"(the JSON pointer or proto full name; \"path\" in --format json) and its fingerprint (\"fingerprint\"\n" +
			"in --format json, partialFingerprints in SARIF), which identifies the change by its old and new\n" +
			"values, not its line, so the waiver survives rebases and stops matching when the change does.\n" +
			"diff and review then leave the finding out (SARIF shows it as suppressed with the reason), report\n" +
			"the waiver as waiver-expired after --expires, and as unused-ignore once it matches nothing.\n" +
			"The file is " + waiver.FileName + " beside the config (or in the working directory).",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, reg, err := loadRegistry(e, configFile)
			if err != nil {
				return err
			}
			ids := resolver(reg)(args[0])
			if len(ids) != 1 {
				return usageErr("waive: %q names %d rules; a waiver names one (see `contractlint rules %s`)", args[0], len(ids), args[0])
			}
			w.Rule, w.Element = ids[0], args[1]
			if w.Reason == "" || w.Owner == "" || w.Fingerprint == "" {
				return usageErr("waive: --reason, --owner and --fingerprint are required")
			}
			if expires != "" {
				if w.Expires, err = time.Parse(time.DateOnly, expires); err != nil {
					return usageErr("waive: --expires: want a date such as 2026-12-31, not %q", expires)
				}
			}
			file := filepath.Join(waiverDir(e, cfg), waiver.FileName)
			if err := waiver.Append(file, w); err != nil {
				return usageErr("waive: %v", err)
			}
			fmt.Fprintf(e.Stdout, "waived %s for %s in %s\n", w.Rule, w.Element, displayPath(e, file))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&w.Fingerprint, "fingerprint", "", "the finding's fingerprint, from --format json or sarif")
	f.StringVar(&w.Reason, "reason", "", "why the change is accepted (required)")
	f.StringVar(&w.Owner, "owner", "", "who answers for it, such as @team (required)")
	f.StringVar(&expires, "expires", "", "last day the waiver holds, YYYY-MM-DD (default: never)")
	f.StringVar(&configFile, "config", "", "config file whose directory holds the waivers (default: "+config.FileName+" found upward)")
	return cmd
}

// inBase returns, for a review, whether a waiver was already in the waivers
// file at the base commit; nil when there is no base to ask.
func (w *waivers) inBase(rv *report.Review) func(waiver.Waiver) bool {
	data, ok := atBase(rv, filepath.Join(w.dir, waiver.FileName))
	if !ok {
		return nil
	}
	var before []waiver.Waiver
	if data != nil {
		// A base file that no longer parses accepted nothing.
		before, _ = waiver.Parse(waiver.FileName, data, w.resolve)
	}
	return func(x waiver.Waiver) bool {
		return slices.ContainsFunc(before, func(b waiver.Waiver) bool {
			return b.Rule == x.Rule && b.Element == x.Element && b.Fingerprint == x.Fingerprint
		})
	}
}

// lineInBase returns, for a review, whether an oasdiff ignore line (by its
// place) was already in its file at the base commit, as the same text; nil
// when there is no base to ask.
func (w *waivers) lineInBase(e *Env, rv *report.Review) func(rules.Location) bool {
	if rv == nil || rv.BaseCommit == "" {
		return nil
	}
	return func(at rules.Location) bool {
		i := slices.IndexFunc(w.lines, func(l waiver.IgnoreLine) bool { return l.Loc == at })
		data, ok := atBase(rv, e.abs(at.File))
		if i < 0 || !ok {
			return true // not the repository's to judge: a file from elsewhere
		}
		return slices.ContainsFunc(waiver.ParseIgnoreFile(at.File, data, w.lines[i].Severity), func(b waiver.IgnoreLine) bool {
			return b.Text == w.lines[i].Text
		})
	}
}

// atBase reads file (an absolute name) as a review's base commit holds it:
// nil when the base has no such file; ok is false when there is no base or
// the file is not in the repository.
func atBase(rv *report.Review, file string) (data []byte, ok bool) {
	if rv == nil || rv.BaseCommit == "" {
		return nil, false
	}
	top, err := source.Root(filepath.Dir(file))
	if err != nil {
		return nil, false
	}
	rel, err := filepath.Rel(top, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, false
	}
	base, err := source.OpenRev(top, rv.BaseCommit)
	if err != nil {
		return nil, false
	}
	data, err = base.ReadFile(filepath.ToSlash(rel))
	if err != nil {
		return nil, true
	}
	return data, true
}
