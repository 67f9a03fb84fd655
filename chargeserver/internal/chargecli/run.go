package chargecli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// env is what a command may touch besides the file system and the network.
type env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Dir is the directory relative file names are named from; "" is the
	// process's.
	Dir string
}

// path is name as the process opens it: relative names are named from Dir.
func (e *env) path(name string) string {
	if e.Dir == "" || name == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(e.Dir, name)
}

// database is a --database value as the process opens it: a relative
// sqlite:PATH is named from Dir.
func (e *env) database(dsn string) string {
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		return "sqlite:" + e.path(p)
	}
	return dsn
}

// Exit codes: 0 yes (served, charged, agrees), 1 no (a difference, not
// charged, outcome unknown), 2 a usage error.
const (
	exitYes   = 0
	exitNo    = 1
	exitUsage = 2
)

// exitError carries an exit code up to run; an empty message prints nothing.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

// Server runs charge-server with args and returns the exit code.
func Server(args []string, stdout, stderr io.Writer) int {
	return ServerEnv(args, stdout, stderr, os.Getenv, "")
}

// ServerEnv is Server with the environment read through getenv and
// relative file names (--database sqlite:PATH, --api-keys, --trace-file)
// named from dir: with it a caller (a test script) runs the server's
// commands in its own process, in an environment and a directory of their
// own.
func ServerEnv(args []string, stdout, stderr io.Writer, getenv func(string) string, dir string) int {
	return run(newChargeServerCmd, args, &env{Stdout: stdout, Stderr: stderr, Getenv: getenv, Dir: dir})
}

// Client runs charge-client with args and returns the exit code.
func Client(args []string, stdout, stderr io.Writer) int {
	return ClientEnv(args, stdout, stderr, os.Getenv)
}

// ClientEnv is Client with the environment read through getenv: the client
// opens no file, so with it a caller (a test script) runs the client in its
// own process under an environment of its own.
func ClientEnv(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return run(newChargeClientCmd, args, &env{Stdout: stdout, Stderr: stderr, Getenv: getenv})
}

func run(newCmd func(*env) *cobra.Command, args []string, e *env) int {
	stdout, stderr := e.Stdout, e.Stderr
	cmd := newCmd(e)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return exitYes
	}
	code := exitUsage // cobra's own errors: unknown flag, wrong arguments
	var xe *exitError
	if errors.As(err, &xe) {
		code = xe.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", cmd.Name(), msg)
	}
	return code
}
