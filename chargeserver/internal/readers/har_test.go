package readers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/internal/browsertest"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the part a
// recording needs: what DevTools' "Save all as HAR" writes, built here from
// the same DevTools Network events.
type har struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Entries []harEntry `json:"entries"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
}

type harRequest struct {
	Method      string   `json:"method"`
	URL         string   `json:"url"`
	HTTPVersion string   `json:"httpVersion"`
	Cookies     []harNV  `json:"cookies"`
	Headers     []harNV  `json:"headers"`
	QueryString []harNV  `json:"queryString"`
	PostData    *harPost `json:"postData,omitempty"`
	HeadersSize int      `json:"headersSize"`
	BodySize    int      `json:"bodySize"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harNV    `json:"cookies"`
	Headers     []harNV    `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int        `json:"bodySize"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harPost struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
}

type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// recorder builds HAR entries from one tab's Network events: a request when
// it is sent (with its body, asked of DevTools), its response when it
// arrives, and the response body once loading finished.
type recorder struct {
	ctx     context.Context
	mu      sync.Mutex
	entries map[network.RequestID]*harEntry
	sent    map[network.RequestID]float64 // monotonic seconds
	done    map[network.RequestID]bool
	changed chan struct{}
}

func record(t *testing.T, ctx context.Context) *recorder {
	r := &recorder{ctx: ctx, entries: map[network.RequestID]*harEntry{}, sent: map[network.RequestID]float64{},
		done: map[network.RequestID]bool{}, changed: make(chan struct{}, 1)}
	// Listen, not Events: the events of one request must be seen in the
	// order the browser sent them. The handler must not block, so what
	// needs a command (the bodies) is asked from another goroutine.
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			r.request(ev)
		case *network.EventResponseReceived:
			r.response(ev)
		case *network.EventLoadingFinished:
			go r.finish(ev.RequestID, ev.Timestamp.Float64(), true)
		case *network.EventLoadingFailed:
			go r.finish(ev.RequestID, ev.Timestamp.Float64(), false)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *recorder) request(ev *network.EventRequestWillBeSent) {
	q := ev.Request
	wall := ev.WallTime.Float64()
	sec, frac := math.Modf(wall)
	e := &harEntry{
		StartedDateTime: time.Unix(int64(sec), int64(frac*1e9)).UTC().Format("2006-01-02T15:04:05.000Z"),
		Request: harRequest{Method: q.Method, URL: q.URL, HTTPVersion: "HTTP/1.1", Cookies: []harNV{},
			Headers: headers(q.Headers), QueryString: []harNV{}, HeadersSize: -1},
	}
	if q.HasPostData {
		var body []byte
		for _, p := range q.PostDataEntries {
			body = append(body, p.Bytes...)
		}
		e.Request.PostData = &harPost{MimeType: header(q.Headers, "Content-Type"), Text: string(body)}
		e.Request.BodySize = len(body)
	}
	r.mu.Lock()
	r.entries[ev.RequestID], r.sent[ev.RequestID] = e, ev.Timestamp.Float64()
	r.mu.Unlock()
}

func (r *recorder) response(ev *network.EventResponseReceived) {
	p := ev.Response
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entries[ev.RequestID]
	if e == nil {
		return
	}
	e.Response = harResponse{Status: int(p.Status), StatusText: p.StatusText, HTTPVersion: "HTTP/1.1", Cookies: []harNV{},
		Headers: headers(p.Headers), Content: harContent{MimeType: p.MimeType}, HeadersSize: -1, BodySize: -1}
	e.Timings.Wait = (ev.Timestamp.Float64() - r.sent[ev.RequestID]) * 1000
}

