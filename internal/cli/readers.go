package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/source"
)

// readerOpts holds the consumer-evidence flags.
type readerOpts struct {
	paths  []string
	window window
	// until ends the window: the clock's now unless --readers-until says.
	until   string
	mapping readers.Mapping
	// root is the repository the paths must stay in: the working
	// directory's for --readers, the config's for readers.paths.
	root string
}

// addReaderFlags registers --readers and --readers-window on cmd.
func addReaderFlags(cmd *cobra.Command, o *readerOpts) {
	o.window = window(readers.DefaultWindow)
	f := cmd.Flags()
	f.StringArrayVar(&o.paths, "readers", nil,
		"consumer evidence: a Pact file, a usage file (.json or .csv), a HAR file, OTLP JSON traces, a JSON access log, or a directory of them (repeatable)")
	f.Var(&o.window, "readers-window", "reads older than this no longer count: 30d, 4w or a duration such as 720h")
	f.StringVar(&o.until, "readers-until", "", "end the readers window at this date or RFC 3339 time instead of now")
}

// load reads the evidence files; nil when --readers was not given. Warnings
// (files or rules read but not used) go to standard error.
func (o *readerOpts) load(e *Env, lim limits.Limits) (*readers.Set, error) {
	if len(o.paths) == 0 {
		return nil, nil
	}
	warn := func(msg string) { fmt.Fprintln(e.Stderr, "contractlint: warning:", report.Clean(msg)) }
	root := o.root
	if root == "" {
		var err error
		if root, err = source.Root(e.abs(".")); err != nil {
			return nil, usageErr("--readers: %v", err)
		}
	}
	now := e.Now()
	if o.until != "" {
		t, err := readers.ParseTime(o.until)
		if err != nil {
			return nil, usageErr("--readers-until: %v", err)
		}
		now = t
	}
	progress := func(msg string) { fmt.Fprintln(e.Stderr, "contractlint:", report.Clean(msg)) }
	s, err := readers.LoadWith(readers.Options{WD: e.abs("."), Root: root, Paths: o.paths,
		Window: time.Duration(o.window), Now: now, MaxFile: lim.OrDefault().FileSize,
		Mapping: o.mapping, Warn: warn, Progress: progress})
	if err != nil {
		return nil, inputErr(err)
	}
	return s, nil
}

// window is a pflag.Value for --readers-window.
type window time.Duration

func (w *window) Set(s string) error {
	d, err := readers.ParseWindow(s)
	if err != nil {
		return err
	}
	*w = window(d)
	return nil
}

func (w *window) Type() string { return "window" }

func (w *window) String() string {
	d := time.Duration(*w)
	if day := 24 * time.Hour; d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}
