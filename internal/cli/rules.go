package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/rules"
)

func newRulesCmd(e *Env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules [ID]",
		Short: "List every rule, or print one rule's documentation",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := rules.Default()
			if len(args) == 1 {
				r, ok := reg.Get(args[0])
				if !ok {
					return usageErr("no rule %q; `contractlint rules` lists them", args[0])
				}
				fmt.Fprint(e.Stdout, RuleDoc(r))
				return nil
			}
			switch format {
			case "text":
				return listRules(e, reg)
			case "json":
				return jsonRules(e, reg)
			}
			return usageErr("unknown format %q for rules (want text or json)", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

func listRules(e *Env, reg *rules.Registry) error {
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPACK\tFORMATS\tSEVERITY\tTITLE")
	for _, r := range reg.All() {
		sev := r.Severity.String()
		if r.Off {
			sev += " (off)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Pack, r.Formats, sev, r.Doc.Title)
	}
	return tw.Flush()
}

type ruleJSON struct {
	ID       string         `json:"id"`
	Pack     string         `json:"pack"`
	Formats  []string       `json:"formats"`
	Severity rules.Severity `json:"severity"`
	Default  bool           `json:"enabled_by_default"`
	Title    string         `json:"title"`
	Doc      string         `json:"doc"`
	Bad      string         `json:"bad"`
	Good     string         `json:"good"`
	Buf      []string       `json:"buf,omitempty"`
}

func jsonRules(e *Env, reg *rules.Registry) error {
	out := []ruleJSON{}
	for _, r := range reg.All() {
		out = append(out, ruleJSON{ID: r.ID, Pack: string(r.Pack), Formats: strings.Split(r.Formats.String(), ","),
			Severity: r.Severity, Default: !r.Off, Title: r.Doc.Title, Doc: r.Doc.Text, Bad: r.Doc.Bad, Good: r.Doc.Good, Buf: r.Buf})
	}
	enc := json.NewEncoder(e.Stdout)
	enc.SetEscapeHTML(false) // our own docs: keep "->" readable
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// RuleDoc renders one rule's documentation as `contractlint rules ID` prints it.
func RuleDoc(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", r.ID, r.Doc.Title)
	fmt.Fprintf(&b, "pack: %s   formats: %s   severity: %s", r.Pack, r.Formats, r.Severity)
	if r.Off {
		b.WriteString(" (off by default)")
	}
	b.WriteString("\n")
	if len(r.Buf) > 0 {
		fmt.Fprintf(&b, "covers buf: %s\n", strings.Join(r.Buf, ", "))
	}
	fmt.Fprintf(&b, "\n%s\n\nBad:\n%s\n\nGood:\n%s\n", r.Doc.Text, indent(r.Doc.Bad), indent(r.Doc.Good))
	return b.String()
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
