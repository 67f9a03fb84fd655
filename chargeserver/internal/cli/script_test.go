package cli_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contractlint/contractlint/chargeserver/internal/chargecli"
	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/scripttest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"contractlint":  func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"charge-server": func() { os.Exit(chargecli.Server(os.Args[1:], os.Stdout, os.Stderr)) },
		"charge-client": func() { os.Exit(chargecli.Client(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar: the charge server and its
// client as a user runs them, and the linter's live commands (probe,
// replay) against them.
func TestScripts(t *testing.T) {
	testscript.Run(t, scripttest.Params("../../testdata/script"))
}
