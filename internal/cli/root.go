// Package cli holds the cobra commands: each parses flags into options and
// calls a run function; nothing here decides what is a finding.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Env is everything a command may touch besides the file system: the CLI is
// a function of these, so tests can run it in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Exit codes, as in DESIGN.md section 1.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
)

// exitError carries an exit code up to Run; a nil message prints nothing.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageErr is a bad invocation or unreadable input: exit 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, msg: fmt.Sprintf(format, args...)}
}

// Run runs contractlint with args and returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	root := newRoot(e)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.msg != "" {
			fmt.Fprintln(stderr, "contractlint:", xe.msg)
		}
		return xe.code
	}
	// cobra's own errors (unknown flag, wrong argument count) are usage errors.
	fmt.Fprintln(stderr, "contractlint:", err)
	return ExitUsage
}

func newRoot(e *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "contractlint",
		Short:         "Find the API contract changes that break existing clients",
		Long:          "contractlint compares two versions of an OpenAPI or Protocol Buffers contract and reports, with file and line, every change that breaks a client that already exists.",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.Version = Version()
	root.SetIn(e.Stdin)
	root.SetOut(e.Stdout)
	root.SetErr(e.Stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	for _, add := range commands {
		root.AddCommand(add(e))
	}
	return root
}

// commands lists every subcommand constructor; each lives in its own file.
var commands = []func(*Env) *cobra.Command{
	newRulesCmd,
	newDiffCmd,
	newProbeCmd,
	newLintCmd,
	newInitCmd,
	newChargeServerCmd,
	newReviewCmd,
	newLockCmd,
	newChangelogCmd,
}

// Version is the module version the binary was built from ("devel" for a
// build from a checkout).
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
