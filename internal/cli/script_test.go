package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/gittest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"contractlint": func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: the CLI as a user runs it. The
// scripts that start the charge server run in its module (chargeserver/).
// `exitcode N contractlint ...` runs the CLI in this process (see
// exitCode), so the git it starts reads this process's environment: the
// same isolation the scripts give their own git (no global or system
// config, no GIT_DIR from a hook running the tests).
func TestScripts(t *testing.T) {
	gittest.IsolateEnv(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			// The scripts' git, as the in-process CLI's, starts no
			// maintenance after each commit.
			for _, kv := range gittest.QuietEnv() {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitCode,
			"commit":   gitCommit,
			"init":     gitInit,
		},
	})
}

// exitCode runs `exitcode N cmd args...` and asserts the exact exit status,
// which `! exec` cannot (it accepts any non-zero status). contractlint runs
// in this process, with the script's arguments, environment and working
// directory, as cli.Main allows: a child process per run (a 40 MB binary
// and its package initialisation) was most of the scripts' CPU. `exec
// contractlint` still runs it as a process.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	var got int
	if args[1] == "contractlint" && inProcess(ts) {
		got = runInProcess(ts, args[2:])
	} else {
		got = execCode(ts, args[1], args[2:])
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// inProcess reports whether the CLI may run in this process: its git
// children inherit this process's environment, so a script that points
// git elsewhere (GIT_DIR, a hook's index), configures it otherwise than
// this process does, or changes PATH runs it as a process. A script's stdin is not passed in: one that feeds contractlint
// stdin uses exec.
func inProcess(ts *testscript.TestScript) bool {
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"} {
		if ts.Getenv(k) != os.Getenv(k) {
			return false
		}
	}
	return ts.Getenv("PATH") == os.Getenv("PATH")
}

// runInProcess runs cli.Main as the script's command and returns its exit
// code; a panic, which as a process would exit 2 with a trace, fails the
// script with the trace.
func runInProcess(ts *testscript.TestScript, args []string) (code int) {
	wd := ts.MkAbs(".")
	e := &cli.Env{Stdin: strings.NewReader(""), Stdout: ts.Stdout(), Stderr: ts.Stderr(),
		Getenv: ts.Getenv, Now: time.Now, Getwd: func() (string, error) { return wd, nil }}
	defer func() {
		if r := recover(); r != nil {
			ts.Fatalf("contractlint %s panicked: %v\n%s", strings.Join(args, " "), r, debug.Stack())
		}
	}()
	return cli.Main(args, e)
}

// gitInit runs `init -b BRANCH`: `git init -b BRANCH` in the script's
// directory, written in this process (gittest.Init).
func gitInit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "-b" {
		ts.Fatalf("usage: init -b BRANCH")
	}
	ts.Check(gittest.Init(ts.MkAbs("."), args[1]))
}

// gitCommit runs `commit [-a] [-tag NAME] -m MESSAGE [PATH...]`: `git add
// PATH...` (or with -a, every tracked file's change), `git commit -m
// MESSAGE` and `git tag NAME` in the repository around the script's
// directory, written in this process (gittest.Commit): no git process,
// each of which costs about 11 ms of CPU. A script whose repository it does
// not model (ignore files, submodules) runs git.
func gitCommit(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! commit")
	}
	o := gittest.CommitOptions{Getenv: ts.Getenv}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-a":
			o.All, args = true, args[1:]
		case len(args) > 1 && args[0] == "-m":
			o.Message, args = args[1], args[2:]
		case len(args) > 1 && args[0] == "-tag":
			o.Tag, args = args[1], args[2:]
		default:
			ts.Fatalf("usage: commit [-a] [-tag NAME] -m MESSAGE [PATH...]")
		}
	}
	wd := ts.MkAbs(".")
	top := wd
	for {
		if _, err := os.Stat(filepath.Join(top, ".git")); err == nil {
			break
		}
		up := filepath.Dir(top)
		if up == top {
			ts.Fatalf("commit: %s is in no git repository", wd)
		}
		top = up
	}
	for _, p := range args {
		rel, err := filepath.Rel(top, ts.MkAbs(p))
		ts.Check(err)
		o.Paths = append(o.Paths, filepath.ToSlash(rel))
	}
	_, err := gittest.Commit(top, o)
	ts.Check(err)
}

// execCode runs name as a process and returns its exit code.
func execCode(ts *testscript.TestScript, name string, args []string) int {
	err := ts.Exec(name, args...)
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		ts.Fatalf("exitcode: %v", err)
	}
	return ee.ExitCode()
}
