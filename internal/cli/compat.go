package cli

import (
	"github.com/spf13/cobra"

	"github.com/contractlint/contractlint/rules"
)

// registerCompat adds --compat to a command that judges a diff.
func (c *common) registerCompat(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.compat, "compat", "backward",
		"directions to judge: backward (old clients, new server), forward (new clients, old server) or full (both); default: the config's compat, else backward")
}

// applyCompat lets --compat, when given, win over the config's compat key.
func (c *common) applyCompat(s *rules.Settings) error {
	if f := c.flags.Lookup("compat"); f == nil || !f.Changed {
		return nil
	}
	compat, err := rules.ParseCompat(c.compat)
	if err != nil {
		return usageErr("--compat: %v", err)
	}
	s.Compat = compat
	return nil
}
