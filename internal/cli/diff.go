package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// options turns flags and the config they find into a pipeline run's
// options; the config is returned too (never nil) for the settings only a
// command reads. --proto-path is not in them: each side resolves it from
// the working directory (openSide).
func (c *common) options(e *Env) (pipeline.Options, *config.Config, error) {
	cfg, err := loadConfig(e, c.config)
	if err != nil {
		return pipeline.Options{}, nil, err
	}
	warnHeld(e, cfg)
	return c.optionsFor(e, cfg)
}

// optionsFor is options with the config given (review's, from the base).
func (c *common) optionsFor(e *Env, cfg *config.Config) (pipeline.Options, *config.Config, error) {
	s := &rules.Settings{}
	cfg.Apply(s)
	if err := c.applyCompat(s); err != nil {
		return pipeline.Options{}, nil, err
	}
	s.Strict = s.Strict || c.strict
	c.requireApproval = cfg.RequireApproval
	if len(cfg.Ignore) > 0 {
		// diff and lint show files relative to the working directory.
		s.IgnoreName = ignoreNames(cfg.Dir, e.abs("."))
	}
	// Unset, the level is buf.yaml's breaking.use, else file (see Settings.Level).
	if c.flags.Changed("proto-level") {
		lvl, err := rules.ParseProtoLevel(c.protoLevel)
		if err != nil {
			return pipeline.Options{}, nil, usageErr("%v", err)
		}
		s.ProtoLevel = lvl
	}
	var st *pipeline.Stats
	if c.stats {
		st = &pipeline.Stats{}
	}
	c.configFailOn(cfg)
	c.gateVersions(s)
	capped, _ := cfg.Limits.Capped()
	lim, err := c.limits(capped)
	if err != nil {
		return pipeline.Options{}, nil, err
	}
	reg, err := cfg.Registry()
	if err != nil {
		return pipeline.Options{}, nil, usageErr("%v", err)
	}
	if err := c.loadWaivers(e, cfg, reg); err != nil {
		return pipeline.Options{}, nil, err
	}
	o := pipeline.Options{Registry: reg, Settings: s, Matched: &rules.Matched{}, Needed: &rules.Needed{}, ProtoPaths: slices.Clip(cfg.ProtoPaths), Stats: st, Limits: lim, Whole: c.noShortcuts, Now: e.Now}
	if c.waive != nil {
		o.Exclude = c.waive.exclude
	}
	return o, cfg, nil
}

// emit writes the report r of a run with options o and turns its findings
// into the exit status.
// unreadableRule is review's finding for a contract it could not read.
const unreadableRule = "contract-unreadable"

func (c *common) emit(e *Env, r *report.Report, o pipeline.Options) error {
	threshold, err := c.threshold()
	if err != nil {
		return err
	}
	r.Rules = o.Registry
	r.Bump = max(r.Bump, o.Needed.Bump())
	c.runChain(e, r, o)
	if err := c.write(e, r, o.Stats); err != nil {
		return err
	}
	if o.Stats != nil {
		o.Stats.Write(e.Stderr)
	}
	// A contract review could not read is bad input, whatever else the
	// report holds beside it: exit 2, as diff of the two trees exits on it,
	// never below it. The report still says everything.
	if slices.ContainsFunc(r.Findings, func(f rules.Finding) bool { return f.Rule == unreadableRule }) {
		return &exitError{code: ExitUsage}
	}
	for _, f := range r.Findings {
		if c.fails(f, threshold) {
			return &exitError{code: ExitFindings}
		}
	}
	return nil
}

// write renders r in the chosen format to --output or standard output, and
// in each --output-FORMAT's format to its file.
func (c *common) write(e *Env, r *report.Report, st *pipeline.Stats) error {
	r.Tool, r.Version = "contractlint", Version()
	if err := c.writeOne(e, c.format, c.output, "--output", r, st); err != nil {
		return err
	}
	return c.writeAlso(e, r, alsoFormats, st)
}

