package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// lintOptions are the flags of `contractlint lint`.
type lintOptions struct {
	common
}

func newLintCmd(e *Env) *cobra.Command {
	var o lintOptions
	cmd := &cobra.Command{
		Use:   "lint SPEC...",
		Short: "Check contracts with the single-contract rules (idempotency, evolvability)",
		Long: "lint checks each SPEC on its own: an OpenAPI file (YAML or JSON, 3.0 or 3.1), a .proto\n" +
			"file, or a directory of .proto files. It reports every finding of the single-contract\n" +
			"rules, old or new; diff reports them only where the change made them true.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLint(e, &o, args)
		},
	}
	o.register(cmd)
	o.registerRoot(cmd)
	return cmd
}

func runLint(e *Env, lo *lintOptions, specs []string) error {
	o, _, err := lo.options(e)
	if err != nil {
		return err
	}
	fs, err := lintAll(e, specs, &lo.common, o)
	if err != nil {
		return err
	}
	return lo.emit(e, &report.Report{Findings: fs}, o)
}

// lintAll lints every spec and reports every unreadable one together, so a
// user fixing input errors sees them all in one run.
func lintAll(e *Env, args []string, c *common, o pipeline.Options) ([]rules.Finding, error) {
	var all []rules.Finding
	var probs source.Problems
	var errs []error
	for _, arg := range args {
		side, err := openSideIn(e, arg, c.protoPaths, c.root)
		if err != nil {
			return nil, err
		}
		fs, err := pipeline.Lint(side, o)
		var ps source.Problems
		switch {
		case errors.As(err, &ps):
			probs = append(probs, ps...)
		case err != nil:
			errs = append(errs, err)
		}
		all = append(all, fs...)
	}
	if len(probs) > 0 {
		errs = append(errs, probs)
	}
	if len(errs) > 0 {
		return nil, inputErr(errors.Join(errs...))
	}
	rules.SortFindings(all)
	return all, nil
}
