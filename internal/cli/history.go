package cli

import (
	"errors"
	"io"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/internal/timeline"
)

// historyOptions are the flags of `contractlint history`.
type historyOptions struct {
	common
	readers      readerOpts
	against      []string
	tags         string
	supported    string
	linkBase     string
	html         string
	historyDepth int
}

// historyFormats are the formats of --format.
var historyFormats = []string{"text", "json", "html"}

func newHistoryCmd(e *Env) *cobra.Command {
	o := historyOptions{}
	cmd := &cobra.Command{
		Use:   "history [--tags GLOB | --against REF...] [--html FILE]",
		Short: "One timeline of every release: what each broke and added, OpenAPI and proto alike",
		Long: "history walks the release tags (--tags, default \"v*\"; or the refs --against names) and the head,\n" +
			"compares each release with the one before and the head with each release, as review --base and\n" +
			"review --against-tags do, and reports per release and per format the findings by severity and the\n" +
			"additive changes, and per operation or message every change with its rule, message and place.\n" +
			"--html writes one self-contained page (no network, readable without JavaScript); --format json\n" +
			"writes the same data.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(e, &o)
		},
	}
	c := &o.common
	f := cmd.Flags()
	c.flags = f
	f.StringVar(&c.config, "config", "", "config file (default: .contractlint.yaml found upward from the working directory)")
	f.StringVar(&c.format, "format", "text", "report format: "+strings.Join(historyFormats, "|"))
	f.StringVarP(&c.output, "output", "o", "", "write the report to this file instead of standard output")
	f.StringVar(&c.failOn, "fail-on", "never", "exit 1 when a finding the head still has against a release is at or above: error, warning, info or never")
	f.StringArrayVar(&c.protoPaths, "proto-path", nil, "extra .proto import root (repeatable, like protoc -I)")
	f.StringVar(&c.protoLevel, "proto-level", "file", "proto strictness: file, package, wire-json or wire")
	o.registerCompat(cmd)
	addReaderFlags(cmd, &o.readers)
	f.StringVar(&o.tags, "tags", "", "the releases: every tag matching this glob (default \"v*\" unless --against is given)")
	f.StringArrayVar(&o.against, "against", nil, "a release to put on the timeline (repeatable)")
	f.StringVar(&o.supported, "supported", "", "releases still supported (\"v2.*\"), the oldest of them highlighted (default: those consumer evidence shows called)")
	f.StringVar(&o.linkBase, "link-base", "", "link each file:line to LINKBASE/COMMIT/FILE#LLINE (default on GitHub: the repository's blob URL)")
	f.StringVar(&o.html, "html", "", "also write the report as one self-contained HTML page to this file")
	f.IntVar(&o.historyDepth, "history-depth", 0, "commits of each .proto file's history read for field numbers used before (0: all)")
	return cmd
}

func runHistory(e *Env, ho *historyOptions) error {
	if !slices.Contains(historyFormats, ho.format) {
		return usageErr("--format: history is %s, not %q", strings.Join(historyFormats, ", "), ho.format)
	}
	if _, err := path.Match(ho.supported, ""); err != nil {
		return usageErr("--supported %q: %v", ho.supported, err)
	}
	if ho.linkBase != "" {
		if u, err := url.Parse(ho.linkBase); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return usageErr("--link-base %q: want an http or https URL such as https://github.com/OWNER/REPO/blob", ho.linkBase)
		}
	}
	threshold, err := ho.threshold()
	if err != nil {
		return err
	}
	po, cfg, err := ho.options(e)
	if err != nil {
		return err
	}
	po.ProtoPaths = append(slices.Clip(ho.protoPaths), po.ProtoPaths...)
	repo, err := review.OpenRepo(e.abs("."))
	if err != nil {
		return reviewErr(err)
	}
	if len(cfg.Ignore) > 0 {
		po.Settings.IgnoreName = ignoreNames(cfg.Dir, repo.Top)
	}
	ho.readers.defaults(e, cfg, ho.flags)
	if po.Readers, err = ho.readers.load(e, po.Limits); err != nil {
		return err
	}
	o := timeline.Options{Against: ho.against, Tags: ho.tags, Supported: ho.supported, LinkBase: ho.linkBase}
	if o.Tags == "" && len(o.Against) == 0 {
		o.Tags = "v*"
	}
	if o.LinkBase == "" {
		o.LinkBase = defaultLinkBase(e, repo)
	}
	o.Review = review.Options{Dir: repo.Top, Globs: cfg.ContractGlobs(), HistoryDepth: cfg.HistoryDepth, HistoryAll: cfg.HistoryAll, Pipeline: po}
	if ho.flags.Changed("history-depth") {
		o.Review.HistoryDepth = ho.historyDepth
	}
	if cfg.Contracts != nil {
		o.Review.GlobsFrom = cfg.File
	}
	r, err := timeline.Build(o)
	if err != nil {
		if errors.As(err, new(source.Problems)) {
			return inputErr(err)
		}
		return reviewErr(err)
	}
	if ho.html != "" {
		if err := writeFileWith(e, ho.html, "--html", r, timeline.WriteHTML); err != nil {
			return err
		}
	}
	write := map[string]func(io.Writer, *timeline.Report) error{
		"text": timeline.WriteText, "json": timeline.WriteJSON, "html": timeline.WriteHTML}[ho.format]
	if ho.output != "" {
		err = writeFileWith(e, ho.output, "--output", r, write)
	} else if err = write(e.Stdout, r); err != nil {
		err = usageErr("writing the report: %v", err)
	}
	if err != nil {
		return err
	}
	for _, f := range r.Breaks {
		if f.Severity >= threshold {
			return &exitError{code: ExitFindings}
		}
	}
	return nil
}

// writeFileWith writes r with write to file (named from the working
// directory), failing as flag.
func writeFileWith(e *Env, file, flag string, r *timeline.Report, write func(io.Writer, *timeline.Report) error) error {
	f, err := os.Create(e.abs(file))
	if err != nil {
		return usageErr("%s: %v", flag, unwrapPath(err))
	}
	if err := write(f, r); err != nil {
		f.Close()
		return usageErr("%s: writing the report: %v", flag, err)
	}
	if err := f.Close(); err != nil {
		return usageErr("%s: %v", flag, unwrapPath(err))
	}
	return nil
}

// defaultLinkBase links files to the repository's host when it is known to
// serve them at /blob/COMMIT/FILE: on a GitHub runner, or with an origin on
// github.com.
func defaultLinkBase(e *Env, repo *review.Repo) string {
	if server, name := e.Getenv("GITHUB_SERVER_URL"), e.Getenv("GITHUB_REPOSITORY"); server != "" && name != "" {
		return strings.TrimSuffix(server, "/") + "/" + name + "/blob"
	}
	u, err := url.Parse(repo.RemoteURI())
	if err != nil || u.Host != "github.com" {
		return ""
	}
	return "https://github.com" + strings.TrimSuffix(u.Path, ".git") + "/blob"
}
