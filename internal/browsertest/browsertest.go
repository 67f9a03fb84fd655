// Package browsertest starts Debian's headless Chromium for the tests that
// drive a real page: the history report's, and the charge server's page
// whose traffic is recorded as a HAR. Only tests import it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
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
	exe := ""
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (CI=true, so this fails instead of skipping)")
		}
		t.Skip("chromium is not installed")
	}
	all := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}, opts...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), all...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first run starts the browser, and lives as long as it: no timeout.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("1")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}
