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
		origin.Git(t, "add", "-A")
		origin.Git(t, "commit", "-q", "-m", "shop")
	}
	edge := origin.Git(t, "rev-parse", "HEAD")
	clone := &gittest.Repo{Dir: filepath.Join(t.TempDir(), "clone")}
	origin.Git(t, "clone", "-q", "--depth", "1", "file://"+origin.Dir, clone.Dir)
	writeTree(t, clone.Dir, proto("  int64 amount = 2;\n"))
	// The formats with an --output-FORMAT file are written by the first
	// review beside its own: the same report, one review fewer each.
	outs := map[string]string{}
	var also []string
	for _, format := range cli.AlsoFormats() {
		outs[format] = filepath.Join(t.TempDir(), format)
		also = append(also, "--output-"+format, outs[format])
	}
	for _, format := range report.Formats() {
		if _, ok := outs[format]; ok {
			continue
		}
		got := mainIn(clone.Dir, append([]string{"review", "--base", "origin/main", "--format", format}, also...)...)
		if got.code != cli.ExitOK {
			t.Errorf("--format %s: exit %d, want %d (a warning under the default fail-on)\n%s%s", format, got.code, cli.ExitOK, got.stdout, got.stderr)
		}
		saysCut(t, format, got.stdout, edge)
		also = nil
	}
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
