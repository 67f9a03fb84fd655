package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// newDebugCmd holds contributor tools: what the rules were given, so a false
// alarm is diagnosed by reading the typed diff rather than the loader.
func newDebugCmd(e *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Contributor tools: show what the rules receive",
	}
	cmd.AddCommand(newDebugDiffCmd(e), newDebugVocabularyCmd(e))
	return cmd
}

// newDebugVocabularyCmd prints rules.Vocabulary: every kind of change a rule
// can match on, with what its text and typed fields hold.
func newDebugVocabularyCmd(e *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "vocabulary",
		Short: "Print every kind of change the diffs emit, with what each change holds",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "FORMAT\tKIND\tSUBJECT\tASPECT\tOLD\tNEW\tTYPED")
			for _, t := range rules.Vocabulary() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Formats, t.Kind, t.Subject, orDash(string(t.Aspect)),
					orDash(t.Old), orDash(t.New), orDash(t.Typed))
			}
			return tw.Flush()
		},
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newDebugDiffCmd(e *Env) *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Print the typed changes between OLD and NEW that the rules receive",
		Long: "debug diff prints every change the diff hands the rules, one per line: kind, subject,\n" +
			"aspect, name, old and new values, direction, both locations and the operations that\n" +
			"reach it. The whole contracts are compared (as --no-shortcuts), so what it prints is\n" +
			"what a full run judges.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDebugDiff(e, &o, args[0], args[1])
		},
	}
	o.register(cmd)
	o.registerRoot(cmd)
	return cmd
}

func runDebugDiff(e *Env, do *diffOptions, oldArg, newArg string) error {
	o, _, err := do.options(e)
	if err != nil {
		return err
	}
	o.Whole = true
	old, nw, err := openSides(e, oldArg, newArg, &do.common)
	if err != nil {
		return err
	}
	in, err := pipeline.Compare(old, nw, o)
	if err != nil {
		return do.inputProblems(e, err, o.Registry)
	}
	for i := range in.Changes {
		writeChange(e.Stdout, &in.Changes[i])
	}
	fmt.Fprintf(e.Stdout, "%d changes\n", len(in.Changes))
	return nil
}

// writeChange prints one change as key=value pairs after its kind and
// subject; %q escapes contract text, control characters included.
func writeChange(w io.Writer, c *rules.Change) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", c.Format, c.Kind, c.Subject)
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	field("aspect", string(c.Aspect))
	field("name", c.Name)
	field("path", c.Path)
	field("old", c.Old.Text)
	field("new", c.New.Text)
	if c.Required {
		field("required", "true")
	}
	field("in", c.In)
	if c.Webhook {
		field("webhook", "true")
	}
	field("old-field", fieldFacts(c.OldField))
	field("new-field", fieldFacts(c.NewField))
	if c.Dir != 0 {
		field("dir", c.Dir.String())
	}
	if !c.OldLoc.IsZero() {
		field("at-old", c.OldLoc.String())
	}
	if !c.NewLoc.IsZero() {
		field("at-new", c.NewLoc.String())
	}
	if len(c.Operations) > 0 {
		field("reaches", strings.Join(c.Operations, ", "))
	}
	fmt.Fprintln(w, b.String())
}

// fieldFacts is the meaning-bearing part of a field, as the evolution rules
// compare it.
func fieldFacts(f *rules.Field) string {
	if f == nil {
		return ""
	}
	facts := []string{"type " + f.Type}
	add := func(on bool, s string) {
		if on {
			facts = append(facts, s)
		}
	}
	add(f.Format != "", "format "+f.Format)
	add(f.Unit != "", "unit "+f.Unit)
	add(f.Number != 0, fmt.Sprintf("number %d", f.Number))
	add(f.Array, "array")
	add(f.Map, "map")
	add(f.Required, "required")
	add(f.Nullable, "nullable")
	add(f.Deprecated, "deprecated")
	return strings.Join(facts, ", ")
}
