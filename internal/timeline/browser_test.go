package timeline_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/contractlint/contractlint/internal/browsertest"
)

// browser is a headless Chromium that records every request a page makes
// and every dialog it opens (a script a hostile name smuggled in).
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
	dialogs  []string
}

// chrome is the package's one chromium: TestMain closes it.
var chrome = browsertest.Shared{Opts: []chromedp.ExecAllocatorOption{chromedp.WindowSize(1280, 900)}}

// tab is the browser on chrome's one tab, listening from the first test
// that asks until TestMain closes chrome.
var tab struct {
	once sync.Once
	b    *browser
}

// newBrowser is chrome's tab (browsertest.Shared), listening to its
// requests and dialogs, with none heard yet: each test loads its page in
// the same tab, and a tab of its own would start another renderer.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	ctx := chrome.Tab(t)
	tab.once.Do(func() { tab.b = listen(ctx) })
	b := tab.b
	b.mu.Lock()
	b.requests, b.dialogs = nil, nil
	b.mu.Unlock()
	// A test that failed with JavaScript off leaves it off: the next page
	// runs its script again.
	b.do(t, b.scripts(true))
	return b
}

// listen records every request the tab makes and every dialog it opens,
// answering each dialog.
func listen(ctx context.Context) *browser {
	b := &browser{ctx: ctx}
	requests := chromedp.Events(ctx, network.RequestWillBeSent)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.requests = append(b.requests, ev.Request.URL)
			b.mu.Unlock()
		}
	}()
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.dialogs = append(b.dialogs, ev.Message)
			b.mu.Unlock()
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
		}
	}()
	return b
}

// do runs actions, a minute at most.
func (b *browser) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression on the page into a Go value.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// scripts turns JavaScript on or off for the next navigation.
func (b *browser) scripts(on bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
		return err
	})
}

// noRequests fails when the page asked for anything but itself; the
// request for the page itself shows that the listener hears requests.
func (b *browser) noRequests(t *testing.T, self string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.requests, self) {
		t.Errorf("the browser heard no request, not even for the page %s", self)
	}
	if off := slices.DeleteFunc(slices.Clone(b.requests), func(u string) bool { return u == self }); len(off) > 0 {
		t.Errorf("the page made requests: %v", off)
	}
}

func fileURL(name string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(name)}).String()
}

// count is one counts cell as the page shows it.
type count struct {
	Step, Format                      string
	Errors, Warnings, Infos, Additive int
}

// TestHistoryInBrowser renders the five-release repository's report in
// headless Chromium: every release and every count is on the page, the
// severity and element filters work, nothing is fetched, and the page
// reads the same with JavaScript off. With CONTRACTLINT_SCREENSHOT=FILE a
// screenshot is kept there.
func TestHistoryInBrowser(t *testing.T) {
	five := fiveReleases.get(t) // one run wrote the page and the JSON
	r := five.r
	b := newBrowser(t)
	self := fileURL(five.page)

	b.do(t, chromedp.Navigate(self), chromedp.WaitReady(chromedp.ID("counts")))
	releases := eval[[]string](t, b, `[...document.querySelectorAll("#counts th[data-release]")].map(e => e.dataset.release)`)
	cells := eval[[]count](t, b, `[...document.querySelectorAll("#counts [data-step]")].map(e => ({Step: e.dataset.step, Format: e.dataset.format,
		Errors: +e.dataset.errors, Warnings: +e.dataset.warnings, Infos: +e.dataset.infos, Additive: +e.dataset.additive}))`)
	var want []string
	for _, rel := range r.Releases {
		want = append(want, rel.Name)
	}
	if !slices.Equal(releases, want) {
		t.Errorf("the page's releases %v, want %v", releases, want)
	}
	n := 0
	for _, st := range slices.Concat(r.Steps, r.AgainstHead) {
		for _, c := range st.Counts {
			if c.Changes+c.Errors+c.Warnings+c.Infos == 0 {
				continue
			}
			n++
			w := count{Step: st.From + "→" + st.To, Format: c.Format, Errors: c.Errors, Warnings: c.Warnings, Infos: c.Infos, Additive: c.Additive}
			if !slices.Contains(cells, w) {
				t.Errorf("the page lacks the count %+v", w)
			}
		}
	}
	if n == 0 {
		t.Fatal("the report counts nothing")
	}

	// Severity: unticking errors hides every error and nothing else.
	visible := func(sel string) int {
		return eval[int](t, b, `[...document.querySelectorAll(`+strconv.Quote(sel)+`)].filter(e => e.offsetParent !== null).length`)
	}
	b.do(t, chromedp.Click(chromedp.CSS(`label[for="f-error"]`)))
	errorsShown, warningsShown := visible("li.s-error"), visible("li.s-warning")
	warningsAll := eval[int](t, b, `document.querySelectorAll("li.s-warning").length`)
	b.do(t, chromedp.Click(chromedp.CSS(`label[for="f-error"]`)))
	if errorsShown != 0 || warningsAll == 0 || warningsShown != warningsAll {
		t.Errorf("with errors unticked: %d errors and %d of %d warnings shown, want 0 and all", errorsShown, warningsShown, warningsAll)
	}
	if visible("li.s-error") == 0 {
		t.Errorf("ticked again, errors stay hidden")
	}

	// Element: typing an rpc's name leaves the elements about it.
	b.do(t, chromedp.SendKeys(chromedp.ID("q"), "listorders"))
	shown, total := visible("details.el"), eval[int](t, b, `document.querySelectorAll("details.el").length`)
	names := eval[[]string](t, b, `[...document.querySelectorAll("details.el")].filter(e => e.offsetParent !== null).map(e => e.querySelector("h3").textContent)`)
	if shown == 0 || shown == total || !slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, "ListOrders") }) {
		t.Errorf("filtering by listorders shows %d of %d elements (%v); want ListOrders's and fewer than all", shown, total, names)
	}
	eval[bool](t, b, `(q => { q.value = ""; return q.dispatchEvent(new Event("input")) })(document.getElementById("q"))`)
	if visible("details.el") != total {
		t.Errorf("an empty filter does not show every element again")
	}
	b.keep(t)

	// With JavaScript off the content is all there; only the filter box,
	// which needs the script, stays hidden.
	items := eval[int](t, b, `document.querySelectorAll("li").length`)
	b.do(t, b.scripts(false), chromedp.Navigate(self), chromedp.WaitReady(chromedp.ID("counts")))
	itemsNoJS := eval[int](t, b, `document.querySelectorAll("li").length`)
	findHidden := eval[bool](t, b, `document.getElementById("find").hidden`)
	b.do(t, b.scripts(true))
	if items == 0 || itemsNoJS != items || !findHidden {
		t.Errorf("without JavaScript: %d items (with it %d), filter box hidden %v", itemsNoJS, items, findHidden)
	}
	b.noRequests(t, self)
}

