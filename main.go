// Command contractlint reports the API contract changes that break existing clients.
package main

import (
	"os"

	"github.com/contractlint/contractlint/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
