package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// reviewOptions are the flags of `contractlint review`.
type reviewOptions struct {
	common
	readers readerOpts
	review  review.Options
	// changelog prints the reviewed files' changelog instead of findings.
	changelog  bool
	transitive transitive
	cache      cacheFlag
	// hook is --pre-commit: the mode comes from pre-commit (hook.go).
	hook bool
}

func newReviewCmd(e *Env) *cobra.Command {
	var o reviewOptions
	cmd := &cobra.Command{
		Use:   "review [--base REF] [--staged] [PATH...]",
		Short: "Check the contract files changed since a base commit, each against its version there",
		Long: "review finds the contract files that differ between REF and the working tree (the index with\n" +
			"--staged), reads each file's old version, with its $refs and imports, from REF, and reports\n" +
			"what the change breaks. Added files are linted, deleted files reported, renamed files matched.\n" +
			"REF defaults to the merge base with the default branch (origin/HEAD, main or master), else HEAD~1.\n" +
			"PATHs limit the review to those files or directories.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.hook {
				if err := o.preCommit(e, args); err != nil {
					return err
				}
				args = nil
			}
			return runReview(e, &o, args)
		},
	}
	o.register(cmd)
	o.registerCompat(cmd)
	o.registerWaivers()
	addReaderFlags(cmd, &o.readers)
	o.cache.register(cmd)
	f := cmd.Flags()
	o.transitive.register(f)
	f.BoolVar(&o.changelog, "changelog", false, "print the changelog of the reviewed files (--format text, markdown or json) instead of the findings")
	f.StringVar(&o.review.Base, "base", "", "compare with this commit (default: the merge base with the default branch, else HEAD~1)")
	f.BoolVar(&o.review.Staged, "staged", false, "review the staged changes (the index) instead of the working tree")
	f.BoolVar(&o.hook, "pre-commit", false, "run as the pre-commit hook: review the range, the branch or the index pre-commit's mode names (FILEs only tell the modes apart)")
	f.StringVar(&o.review.Head, "head", "", "review this commit instead of the working tree (with --base: the range base..head)")
	f.IntVar(&o.review.HistoryDepth, "history-depth", 0, "commits of each .proto file's history read for field numbers used before (0: all)")
	return cmd
}

func runReview(e *Env, ro *reviewOptions, paths []string) error {
	ro.fromTop = true
	po, cfg, weakened, err := ro.reviewSettings(e)
	defer ro.closeSides()
	if err != nil {
		return err
	}
	done, err := ro.cache.open(e, &po)
	if err != nil {
		return err
	}
	defer done()
	// review reads the repository from its top, where --proto-path names
	// the same directories as from the working directory's view of it.
	po.ProtoPaths = append(slices.Clip(ro.protoPaths), po.ProtoPaths...)
	if len(cfg.Ignore) > 0 {
		// review shows files relative to the top of the work tree.
		top, err := ro.top(e)
		if err != nil {
			return reviewErr(err)
		}
		po.Settings.IgnoreName = ignoreNames(cfg.Dir, top)
	}
	ro.readers.defaults(e, cfg, ro.flags)
	if po.Readers, err = ro.readers.load(e, po.Limits); err != nil {
		return err
	}
	o := ro.review
	o.ConfigChanges = weakened
	if o.Head != "" && o.Staged {
		return usageErr("--head reviews a commit, --staged the index: give one")
	}
	if !ro.flags.Changed("history-depth") {
		o.HistoryDepth = cfg.HistoryDepth
	}
	o.HistoryAll = cfg.HistoryAll
	var log *changelog.Log
	if ro.changelog {
		if log, err = ro.collectChangelog(&po); err != nil {
			return err
		}
	}
	o.Dir, o.Paths, o.Globs, o.Pipeline = e.abs("."), paths, cfg.ContractGlobs(), po
	if cfg.Contracts != nil {
		o.GlobsFrom = cfg.File
	}
	if ro.transitive.on() {
		if o.Base != "" {
			return usageErr("--against and --against-tags compare with releases: not with --base")
		}
		tres, err := ro.transitive.run(e, o, log)
		if err != nil {
			if errors.As(err, new(source.Problems)) {
				return ro.inputProblems(e, err, po.Registry)
			}
			return reviewErr(err)
		}
		if log != nil {
			log.Notes = append(log.Notes, tres.Note)
			return ro.writeChangelog(e, log)
		}
		ro.compared = tres.Read
		return ro.emit(e, &report.Report{Findings: tres.Findings, Notes: []string{tres.Note}}, po)
	}
	res, err := review.Run(o)
	if err != nil {
		if errors.As(err, new(source.Problems)) {
			return ro.inputProblems(e, err, po.Registry)
		}
		return reviewErr(err)
	}
	warnUnmatched(e, res.Unmatched)
	if log != nil {
		logFiles(log, res)
		return ro.writeChangelog(e, log)
	}
	ro.sources = newReviewSources(e.abs("."), res.Base.Commit, o.Head, o.Staged)
	ro.compared = res.Read
	return ro.emit(e, &report.Report{Findings: res.Findings, Review: reviewReport(e, &ro.common, res)}, po)
}

