package cli

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// changelogOptions are the flags of `contractlint changelog`.
type changelogOptions struct {
	common
}

func newChangelogCmd(e *Env) *cobra.Command {
	var o changelogOptions
	c := &o.common
	cmd := &cobra.Command{
		Use:   "changelog OLD NEW",
		Short: "List every change from OLD to NEW, breaking or not, for release notes",
		Long: "changelog lists every change between two versions of a contract, grouped by operation (or rpc)\n" +
			"and then by schema (or message): each change in a shared schema once, with the operations it\n" +
			"reaches. Each entry says whether it was added, changed, deprecated or removed and whether it\n" +
			"breaks existing clients (backward), new clients of an old server (forward), or both.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runChangelog(e, &o, args[0], args[1])
		},
	}
	c.register(cmd)
	c.registerRoot(cmd)
	hideOtherOutputs(cmd)
	f := cmd.Flags()
	f.Lookup("format").Usage = "changelog format: " + strings.Join(changelog.Formats, "|")
	// A changelog informs; it fails a build only when asked to.
	c.failOn = "never"
	f.Lookup("fail-on").DefValue = "never"
	f.Lookup("fail-on").Usage = "exit 1 when a breaking change's finding is at or above: error, warning, info or never"
	return cmd
}

func runChangelog(e *Env, co *changelogOptions, oldArg, newArg string) error {
	if err := co.changelogFormat(); err != nil {
		return err
	}
	o, _, err := co.options(e)
	if err != nil {
		return err
	}
	old, nw, err := openSides(e, oldArg, newArg, &co.common)
	if err != nil {
		return err
	}
	in, err := pipeline.Compare(old, nw, o)
	if err != nil {
		return inputErr(err)
	}
	return co.writeChangelog(e, changelog.Of(in, o.Registry, o.Settings))
}

// writeChangelog writes l where --output says and exits 1 when a breaking
// entry reaches --fail-on.
func (c *common) writeChangelog(e *Env, l *changelog.Log) error {
	threshold, err := c.threshold()
	if err != nil {
		return err
	}
	w := e.Stdout
	if c.output != "" {
		f, err := os.Create(e.abs(c.output))
		if err != nil {
			return usageErr("--output: %v", err)
		}
		defer f.Close()
		w = f
	}
	if err := changelog.Write(w, l, c.format); err != nil {
		return usageErr("writing the changelog: %v", err)
	}
	if err := c.writeChangelogAlso(e, l); err != nil {
		return err
	}
	for _, g := range l.Groups {
		for _, en := range g.Entries {
			for _, b := range en.Breaks {
				if b.Severity >= threshold {
					return &exitError{code: ExitFindings}
				}
			}
		}
	}
	return nil
}

// writeChangelogAlso writes l to each --output-FORMAT file in that format.
func (c *common) writeChangelogAlso(e *Env, l *changelog.Log) error {
	for _, name := range alsoFormats {
		file := c.also[name]
		if file == nil || !c.flags.Changed("output-"+name) {
			continue
		}
		if *file == "" {
			return usageErr("--output-%s: want a file name", name)
		}
		f, err := os.Create(e.abs(*file))
		if err != nil {
			return usageErr("--output-%s: %v", name, err)
		}
		err = changelog.Write(f, l, name)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return usageErr("writing the changelog: %v", err)
		}
	}
	return nil
}

// hideOtherOutputs keeps --output-FORMAT flags a changelog cannot write out
// of the command's help.
func hideOtherOutputs(cmd *cobra.Command) {
	for _, name := range alsoFormats {
		if !slices.Contains(changelog.Formats, name) {
			_ = cmd.Flags().MarkHidden("output-" + name)
		}
	}
}

func (c *common) changelogFormat() error {
	if !slices.Contains(changelog.Formats, c.format) {
		return usageErr("--format: a changelog is %s, not %q", strings.Join(changelog.Formats, ", "), c.format)
	}
	// A changelog has no SARIF form: refused before anything is written,
	// rather than silently writing nothing.
	for _, name := range alsoFormats {
		if !slices.Contains(changelog.Formats, name) && c.flags.Changed("output-"+name) {
			return usageErr("--output-%s: a changelog has no %s form; it is %s", name, strings.ToUpper(name), strings.Join(changelog.Formats, ", "))
		}
	}
	return nil
}

// collectChangelog makes every diff the run judges add its changes to the
// returned log, each file's groups under the file's name.
func (c *common) collectChangelog(po *pipeline.Options) (*changelog.Log, error) {
	if err := c.changelogFormat(); err != nil {
		return nil, err
	}
	all := &changelog.Log{}
	reg, settings := po.Registry, po.Settings
	po.Compared = func(in *rules.Input) {
		all.Merge(changelog.Of(in, reg, settings))
	}
	return all, nil
}
