package cli

import (
	"io"
	"net/url"

	"github.com/spf13/cobra"
)

// registerLive adds the flags of a command that talks to a live server
// (probe, replay): the common ones without the proto flags, which mean
// nothing to an HTTP server, and --header.
func registerLive(cmd *cobra.Command, c *common, headers *[]string) {
	c.register(cmd)
	_ = cmd.Flags().MarkHidden("proto-path")
	_ = cmd.Flags().MarkHidden("proto-level")
	_ = cmd.Flags().MarkHidden("no-shortcuts")
	cmd.Flags().StringArrayVarP(headers, "header", "H", nil, "request header 'Name: value' (repeatable), such as 'Authorization: Bearer …'")
}

// liveURL reads a live command's URL argument.
func liveURL(command, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageErr("%s: %q is not an absolute http or https URL", command, raw)
	}
	return u, nil
}

// progress is where a live command's plan and progress go: with a text
// report on standard output, beside a machine-readable one to standard
// error.
func (c *common) progress(e *Env) io.Writer {
	if c.format == "text" && c.output == "" {
		return e.Stdout
	}
	return e.Stderr
}
