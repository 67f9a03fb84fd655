// Command charge-server runs the reference charge server, which charges
// exactly once per Idempotency-Key (SQLite by default, PostgreSQL with
// --database postgres://…), and its processor, reaper, pruner and reconciler.
package main

import (
	"os"

	"github.com/contractlint/contractlint/chargeserver/internal/chargecli"
)

func main() {
	os.Exit(chargecli.Server(os.Args[1:], os.Stdout, os.Stderr))
}
