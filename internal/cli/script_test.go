package cli_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/scripttest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"contractlint": func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: the CLI as a user runs it. The
// scripts that start the charge server run in the chargeserver module.
func TestScripts(t *testing.T) {
	testscript.Run(t, scripttest.Params("../../testdata/script"))
}