// reviewReport is what every report says about the review: the base and
// how many contracts were compared. On GitHub the repository is named as
// the runner names it; elsewhere by origin's URL without credentials,
// which git is asked for only when a report that names the repository
// (SARIF's versionControlProvenance) is written: every other review is
// spared the git run.
func reviewReport(e *Env, c *common, res *review.Result) *report.Review {
	uri := ""
	if server, repo := e.Getenv("GITHUB_SERVER_URL"), e.Getenv("GITHUB_REPOSITORY"); server != "" && repo != "" {
		uri = strings.TrimSuffix(server, "/") + "/" + repo
	} else if c.writes("sarif") {
		uri = res.RemoteURI()
	}
	return &report.Review{Base: res.Base.String(), BaseRef: res.Base.Ref, BaseCommit: res.Base.Commit,
		RepositoryURI: uri, Compared: res.Compared, NotReviewed: res.NotReviewed}
}

// writes reports whether this run writes a report in format: as the
// main report or to its --output-FORMAT file.
func (c *common) writes(format string) bool {
	return c.format == format || c.also[format] != nil && c.flags.Changed("output-"+format)
}

// warnUnmatched says, in one line, which evidence entries served none of the
// contracts reviewed: never a silent skip, but not an error either, since
// they may describe a contract this change did not touch.
func warnUnmatched(e *Env, es []readers.Entry) {
	var seen []string
	for _, x := range es {
		if m := x.File + ": " + x.Where + ": " + x.Unmatched(); !slices.Contains(seen, m) {
			seen = append(seen, m)
		}
	}
	if len(seen) == 0 {
		return
	}
	more := ""
	if len(seen) > 3 {
		more, seen = fmt.Sprintf("; and %d more", len(seen)-3), seen[:3]
	}
	fmt.Fprintf(e.Stderr, "contractlint: warning: evidence that matches none of the contracts reviewed was not used "+
		"(it may describe a contract this change did not touch, or name a path that does not exist): %s%s\n",
		report.Clean(strings.Join(seen, "; ")), more)
}

// reviewErr maps review failures to exit 2 with a message that says what to do.
func reviewErr(err error) error {
	var ps source.Problems
	var me *review.MissingError
	switch {
	case errors.As(err, &ps):
		return inputErr(err)
	case errors.As(err, &me):
		return usageErr("%s", me.Msg)
	}
	return usageErr("review: %v", err)
}

// lockOptions are the flags of `contractlint lock`: the common ones it
// needs to load contracts as review does.
type lockOptions struct {
	common
	// releases is --releases: a tag glob whose releases are recorded too.
	releases string
}

func newLockCmd(e *Env) *cobra.Command {
	o := lockOptions{}
	cmd := &cobra.Command{
		Use:   "lock",
		Short: "Record every proto field number ever used in " + review.LockFile,
		Long: "lock walks the git history of every .proto contract and writes " + review.LockFile + " at the top of\n" +
			"the repository: every (message, number, name, type) any version used, plus what the lock held\n" +
			"already. diff and review read it, so a number stays taken after history is squashed.\n" +
			"Commit the file; regenerate it with this command, never by hand.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLock(e, &o)
		},
	}
	c := &o.common
	c.flags = cmd.Flags()
	c.flags.StringVar(&c.config, "config", "", "config file (default: .contractlint.yaml found upward from the working directory)")
	c.flags.StringArrayVar(&c.protoPaths, "proto-path", nil, "extra .proto import root (repeatable, like protoc -I)")
	c.flags.StringVar(&o.releases, "releases", "", "also record the tags matching this glob (\"v*\"): their field numbers and their contracts' digests")
	return cmd
}

func runLock(e *Env, lo *lockOptions) error {
	po, cfg, err := lo.options(e)
	if err != nil {
		return err
	}
	po.ProtoPaths = append(slices.Clip(lo.protoPaths), po.ProtoPaths...)
	rels, err := lockedReleases(e, lo.releases)
	if err != nil {
		return reviewErr(err)
	}
	file, n, err := review.WriteLock(e.abs("."), cfg.ContractGlobs(), po, rels...)
	if err != nil {
		return reviewErr(err)
	}
	fmt.Fprintf(e.Stdout, "wrote %s: %d field numbers\n", displayPath(e, file), n)
	return nil
}

// lockHistory reads contractlint.lock beside a diff's new side, if any.
func lockHistory(nw pipeline.Side) (*rules.History, error) {
	h, err := review.ReadLock(nw.Src)
	if err != nil {
		return nil, inputErr(err)
	}
	return h, nil
}

// logFiles lists in log the contract files a review found added or deleted,
// which it compared with no other version.
func logFiles(log *changelog.Log, res *review.Result) { res.LogFiles(log) }
