// Package scripttest holds what both modules' txtar suites share: the
// environment a script starts with and the commands testscript lacks. The
// linter's scripts run in internal/cli, the charge server's (which also run
// the linter against it) in the chargeserver module.
package scripttest

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// Params runs the scripts in dir with NO_COLOR set, two free loopback ports
// ($PORT, $PORT2: a server and a second one it calls) and the commands
// exitcode and waitfor.
func Params(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			port, err := freePort()
			e.Setenv("PORT", port)
			port2, err2 := freePort()
			e.Setenv("PORT2", port2)
			return errors.Join(err, err2)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitCode,
			"waitfor":  waitFor,
		},
	}
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
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
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
