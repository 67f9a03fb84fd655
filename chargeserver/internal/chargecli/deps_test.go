package chargecli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLinterLinksNoDatabaseDriver keeps the reason these commands live apart:
// the contractlint binary a CI job builds must not link SQLite or pgx.
func TestLinterLinksNoDatabaseDriver(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the go command is needed on CI")
		}
		t.Skip("no go command to list the linter's dependencies")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/contractlint/contractlint").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "sqlite") || strings.Contains(dep, "pgx") || strings.Contains(dep, "/chargeserver") {
			t.Errorf("contractlint links %s; the charge server and its drivers belong in cmd/charge-server", dep)
		}
		if strings.HasPrefix(dep, "google.golang.org/grpc") {
			t.Errorf("contractlint links %s; probe and replay speak gRPC through connect-go's client", dep)
		}
	}
}