// finish takes the response body of a request that loaded, and its request
// body when the event left it out (DevTools does for long ones), and marks
// it done.
func (r *recorder) finish(id network.RequestID, at float64, loaded bool) {
	var body []byte
	if loaded {
		if res, err := chromedp.Call(r.ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id}); err == nil {
			body = res.Body
		}
	}
	r.mu.Lock()
	post := r.entries[id] != nil && r.entries[id].Request.PostData != nil && r.entries[id].Request.PostData.Text == ""
	r.mu.Unlock()
	var posted []byte
	if post {
		if res, err := chromedp.Call(r.ctx, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: id}); err == nil {
			posted = res.PostData
		}
	}
	r.mu.Lock()
	if e := r.entries[id]; e != nil {
		if post {
			e.Request.PostData.Text, e.Request.BodySize = string(posted), len(posted)
		}
		e.Response.Content.Text, e.Response.Content.Size = string(body), len(body)
		e.Time = (at - r.sent[id]) * 1000
		e.Timings.Receive = max(0, e.Time-e.Timings.Wait)
		r.done[id] = true
	}
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// har waits until n requests, and every request seen, have finished (a
// minute at most) and returns
// them as a HAR document, in the order they started.
func (r *recorder) har(t *testing.T, n int) har {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		// Every request the page made was seen before the script that
		// made it returned: wait for each of them, and at least n.
		r.mu.Lock()
		finished, seen := len(r.done), len(r.entries)
		r.mu.Unlock()
		if finished >= n && finished == seen {
			break
		}
		select {
		case <-r.changed:
		case <-timeout:
			t.Fatalf("%d of %d requests finished loading", finished, n)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := har{Log: harLog{Version: "1.2", Creator: harCreator{Name: "contractlint chargeserver test (Chromium DevTools Network events)", Version: "1"}}}
	for id, e := range r.entries {
		if r.done[id] {
			doc.Log.Entries = append(doc.Log.Entries, *e)
		}
	}
	sort.SliceStable(doc.Log.Entries, func(i, j int) bool {
		return doc.Log.Entries[i].StartedDateTime < doc.Log.Entries[j].StartedDateTime
	})
	return doc
}

// headers lists DevTools' header map (values joined by newlines when
// repeated) as HAR's name-value pairs, sorted by name.
func headers(h network.Headers) []harNV {
	out := []harNV{}
	for k, v := range h {
		for line := range strings.SplitSeq(fmt.Sprint(v), "\n") {
			out = append(out, harNV{Name: k, Value: line})
		}
	}
	slices.SortFunc(out, func(a, b harNV) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// browse starts Debian's chromium (browsertest.Start), naming itself
// webUA; it returns the tab's context and the recorder listening on it.
func browse(t *testing.T) (context.Context, *recorder) {
	t.Helper()
	ctx := browsertest.Start(t, chromedp.UserAgent(webUA))
	return ctx, record(t, ctx)
}

// webTraffic is the page's script: the browser charges twice over HTTP
// (once with a description), reads each charge back, asks for a missing
// one, and reads a charge over the Connect protocol (a plain JSON POST).
// It answers the statuses it got.
const webTraffic = `(async () => {
	const auth = {"Authorization": "Bearer sk_web"};
	const json = {...auth, "Content-Type": "application/json"};
	const statuses = [];
	const ids = [];
	for (const body of [{amount_cents: 4900, currency: "GBP", card_token: "tok_visa", description: "tea"},
	                    {amount_cents: 1200, currency: "GBP", card_token: "tok_visa"}]) {
		const r = await fetch("/v1/charges", {method: "POST", headers: {...json, "Idempotency-Key": crypto.randomUUID()}, body: JSON.stringify(body)});
		statuses.push(r.status);
		ids.push((await r.json()).id);
	}
	for (const id of [...ids, "ch_missing"]) {
		const r = await fetch("/v1/charges/" + id, {headers: auth});
		await r.text();
		statuses.push(r.status);
	}
	const r = await fetch("/contractlint.charges.v1.ChargeService/GetCharge", {method: "POST", headers: json, body: JSON.stringify({id: ids[0]})});
	await r.text();
	statuses.push(r.status);
	return statuses;
})()`

// webStatuses is what webTraffic answers against the charge server.
var webStatuses = []int{201, 201, 200, 200, 404, 200}

// recordHAR opens the charge server's /metrics page in the browser (a
// page of its origin, so the script's requests are same-origin), runs
// webTraffic, and returns the HAR of everything the tab loaded: the page
// and the script's requests.
func recordHAR(t *testing.T, base string) []byte {
	t.Helper()
	ctx, rec := browse(t)
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(base+"/metrics")); err != nil {
		t.Fatal(err)
	}
	statuses, err := chromedp.Run(tctx, chromedp.Evaluate[[]int](webTraffic, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(statuses, webStatuses) {
		t.Fatalf("the page's requests answered %v, want %v", statuses, webStatuses)
	}
	b, err := json.MarshalIndent(rec.har(t, 1+len(webStatuses)), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChromiumHARIsEvidence: a HAR recorded by headless Chromium from
// DevTools' Network events while a page of the charge server charged, read
// charges back over HTTP and one over Connect, holds each request in
// order with the browser's User-Agent, its body and its answer; and it is
// evidence for contractlint: removing getCharge or GetCharge, which the
// page called, is an error counting its calls (not the refused read of a
// missing charge); removing listCharges or ListCharges, which it never
// called, is a warning that says how much traffic shows no call; removing
// the request field description, which the page sent once, is an error.
func TestChromiumHARIsEvidence(t *testing.T) {
	dir := workspace(t)
	base, _ := chargetest.Start(t, apiKeys)
	raw := recordHAR(t, base)
	write(t, filepath.Join(dir, "browser.har"), string(raw))
	var doc har
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.Log.Entries {
		path := strings.TrimPrefix(e.Request.URL, base)
		if path == "/favicon.ico" {
			continue // the browser's own request, when it makes it in time
		}
		if ua := harValue(e.Request.Headers, "User-Agent"); ua != webUA {
			t.Errorf("%s %s: User-Agent %q, want %q", e.Request.Method, path, ua, webUA)
		}
		if e.Request.Method == "POST" && (e.Request.PostData == nil || !json.Valid([]byte(e.Request.PostData.Text))) {
			t.Errorf("%s %s: no JSON body recorded", e.Request.Method, path)
		}
		if strings.HasPrefix(path, "/v1/charges/ch_") && path != "/v1/charges/"+missingID {
			path = "/v1/charges/{id}"
		}
		got = append(got, e.Request.Method+" "+path+" "+strconv.Itoa(e.Response.Status))
	}
	want := []string{"GET /metrics 200", "POST /v1/charges 201", "POST /v1/charges 201", "GET /v1/charges/{id} 200",
		"GET /v1/charges/{id} 200", "GET /v1/charges/ch_missing 404", "POST /contractlint.charges.v1.ChargeService/GetCharge 200"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("HAR entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The removed request field: the page sent description once, in the
	// first charge.
	if n := readersShow(t, dir, "browser.har").sent(webUA, "POST /v1/charges", "description"); n != 1 {
		t.Errorf("contractlint readers shows description sent %d times by %s, want once", n, webUA)
	}
	// Every entry counts as a request, the browser's own (a favicon) too.
	wantEvidence(t, dir, "browser.har", 2, webUA, 1, webUA, len(doc.Log.Entries), 1, 1, webUA)
}

func harValue(hs []harNV, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
