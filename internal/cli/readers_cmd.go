package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/report"
)

// newReadersCmd is `contractlint readers FILE…`: what the evidence files
// teach, before a gate trusts them.
func newReadersCmd(e *Env) *cobra.Command {
	var o readerOpts
	var format, configFile string
	cmd := &cobra.Command{
		Use:   "readers FILE...",
		Short: "Print what consumer evidence (Pact, usage, HAR, OTLP traces, access logs) shows, by consumer",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageErr("unknown format %q for readers (want text or json)", format)
			}
			cfg, err := loadConfig(e, configFile)
			if err != nil {
				return err
			}
			o.defaults(e, cfg, cmd.Flags())
			o.paths, o.root = args, ""
			lim := limits.Limits{}
			if cfg != nil {
				lim = cfg.Limits
			}
			set, err := o.load(e, lim)
			if err != nil {
				return err
			}
			sum := set.Summarize(o.window.String())
			if format == "json" {
				enc := json.NewEncoder(e.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			printSummary(e.Stdout, sum)
			return nil
		},
	}
	addReaderFlags(cmd, &o)
	cmd.Flags().Lookup("readers").Hidden = true // the files are the arguments
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	cmd.Flags().StringVar(&configFile, "config", "", "config whose readers.consumer and readers.log to use (default: "+config.FileName+" found upward)")
	return cmd
}

func printSummary(w io.Writer, s readers.Summary) {
	fmt.Fprintf(w, "window %s: %s to %s\n", s.Window, stamp(s.Since), stamp(s.Until))
	for _, f := range s.Files {
		fmt.Fprintf(w, "%s (%s)", report.Clean(f.File), f.Format)
		if f.Requests > 0 {
			cover := "starts inside the window: no call in it proves nothing"
			if f.Covers {
				cover = "covers the window"
			}
			fmt.Fprintf(w, ": %d requests (%d refused, 4xx), %d in the window, from %d consumers, %s to %s; %s",
				f.Requests, f.Refused, f.Recent, len(f.Consumers), stamp(f.First), stamp(f.Last), cover)
		}
		fmt.Fprintln(w)
	}
	for _, c := range s.Consumers {
		fmt.Fprintf(w, "\nconsumer %s\n", report.Clean(c.Name))
		for _, op := range c.Operations {
			fmt.Fprintf(w, "  %s: %d calls, %d in the window", report.Clean(op.Operation), op.Calls, op.Recent)
			if !op.LastSeen.IsZero() {
				fmt.Fprintf(w, ", last %s", stamp(op.LastSeen))
			}
			fmt.Fprintln(w)
			for _, f := range op.Fields {
				fmt.Fprintf(w, "    %-8s %s: %d, %d in the window\n", f.Side, report.Clean(f.Field), f.Count, f.Recent)
			}
		}
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return strings.TrimSuffix(t.UTC().Format(time.RFC3339), "T00:00:00Z")
}
