package cli_test

import (
	"os"
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
		origin.Commit(t, "shop", ".")
	}
	edge := origin.Git(t, "rev-parse", "HEAD")
	clone := &gittest.Repo{Dir: filepath.Join(t.TempDir(), "clone")}
	origin.Git(t, "clone", "-q", "--depth", "1", "file://"+origin.Dir, clone.Dir)
	writeTree(t, clone.Dir, proto("  int64 amount = 2;\n"))
	// One review writes every format, each to its --output-FORMAT file
	// (the report every format renders is the same), and text to stdout.
	outs := map[string]string{}
	args, dir := []string{"review", "--base", "origin/main"}, t.TempDir()
	for _, format := range report.Formats() {
		outs[format] = filepath.Join(dir, format)
		args = append(args, "--output-"+format, outs[format])
	}
	got := mainIn(clone.Dir, args...)
	if got.code != cli.ExitOK {
		t.Fatalf("exit %d, want %d (a warning under the default fail-on)\n%s%s", got.code, cli.ExitOK, got.stdout, got.stderr)
	}
	saysCut(t, "text", got.stdout, edge)
	for format, file := range outs {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("--output-%s: %v", format, err)
		}
		saysCut(t, format, string(b), edge)
	}
}

func saysCut(t *testing.T, format, out, edge string) {
	t.Helper()
	if !strings.Contains(out, "history cut at "+edge[:12]) || !strings.Contains(out, "history-cut") {
		t.Errorf("--format %s does not say where the history was cut (%s):\n%s", format, edge[:12], out)
	}
}