// keep saves, where CONTRACTLINT_SCREENSHOT names, a screenshot of the
// window as PNG (the README's picture). Without it nothing is taken: a
// picture of the whole page cost a third of a second of CPU and went to a
// directory removed when the test ended.
func (b *browser) keep(t *testing.T) {
	t.Helper()
	dst := os.Getenv("CONTRACTLINT_SCREENSHOT")
	if dst == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	write(t, dst, png)
	t.Logf("screenshot: %s (%d bytes)", dst, len(png))
}

// TestHistoryHostileInBrowser: the hostile names of testdata (escape
// sequences, a workflow command, markup and a script) in a contract and in
// a tag render as text: no element, no dialog, no request.
func TestHistoryHostileInBrowser(t *testing.T) {
	b := newBrowser(t)
	self := fileURL(hostile.get(t).page)
	b.do(t, chromedp.Navigate(self), chromedp.WaitReady(chromedp.ID("counts")))
	injected := eval[int](t, b, `document.querySelectorAll("img, iframe, object, embed, [onload], [onerror]").length + document.scripts.length - 1`)
	text := eval[string](t, b, `document.body.textContent`)
	if injected != 0 {
		t.Errorf("%d elements came from contract text", injected)
	}
	if !strings.Contains(text, "<img src=x onerror=alert(1)>") {
		t.Errorf("the hostile property name is not shown as text")
	}
	time.Sleep(200 * time.Millisecond) // a dialog opens asynchronously
	b.mu.Lock()
	dialogs := slices.Clone(b.dialogs)
	b.mu.Unlock()
	if len(dialogs) > 0 {
		t.Errorf("the page opened dialogs: %q", dialogs)
	}
	b.noRequests(t, self)
}

// TestHistoryHostilePage: without a browser, the page's source has the
// hostile names only escaped, and the JSON only cleaned.
func TestHistoryHostilePage(t *testing.T) {
	h := hostile.get(t)
	b, err := os.ReadFile(h.page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, bad := range []string{"<img", "<svg/onload", "\x1b", "\a", "\u202e", "<script>alert"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if !strings.Contains(html, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the hostile property is not on the page, escaped")
	}
	out, r := h.json, h.r
	if strings.ContainsAny(out, "\x1b\a\u202e") {
		t.Errorf("the JSON holds a control or bidi character")
	}
	if len(r.Steps) != 1 || len(r.Steps[0].Findings) == 0 {
		t.Errorf("steps %+v: want the hostile removal found", r.Steps)
	}
}

// hostile is hostileRepo and its history.
var hostile = &shared{name: "hostile", made: hostileRepo}

// hostileRepo commits hostile_text.txtar's old contract, tags it with a
// name that is markup, and leaves its new contract in the working tree.
func hostileRepo(t testing.TB, top string) {
	t.Helper()
	a := readArchive(t, filepath.Join("..", "..", "testdata", "script", "hostile_text.txtar"))
	importRepo(t, top, []commit{{msg: "v1", tag: "v1<svg/onload=alert(3)>", files: map[string][]byte{"api.yaml": a["old.yaml"]}}})
	write(t, filepath.Join(top, "api.yaml"), a["new.yaml"])
}

func readArchive(t testing.TB, name string) map[string][]byte {
	t.Helper()
	a, err := txtar.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range a.Files {
		out[f.Name] = f.Data
	}
	return out
}