// writeAlso writes r to the --output-FORMAT files of the formats given.
func (c *common) writeAlso(e *Env, r *report.Report, formats []string, st *pipeline.Stats) error {
	for _, name := range formats {
		if file := c.also[name]; file != nil && c.flags.Changed("output-"+name) {
			if *file == "" {
				return usageErr("--output-%s: want a file name", name)
			}
			// The job summary is the main report's to write, once.
			quiet := &Env{Getenv: func(string) string { return "" }, Getwd: e.Getwd}
			if err := c.writeOne(quiet, name, *file, "--output-"+name, r, st); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *common) writeOne(e *Env, format, file, flag string, r *report.Report, st *pipeline.Stats) error {
	w := e.Stdout
	if file != "" {
		f, err := os.Create(e.abs(file))
		if err != nil {
			return usageErr("%s: %v", flag, err)
		}
		defer f.Close()
		w = f
	}
	ro := report.Options{Getenv: e.Getenv, Color: report.UseColor(w, e.Getenv), Sources: c.sources}
	ro.Root, ro.Dir = c.namesBase(e)
	rep, err := report.New(format, ro)
	if err != nil {
		return usageErr("--format: %v", err)
	}
	err = st.Measure("report", func() error { return rep.Write(w, r) })
	if err != nil {
		return usageErr("writing the report: %v", err)
	}
	return nil
}

// namesBase is the top of the work tree (the working directory outside
// one) and the directory the report's file names are relative to: the
// working directory, or the top in review, which shows names from there.
func (c *common) namesBase(e *Env) (root, dir string) {
	dir = e.abs(".")
	root, err := source.Root(dir)
	if err != nil {
		return "", ""
	}
	if c.fromTop {
		dir = root
	}
	return root, dir
}

// problemFormats are the formats that can say nothing was compared; the
// others would read as a pass.
var problemFormats = []string{"github", "sarif"}

// inputProblems reports unreadable input: exit 2 with every problem on
// standard error and, in the formats a CI reads (github annotations, SARIF
// notifications), in the report too, so the problem shows where findings do.
func (c *common) inputProblems(e *Env, err error, reg *rules.Registry) error {
	var ps source.Problems
	if !errors.As(err, &ps) {
		return inputErr(err)
	}
	r := &report.Report{Rules: reg, Tool: "contractlint", Version: Version()}
	for _, p := range ps {
		r.Problems = append(r.Problems, report.Problem{File: p.File, Line: p.Line, Column: p.Column, Msg: p.Msg})
	}
	var werr error
	if slices.Contains(problemFormats, c.format) {
		werr = c.writeOne(e, c.format, c.output, "--output", r, nil)
	}
	if werr == nil {
		werr = c.writeAlso(e, r, problemFormats, nil)
	}
	if werr != nil {
		fmt.Fprintln(e.Stderr, "contractlint:", werr)
	}
	return inputErr(err)
}

// diffOptions are the flags of `contractlint diff`.
type diffOptions struct {
	common
	readers readerOpts
	cache   cacheFlag
}

func newDiffCmd(e *Env) *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Report the changes from OLD to NEW that break existing clients",
		Long: "diff compares two versions of a contract: two OpenAPI files (YAML or JSON, 3.0 or 3.1),\n" +
			"two .proto files, or two directories of .proto files matched by relative path.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(e, &o, args[0], args[1])
		},
	}
	o.register(cmd)
	o.registerRoot(cmd)
	o.registerCompat(cmd)
	o.registerWaivers()
	addReaderFlags(cmd, &o.readers)
	o.cache.register(cmd)
	return cmd
}

