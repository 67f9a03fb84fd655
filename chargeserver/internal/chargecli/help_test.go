package chargecli

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagHelpNamesTheValue: pflag shows the first `quoted` word of a usage
// string as the flag's value, so `--processor charge-server processor` read
// as if the flag took a command. Every flag's help shows its type instead.
func TestFlagHelpNamesTheValue(t *testing.T) {
	e := &env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	for _, root := range []*cobra.Command{newChargeServerCmd(e), newChargeClientCmd(e)} {
		for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
			check := func(f *pflag.Flag) {
				if name, _ := pflag.UnquoteUsage(f); strings.ContainsRune(f.Usage, '`') {
					t.Errorf("%s --%s: help shows its value as %q; write the usage without backquotes", c.CommandPath(), f.Name, name)
				}
			}
			c.Flags().VisitAll(check)
			c.PersistentFlags().VisitAll(check)
		}
	}
}
