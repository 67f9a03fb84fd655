package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/rules"
)

func newRulesCmd(e *Env) *cobra.Command {
	var format, configFile string
	cmd := &cobra.Command{
		Use:   "rules [ID]",
		Short: "List every rule, or print one rule's documentation",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The config's own rules are listed and documented too.
			_, reg, err := loadRegistry(e, configFile)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				return ruleDocs(e, reg, args[0])
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
	cmd.Flags().StringVar(&configFile, "config", "", "config file whose custom rules to list too (default: "+config.FileName+" found upward)")
	return cmd
}

// ruleDocs prints the documentation of the rule name stands for: its own,
// or, for a buf or oasdiff name, of each rule it maps to, saying so.
func ruleDocs(e *Env, reg *rules.Registry, name string) error {
	ids, via := reg.Resolve(name)
	if len(ids) == 0 {
		return usageErr("no rule %q; `contractlint rules` lists them", name)
	}
	if via != "" {
		fmt.Fprintf(e.Stdout, "%s %s: contractlint checks it with %s\n\n", via, name, strings.Join(ids, ", "))
	}
	for i, id := range ids {
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		r, _ := reg.Get(id)
		fmt.Fprint(e.Stdout, RuleDoc(r))
	}
	return nil
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
	fmt.Fprintf(&b, "\n%s\n", r.Doc.Text)
	// A custom rule's examples are its fixtures, not part of its doc.
	if r.Doc.Bad != "" || r.Doc.Good != "" {
		fmt.Fprintf(&b, "\nBad:\n%s\n\nGood:\n%s\n", indent(r.Doc.Bad), indent(r.Doc.Good))
	}
	return b.String()
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
