package cli_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contractlint/contractlint/chargeserver/internal/chargecli"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/probe/probefake"
)

func TestMain(m *testing.M) {
	// Every script at once (probefake.AllAtOnce): they wait on the probe's held
	// requests and on servers starting, not on the CPU.
	testscript.Main(probefake.AllAtOnce(m), map[string]func(){
		"contractlint":  func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"charge-server": func() { os.Exit(chargecli.Server(os.Args[1:], os.Stdout, os.Stderr)) },
		"charge-client": func() { os.Exit(chargecli.Client(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: the charge server and its client
// as a user runs them, and the linter's live commands (probe, replay) against
// them. exitCode repeats the linter's own (internal/cli): a shared package
// would be compiled by every `go install ./...` of the linter, testscript
// and go/parser with it, for the hook's install to throw away.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		// The scripts' charge servers commit to SQLite files in $WORK:
		// in memory, as the charge server's own tests keep theirs.
		WorkdirRoot:   testdb.MemoryDir(t),
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			port, err := freePort()
			e.Setenv("PORT", port)
			// A second server (the charge server's processor service).
			port2, err2 := freePort()
			e.Setenv("PORT2", port2)
			return errors.Join(err, err2)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitCode,
			"waitfor":  waitFor,
		},
	})
}

// exitCode runs `exitcode N cmd args...` and asserts the exact exit status,
// which `! exec` cannot (it accepts any non-zero status).
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	var got int
	if run, ok := inProcess[args[1]]; ok {
		got = runInProcess(ts, args[1], args[2:], run)
	} else if err := ts.Exec(args[1], args[2:]...); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// inProcess are the commands exitcode runs in this process, in the
// script's environment and directory: a start of the test binary costs
// more CPU than most of the commands it runs. (A server a script starts
// in the background, with exec &, is a process: the script stops it.)
var inProcess = map[string]func(ts *testscript.TestScript, args []string) int{
	"contractlint": func(ts *testscript.TestScript, args []string) int {
		wd := ts.MkAbs(".")
		return cli.Main(args, &cli.Env{Stdin: strings.NewReader(""), Stdout: ts.Stdout(), Stderr: ts.Stderr(),
			Getenv: ts.Getenv, Now: time.Now, Getwd: func() (string, error) { return wd, nil }})
	},
	"charge-client": func(ts *testscript.TestScript, args []string) int {
		return chargecli.ClientEnv(args, ts.Stdout(), ts.Stderr(), ts.Getenv)
	},
	"charge-server": func(ts *testscript.TestScript, args []string) int {
		return chargecli.ServerEnv(args, ts.Stdout(), ts.Stderr(), ts.Getenv, ts.MkAbs("."))
	},
}

// runInProcess runs one of inProcess and returns its exit code; a panic,
// which as a process would exit 2 with a trace, fails the script with the
// trace.
func runInProcess(ts *testscript.TestScript, name string, args []string, run func(*testscript.TestScript, []string) int) int {
	defer func() {
		if r := recover(); r != nil {
			ts.Fatalf("%s %s panicked: %v\n%s", name, strings.Join(args, " "), r, debug.Stack())
		}
	}()
	return run(ts, args)
}

// freePort picks a loopback port for a script's server ($PORT), so scripts
// running in parallel or right after each other never collide.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// waitFor waits until HOST:PORT accepts connections (a server a script
// started in the background is ready), for at most 15 seconds.
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfor HOST:PORT")
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", args[0], time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not start listening: %v", args[0], err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
