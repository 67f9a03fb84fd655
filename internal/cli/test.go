package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/internal/ruletest"
)

// DefaultTestDir is where `contractlint test` looks for cases by default.
const DefaultTestDir = "testdata/contractlint"

func newTestCmd(e *Env) *cobra.Command {
	var configFile, run string
	cmd := &cobra.Command{
		Use:   "test [DIR]",
		Short: "Run rule fixtures: RULE-ID/CASE/ directories with old and new contracts and inline # want lines",
		Long: `Run rule fixtures the way contractlint tests its own rules. Each case is a
directory DIR/RULE-ID/CASE/ (a custom rule's ID keeps its slash:
DIR/acme/amount-needs-unit/CASE/) holding old.yaml and new.yaml (or .json,
.proto, or old/ and new/ trees), or only a new side for a lint rule. The
findings it must produce are written on the line each points at:

    total_amount: {type: number}  # want acme/amount-needs-unit "no x-unit"

Only the case's rule runs, with the rules an "# also-run RULE..." line names;
every finding not wanted and every want not found fails the case. Custom rules
come from the config (--config, or .contractlint.yaml found upward).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := DefaultTestDir
			if len(args) == 1 {
				dir = args[0]
			}
			var only *regexp.Regexp
			if run != "" {
				var err error
				if only, err = regexp.Compile(run); err != nil {
					return usageErr("--run: %v", err)
				}
			}
			_, reg, err := loadRegistry(e, configFile)
			if err != nil {
				return err
			}
			cases, err := ruletest.Cases(e.abs(dir))
			if err != nil {
				return usageErr("%v", err)
			}
			if len(cases) == 0 {
				return usageErr("%s: no cases (want %s/RULE-ID/CASE/ directories with a new side)", dir, dir)
			}
			failed, ran := 0, 0
			for _, c := range cases {
				name := c.Rule + "/" + filepath.Base(c.Dir)
				if only != nil && !only.MatchString(name) {
					continue
				}
				ran++
				fails, err := ruletest.Check(reg, c)
				if err != nil {
					return usageErr("%s", strings.ReplaceAll(err.Error(), e.abs(dir), dir))
				}
				if len(fails) == 0 {
					fmt.Fprintf(e.Stdout, "ok    %s\n", name)
					continue
				}
				failed++
				fmt.Fprintf(e.Stdout, "FAIL  %s\n", name)
				for _, f := range fails {
					fmt.Fprintf(e.Stdout, "      %s\n", f)
				}
			}
			fmt.Fprintf(e.Stdout, "%d cases, %d failed\n", ran, failed)
			if failed > 0 {
				return &exitError{code: ExitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "config file defining custom rules (default: .contractlint.yaml found upward)")
	cmd.Flags().StringVar(&run, "run", "", "run only the cases whose RULE-ID/CASE matches this regular expression")
	return cmd
}
