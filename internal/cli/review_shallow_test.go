package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/gittest"
	"github.com/contractlint/contractlint/internal/report"
)

// A review in a shallow clone (actions/checkout's depth 1) cannot see the
// field numbers used before the clone's edge: every format says so with
// the history-cut warning naming the commit the history stops at, and
// with fail-on at its default that warning is shown, never silence, and
// does not fail the run.
func TestReviewShallowSaysHistoryCutInEveryFormat(t *testing.T) {
	origin := gittest.New(t)
	proto := func(fields string) map[string][]byte {
		return map[string][]byte{"api/shop.proto": []byte("syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n" + fields + "}\n")}
	}
	for _, fields := range []string{"  string note = 2;\n", ""} {
		writeTree(t, origin.Dir, proto(fields))
		origin.Git(t, "add", "-A")
		origin.Git(t, "commit", "-q", "-m", "shop")
	}
	edge := origin.Git(t, "rev-parse", "HEAD")
	clone := &gittest.Repo{Dir: filepath.Join(t.TempDir(), "clone")}
	origin.Git(t, "clone", "-q", "--depth", "1", "file://"+origin.Dir, clone.Dir)
	writeTree(t, clone.Dir, proto("  int64 amount = 2;\n"))
	for _, format := range report.Formats() {
		got := mainIn(clone.Dir, "review", "--base", "origin/main", "--format", format)
		if got.code != cli.ExitOK {
			t.Errorf("--format %s: exit %d, want %d (a warning under the default fail-on)\n%s%s", format, got.code, cli.ExitOK, got.stdout, got.stderr)
		}
		if !strings.Contains(got.stdout, "history cut at "+edge[:12]) || !strings.Contains(got.stdout, "history-cut") {
			t.Errorf("--format %s does not say where the history was cut (%s):\n%s%s", format, edge[:12], got.stdout, got.stderr)
		}
	}
}