func runDiff(e *Env, do *diffOptions, oldArg, newArg string) error {
	o, cfg, err := do.options(e)
	if err != nil {
		return err
	}
	done, err := do.cache.open(e, &o)
	if err != nil {
		return err
	}
	defer done()
	do.readers.defaults(e, cfg, do.flags)
	if o.Readers, err = do.readers.load(e, o.Limits); err != nil {
		return err
	}
	old, nw, err := openSides(e, oldArg, newArg, &do.common)
	if err != nil {
		return err
	}
	if o.History, err = lockHistory(nw); err != nil {
		return err
	}
	fs, err := pipeline.Diff(old, nw, o)
	if err != nil {
		return do.inputProblems(e, err, o.Registry)
	}
	do.compared = append(old.Shown(), nw.Shown()...)
	return do.emit(e, &report.Report{Findings: fs}, o)
}

// openSides opens the two arguments of a command that compares them.
func openSides(e *Env, oldArg, newArg string, c *common) (old, nw pipeline.Side, err error) {
	if old, err = openSideIn(e, oldArg, c.protoPaths, c.root); err != nil {
		return old, nw, err
	}
	nw, err = openSideIn(e, newArg, c.protoPaths, c.root)
	return old, nw, err
}

// inputErr reports an unreadable contract: exit 2, every problem on its own
// line as file:line:col: message.
func inputErr(err error) error {
	return &exitError{code: ExitUsage, msg: err.Error()}
}

// openSide resolves a command-line path into a Side rooted at its
// repository (or its own directory outside one), shown relative to the
// working directory.
func openSide(e *Env, arg string) (pipeline.Side, error) {
	return openSideIn(e, arg, nil, "")
}

// openSideIn is openSide with import roots and the folder $refs may reach:
// protoPaths (--proto-path) name import roots from the working directory,
// as protoc's -I does, each inside the root; boundary (--root) is the
// root, "" for the default.
func openSideIn(e *Env, arg string, protoPaths []string, boundary string) (pipeline.Side, error) {
	at := e.abs(arg)
	fi, err := os.Stat(at)
	if err != nil {
		return pipeline.Side{}, usageErr("%s: %v", arg, unwrapPath(err))
	}
	root, err := source.Root(at)
	if err != nil {
		return pipeline.Side{}, usageErr("%s: %v", arg, err)
	}
	if boundary != "" {
		root = e.abs(boundary)
		if rel, err := underRoot(root, at); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return pipeline.Side{}, usageErr("%s: not inside --root %s", arg, boundary)
		}
	}
	if !fi.IsDir() {
		root = protoRoot(root, at, absAll(e, protoPaths))
	}
	src, err := source.OpenDir(root)
	if err != nil {
		return pipeline.Side{}, usageErr("%s: %v", arg, err)
	}
	rel, err := underRoot(root, at)
	if err != nil {
		return pipeline.Side{}, usageErr("%s: %v", arg, err)
	}
	side := pipeline.Side{Src: src, Display: displayFrom(e, root)}
	for _, p := range protoPaths {
		r, err := underRoot(root, e.abs(p))
		if err != nil {
			return side, usageErr("--proto-path %s: %v", p, err)
		}
		side.ProtoPaths = append(side.ProtoPaths, r)
	}
	if fi.IsDir() {
		side.Dir = rel
		side.Files, err = pipeline.ModuleFiles(src, rel)
		if err != nil {
			return side, usageErr("%s: %v", arg, err)
		}
		if len(side.Files) == 0 {
			return side, usageErr("%s: no .proto files in this directory", arg)
		}
		return side, nil
	}
	side.Files = []string{rel}
	return side, nil
}

// underRoot names p (absolute, see Env.abs) relative to root,
// in slashes. A path that leaves root stays such a path ("../x"): the
// source boundary refuses it where it is used, naming the import.
func underRoot(root, p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// displayFrom names files relative to the working directory when they are
// below it, else relative to the root: never an absolute machine path.
func displayFrom(e *Env, root string) func(string) string {
	wd, _ := e.Getwd()
	return func(name string) string {
		abs := filepath.Join(root, filepath.FromSlash(name))
		if rel, err := filepath.Rel(wd, abs); err == nil && !filepath.IsAbs(rel) && len(rel) < len(abs) {
			return filepath.ToSlash(rel)
		}
		return name
	}
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
