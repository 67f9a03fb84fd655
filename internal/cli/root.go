// Package cli holds the cobra commands: each parses flags into options and
// calls a run function; nothing here decides what is a finding.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"
)

// Env is everything a command may touch besides the file system: the CLI is
// a function of these, so tests can run it in-process with their own.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Now is the clock: evidence ages (--readers-window) are measured from it.
	Now func() time.Time
	// Getwd is the working directory: relative file arguments are named
	// from it, file names are shown relative to it and the config is looked
	// for upward from it.
	Getwd func() (string, error)
}

// OSEnv is the environment of the running process.
func OSEnv(stdin io.Reader, stdout, stderr io.Writer) *Env {
	return &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Now: time.Now, Getwd: os.Getwd}
}

// Exit codes, as the README states them.
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

// Run runs contractlint with args in the process's environment and returns
// the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Main(args, OSEnv(stdin, stdout, stderr))
}

// Main runs contractlint with args in the environment e and returns the
// exit code; nothing it does reads the process environment.
func Main(args []string, e *Env) int {
	stderr := e.Stderr
	root := newRoot(e)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.msg != "" {
			fmt.Fprintln(stderr, "contractlint:", cleanLines(xe.msg))
		}
		return xe.code
	}
	// cobra's own errors (unknown flag, wrong argument count) are usage errors.
	fmt.Fprintln(stderr, "contractlint:", cleanLines(err.Error()))
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
	newHistoryCmd,
	newProbeCmd,
	newReplayCmd,
	newLintCmd,
	newInitCmd,
	newReviewCmd,
	newLockCmd,
	newChangelogCmd,
	newDebugCmd,
	newLSPCmd,
	newTestCmd,
	newWaiveCmd,
	newReadersCmd,
}

// Version is the module version the binary was built from: the tag `go
// install ...@v1.2.0` recorded, else "devel" with the commit a checkout
// build recorded.
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

// noCommit is the version of a build that recorded no commit.
const noCommit = "devel (no commit recorded: built by go run or with -buildvcs=false; go build in a checkout records it)"

// pseudo is a pseudo-version's tail: the commit time, the commit, and
// +dirty for a modified checkout.
var pseudo = regexp.MustCompile(`\d{14}-([0-9a-f]{12})(\+dirty)?$`)

func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return noCommit
	}
	var rev, dirty string
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		m := pseudo.FindStringSubmatch(v)
		if m == nil {
			return v
		}
		// Not a release: the commit it was built from.
		rev = m[1]
		if m[2] != "" {
			dirty = ", modified"
		}
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = ", modified"
		}
	}
	if rev == "" {
		return noCommit
	}
	return "devel (" + rev + dirty + ")"
}
