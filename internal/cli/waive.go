package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/chain"
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

// runChain passes r's findings through the chain every command runs
// (internal/chain): what its steps accept moves to r's waived list, those
// the change accepted itself marked so.
func (c *common) runChain(e *Env, r *report.Report, o pipeline.Options) {
	set := chain.For(c.chainCommand(e, r.Review, o)).Run(r.Findings)
	r.Findings = set.Findings
	for _, a := range set.Accepted {
		r.Waived = append(r.Waived, report.Waived{Finding: a.Finding, Justification: a.Justification, InPR: a.InPR})
	}
}

// chainCommand is what the chain's steps need of this command: its
// settings and record, the files it compared, the waivers and ignore lines
// of a command that applies them, and for a review, the base that tells
// which acceptances the change added and the blame that names who.
func (c *common) chainCommand(e *Env, rv *report.Review, o pipeline.Options) chain.Command {
	cmd := chain.Command{Settings: o.Settings, Matched: o.Matched, Compared: c.compared, RequireApproval: c.requireApproval}
	if rs, ok := c.sources.(*reviewSources); ok {
		cmd.Author = func(at rules.Location, says string) string { return rs.author(at.File, at.Line, says) }
	}
	if w := c.waive; w != nil {
		now := time.Now
		if e.Now != nil {
			now = e.Now
		}
		cmd.MatchPath, cmd.Waivers, cmd.Now, cmd.WaiverInBase = w.match, w.list, now(), w.inBase(rv)
		cmd.Lines, cmd.Names, cmd.LineInBase = w.lines, w.names, w.lineInBase(e, rv)
	}
	return cmd
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
// file at the base commit; nil when there is no base to ask. The base file
// is read on the first question: most reviews have no waiver to ask about.
func (w *waivers) inBase(rv *report.Review) func(waiver.Waiver) bool {
	if rv == nil || rv.BaseCommit == "" {
		return nil
	}
	before := sync.OnceValues(func() ([]waiver.Waiver, bool) {
		data, ok := atBase(rv, filepath.Join(w.dir, waiver.FileName))
		if !ok || data == nil {
			return nil, ok
		}
		// A base file that no longer parses accepted nothing.
		list, _ := waiver.Parse(waiver.FileName, data, w.resolve)
		return list, true
	})
	return func(x waiver.Waiver) bool {
		list, ok := before()
		if !ok {
			return true // no base file to judge by: nothing is new
		}
		return slices.ContainsFunc(list, func(b waiver.Waiver) bool {
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
// the file is not in the repository. One `git cat-file --batch` answers
// both questions (is the base a commit here, what does it hold at the
// file's name, symbolic links inside the tree followed), where listing the
// base's whole tree to read one file cost a process more.
func atBase(rv *report.Review, file string) (data []byte, ok bool) {
	if rv == nil || rv.BaseCommit == "" || strings.HasPrefix(rv.BaseCommit, "-") {
		return nil, false
	}
	top, err := source.Root(filepath.Dir(file))
	if err != nil {
		return nil, false
	}
	rel, err := filepath.Rel(top, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || strings.Contains(rel, "\n") {
		return nil, false
	}
	cat, err := source.StartCat(top, "--batch", "--follow-symlinks")
	if err != nil {
		return nil, false
	}
	defer cat.Close()
	fmt.Fprintf(cat.In, "%s\n%s:%s\n", rv.BaseCommit, rv.BaseCommit, filepath.ToSlash(rel))
	cat.In.Close()
	if kind, _, err := catObject(cat.Out); err != nil || kind != "commit" {
		return nil, false // the base is not this repository's (a submodule's file)
	}
	if kind, body, err := catObject(cat.Out); err == nil && kind == "blob" {
		return body, true
	}
	// Missing, a directory, or a link leaving the tree: no such file.
	return nil, true
}

// catObject reads one answer of `git cat-file --batch --follow-symlinks`:
// "<oid> <type> <size>" and the object, or "<name> missing", or
// "<kind> <size>" and a name (a link that dangles, loops or leaves the
// tree), returning the type or kind and what followed the header.
func catObject(r *bufio.Reader) (kind string, body []byte, err error) {
	header, err := r.ReadString('\n')
	if err != nil {
		return "", nil, err
	}
	f := strings.Fields(header)
	var size string
	switch len(f) {
	case 3:
		kind, size = f[1], f[2]
	case 2:
		if f[1] == "missing" || f[1] == "ambiguous" {
			return f[1], nil, nil
		}
		kind, size = f[0], f[1]
	default:
		return "", nil, fmt.Errorf("git cat-file: unexpected answer %q", header)
	}
	n, err := strconv.Atoi(size)
	if err != nil {
		return "", nil, fmt.Errorf("git cat-file: bad size in %q", header)
	}
	body = make([]byte, n+1) // the object and the newline after it
	if _, err := io.ReadFull(r, body); err != nil {
		return "", nil, err
	}
	return kind, body[:n], nil
}
