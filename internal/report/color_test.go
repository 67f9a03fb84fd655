package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair; the subordinate side is a terminal
// exactly as a user's shell would hand contractlint.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	skip := func(err error) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no pseudo-terminal: %v", err)
		}
		t.Skipf("no pseudo-terminal to test with: %v", err)
	}
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		skip(err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		skip(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		skip(err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		skip(err)
	}
	t.Cleanup(func() { pts.Close() })
	return pts
}

func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

func TestUseColor(t *testing.T) {
	tty := openPTY(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file, err := os.Create(t.TempDir() + "/out.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()

	for _, tc := range []struct {
		name   string
		w      io.Writer
		getenv func(string) string
		want   bool
	}{
		{"terminal", tty, env("TERM", "xterm-256color"), true},
		{"terminal without TERM", tty, env(), true},
		{"terminal with NO_COLOR", tty, env("NO_COLOR", "1"), false},
		{"terminal with empty NO_COLOR", tty, env("NO_COLOR", ""), true},
		{"dumb terminal", tty, env("TERM", "dumb"), false},
		{"pipe", pw, env(), false},
		{"/dev/null (a character device, not a terminal)", devNull, env(), false},
		{"regular file", file, env(), false},
		{"buffer", &bytes.Buffer{}, env(), false},
	} {
		if got := UseColor(tc.w, tc.getenv); got != tc.want {
			t.Errorf("%s: UseColor = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTextColorOnlyOurs: with colour on, the only escape sequences are the
// two around each severity; hostile text stays visible, not interpreted.
func TestTextColorOnlyOurs(t *testing.T) {
	var buf bytes.Buffer
	fs := hostileFindings()
	if err := (&Text{Color: true}).Write(&buf, testReport(t, fs)); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(buf.String(), "\x1b"), 2*len(fs); got != want {
		t.Errorf("%d escape characters, want %d (colour codes only)", got, want)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	// one line a finding, one "affects" line for the finding with three
	// operations, the summary and the version bump it needs
	if len(lines) != len(fs)+3 {
		t.Errorf("%d lines, want %d:\n%s", len(lines), len(fs)+3, buf.String())
	}
	if !strings.Contains(buf.String(), "\x1b[31merror\x1b[0m") {
		t.Error("error severity not coloured")
	}
}
