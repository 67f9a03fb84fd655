// Package browsertest starts Debian's headless Chromium for the tests that
// drive a real page: the history report's, and the charge server's page
// whose traffic is recorded as a HAR. Only tests import it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// Start runs chromium with a fresh profile, as root can run it, with
// everything that would reach the network on its own off, and opts after
// those; it returns the context of its first tab, which lives until the
// test ends. Without chromium the test skips, except on CI (CI=true),
// where a missing browser fails the run instead.
func Start(t testing.TB, opts ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	exe := lookup(t)
	ctx, stop := start(exe, t.TempDir(), opts)
	t.Cleanup(stop)
	if err := first(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// Shared is one chromium that several tests of a package drive, one after
// another, in its one tab: a browser start costs more than the checks of a
// page, and each further tab starts a renderer of its own (most of a
// page's CPU). The first Tab starts it; Close, from TestMain after the
// tests, ends it.
type Shared struct {
	// Opts are passed on as Start's are.
	Opts []chromedp.ExecAllocatorOption

	once sync.Once
	ctx  context.Context
	stop func()
	dir  string
	err  error
	exe  string
}

// Tab is the shared browser's tab, the same for every test: a test leaves
// it at whatever page it loaded last. A missing chromium skips or fails
// the test as Start does; a browser that did not start fails every test
// that asks for it.
func (s *Shared) Tab(t testing.TB) context.Context {
	t.Helper()
	exe := lookup(t)
	s.once.Do(func() {
		s.exe = exe
		s.dir, s.err = os.MkdirTemp("", "browsertest-")
		if s.err != nil {
			return
		}
		s.ctx, s.stop = start(exe, s.dir, s.Opts)
		s.err = first(s.ctx)
	})
	if s.err != nil {
		t.Fatalf("starting %s: %v", s.exe, s.err)
	}
	return s.ctx
}

// Close ends the shared browser, if a test started it, and removes its
// profile.
func (s *Shared) Close() {
	if s.stop != nil {
		s.stop()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// lookup finds chromium, or skips t (fails it when CI=true).
func lookup(t testing.TB) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (CI=true, so this fails instead of skipping)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// start readies exe with its profile in dir; the browser itself starts on
// the first run in the returned context.
func start(exe, dir string, opts []chromedp.ExecAllocatorOption) (context.Context, func()) {
	all := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}, opts...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), all...)
	ctx, cancel := chromedp.NewContext(actx)
	return ctx, func() { cancel(); cancelAlloc() }
}

// first makes ctx's first run, which starts its browser or tab and lives as
// long as it: no timeout.
func first(ctx context.Context) error {
	_, err := chromedp.Run(ctx, chromedp.Evaluate[int]("1"))
	return err
}
