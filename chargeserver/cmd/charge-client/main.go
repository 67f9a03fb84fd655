// Command charge-client is the reference client of the charge server: one
// purchase intent, one Idempotency-Key, retries that are safe.
package main

import (
	"os"

	"github.com/contractlint/contractlint/chargeserver/internal/chargecli"
)

func main() {
	os.Exit(chargecli.Client(os.Args[1:], os.Stdout, os.Stderr))
}
