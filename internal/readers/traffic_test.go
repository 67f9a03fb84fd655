package readers_test

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/rules"
)

// chargeOps is the contract the calls of testdata/same are made against.
func chargeOps() *rules.Contract {
	c := &rules.Contract{Format: rules.OpenAPI}
	for _, id := range []string{"POST /v1/charges", "GET /v1/charges/{id}", "DELETE /v1/charges/{id}"} {
		c.Operations = append(c.Operations, &rules.Operation{ID: id})
	}
	return c
}

var judged = time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)

// evidence loads files of testdata/same and binds them to chargeOps.
func evidence(t *testing.T, files ...string) rules.Evidence {
	t.Helper()
	for i, f := range files {
		files[i] = filepath.Join("testdata", "same", f)
	}
	set, err := readers.Load("testdata", files, readers.DefaultWindow, judged, 1<<20, func(w string) { t.Errorf("warning: %s", w) })
	if err != nil {
		t.Fatal(err)
	}
	ev, err := set.Bind(rules.OpenAPI, chargeOps())
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// seenAs says what evidence shows of each operation: its callers within
// the window, with counts and last call where the format records them,
// and who sent the request field amount.
func seenAs(ev rules.Evidence, counted bool) map[string]string {
	out := map[string]string{}
	for _, op := range []string{"POST /v1/charges", "GET /v1/charges/{id}", "DELETE /v1/charges/{id}"} {
		byConsumer := map[string]string{}
		for _, r := range ev.Calls(op) {
			if !r.Active(ev.Since()) {
				continue
			}
			byConsumer[r.Consumer] = "called"
			if counted {
				byConsumer[r.Consumer] = fmt.Sprintf("called %d, last %s", r.Reads, r.LastSeen.Format(time.DateOnly))
			}
		}
		for _, r := range ev.Sent(op, "amount", rules.Request) {
			if !strings.HasSuffix(byConsumer[r.Consumer], " sent amount") {
				byConsumer[r.Consumer] += " sent amount"
			}
		}
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(byConsumer)) {
			parts = append(parts, c+": "+byConsumer[c])
		}
		out[op] = strings.Join(parts, "; ")
	}
	return out
}

// The same five calls written as a HAR file, OTLP traces, nginx and Envoy
// access logs and Pact files give the same evidence: who called what,
// with what, and — where the format records time — how often and when.
// The DELETE was refused (404), so it shows no use; OTLP spans and this
// Envoy log carry no bodies, so they cannot say who sent amount.
func TestSameCallsSameEvidence(t *testing.T) {
	want := map[string]string{
		"POST /v1/charges":        "web: called 2, last 2026-12-04 sent amount",
		"GET /v1/charges/{id}":    "ios: called 1, last 2026-12-02",
		"DELETE /v1/charges/{id}": "",
	}
	for _, f := range []string{"calls.har", "calls.nginx.log", "calls.envoy.log", "calls.otlp.jsonl"} {
		t.Run(f, func(t *testing.T) {
			w := maps.Clone(want)
			if f == "calls.otlp.jsonl" || f == "calls.envoy.log" {
				w["POST /v1/charges"] = "web: called 2, last 2026-12-04"
			}
			ev := evidence(t, f)
			if got := seenAs(ev, true); !maps.Equal(got, w) {
				t.Errorf("evidence:\n got %q\nwant %q", got, w)
			}
			tr := ev.Traffic()
			if tr == nil || tr.Requests != 4 || tr.Consumers != 2 || !tr.Covers {
				t.Errorf("traffic = %+v; want 4 requests in the window from 2 consumers, covering it", tr)
			}
		})
	}
	t.Run("pact", func(t *testing.T) {
		got := seenAs(evidence(t, "calls.web.pact.json", "calls.ios.pact.json"), false)
		w := map[string]string{"POST /v1/charges": "web: called sent amount", "GET /v1/charges/{id}": "ios: called", "DELETE /v1/charges/{id}": ""}
		if !maps.Equal(got, w) {
			t.Errorf("evidence:\n got %q\nwant %q", got, w)
		}
	})
}

// Removing an operation traffic shows called is an error counting its
// calls; removing one it never shows called, over a window it covers, a
// warning that says across how much traffic.
func TestRemovalEvidence(t *testing.T) {
	ev := evidence(t, "calls.har")
	old := chargeOps()
	reg := rules.Default()
	for _, tc := range []struct {
		op, rule, msg string
	}{
		{"POST /v1/charges", "operation-removed-while-called",
			"operation POST /v1/charges removed while called 2 times by 1 client (web) in the last 30 days, last 2026-12-04"},
		{"DELETE /v1/charges/{id}", "operation-removed-unread",
			"operation DELETE /v1/charges/{id} removed with no call in 30 days across 4 requests from 2 clients"},
	} {
		_, path, _ := strings.Cut(tc.op, " ")
		in := &rules.Input{Old: old, Readers: ev, Changes: []rules.Change{{Kind: rules.Removed, Subject: rules.SubjectOperation,
			Name: tc.op, Path: path, Operations: []string{tc.op}}}}
		var got []rules.Finding
		for _, r := range reg.All() {
			if r.ID == tc.rule {
				got = r.Check(in)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0].Message, tc.msg) || got[0].Usage == nil {
			t.Fatalf("%s: findings %+v; want one starting %q, with its usage", tc.op, got, tc.msg)
		}
		if u := got[0].Usage; tc.rule == "operation-removed-while-called" && (u.Calls != 2 || !slices.Equal(u.Consumers, []string{"web"})) {
			t.Errorf("usage = %+v", u)
		}
	}
}

// spanStream generates an OTLP document of n spans, one resourceSpans
// whose single spans array holds them all, without holding it: a reader
// that must keep the document to parse it would need all of it at once.
type spanStream struct {
	n, i int
	buf  []byte
	read int64
	// peak is the most heap in use seen while the stream was read.
	peak uint64
}

const spanJSON = `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"%016x","name":"GET /v1/charges/{id}","kind":2,` +
	`"startTimeUnixNano":"%d","attributes":[{"key":"http.request.method","value":{"stringValue":"GET"}},` +
	`{"key":"http.route","value":{"stringValue":"/v1/charges/{id}"}},{"key":"url.path","value":{"stringValue":"/v1/charges/ch_%d"}},` +
	`{"key":"http.response.status_code","value":{"intValue":"200"}},{"key":"user_agent.original","value":{"stringValue":"client-%d"}}]}`

func (s *spanStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		switch {
		case s.i == 0 && s.n > 0 && s.read == 0:
			s.buf = []byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"charges"}}]},"scopeSpans":[{"spans":[`)
		case s.i < s.n:
			sep := ","
			if s.i == 0 {
				sep = ""
			}
			s.buf = fmt.Appendf(nil, sep+spanJSON, s.i, judged.Add(-time.Duration(s.n-s.i)*time.Second).UnixNano(), s.i, s.i%7)
			s.i++
			if s.i%20000 == 0 {
				s.sample()
			}
		case s.i == s.n:
			s.buf = []byte(`]}]}]}`)
			s.i++
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	s.read += int64(n)
	return n, nil
}

// sample records the live heap after a collection: what the reader keeps,
// not what it has dropped.
func (s *spanStream) sample() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.peak = max(s.peak, m.HeapAlloc)
}

// A trace file far larger than what the reader may hold is read in
// bounded memory: the stream counts the bytes that went through and
// samples the live heap as it goes; the heap stays a small fraction of
// the file, and every span is counted.
func TestTrafficStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 115 MB generated stream")
	}
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	s := &spanStream{n: 250_000}
	es, cov, err := readers.ReadTraffic("big.json", readers.FormatOTLP, s, readers.Mapping{}, judged.Add(-readers.DefaultWindow), nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	const bound = 16 << 20
	t.Logf("read %d MB; live heap peaked %d MB above the start", s.read>>20, (s.peak-min(s.peak, base.HeapAlloc))>>20)
	if s.read < 100<<20 {
		t.Fatalf("the stream was only %d bytes; the test needs one far above the bound", s.read)
	}
	if s.peak > base.HeapAlloc+bound {
		t.Errorf("live heap reached %d bytes reading a %d-byte stream; want it under %d above the start", s.peak, s.read, bound)
	}
	if cov.Requests != int64(s.n) || len(cov.Consumers) != 7 {
		t.Errorf("coverage = %+v; want %d requests from 7 consumers", cov, s.n)
	}
	var calls int64
	for _, e := range es {
		if e.Field == "" {
			calls += e.Reads
		}
	}
	if calls != int64(s.n) || len(es) != 7 {
		t.Errorf("%d entries counting %d calls; want 7 (one per consumer) counting %d", len(es), calls, s.n)
	}
}

// A long read says how far it has got; a short one says nothing.
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		every int64
		some  bool
	}{{0, false}, {1024, true}} {
		var lines []string
		set, err := readers.LoadWith(readers.Options{Root: "testdata", Paths: []string{"testdata/same/calls.har"}, Window: readers.DefaultWindow,
			Now: judged, MaxFile: 1 << 20, ProgressEvery: tc.every, Progress: func(s string) { lines = append(lines, s) }})
		if err != nil || len(set.Traffic) != 1 {
			t.Fatalf("load: %v", err)
		}
		// The decoder reads in chunks of its own size: how many lines a
		// 4 kB file gives depends on them, that it gives some does not.
		if (len(lines) > 0) != tc.some {
			t.Errorf("every %d bytes: progress %q", tc.every, lines)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "reading testdata/same/calls.har: ") || !strings.Contains(l, " of ") {
				t.Errorf("progress line %q", l)
			}
		}
	}
}

// Calls of rpcs reach a proto contract: OTLP spans by rpc.service and
// rpc.method, counted once when an HTTP span wraps the rpc span; a HAR
// file by the gRPC or Connect path. The client span read first names the
// consumer; a refused call (NOT_FOUND) shows no use.
func TestRPCTraffic(t *testing.T) {
	kv := func(k, v string) string { return fmt.Sprintf(`{"key":%q,"value":{"stringValue":%q}}`, k, v) }
	at := judged.Add(-time.Hour).UnixNano()
	span := func(id, parent string, kind int, attrs ...string) string {
		return fmt.Sprintf(`{"spanId":%q,"parentSpanId":%q,"name":"x","kind":%d,"startTimeUnixNano":"%d","attributes":[%s]}`,
			id, parent, kind, at, strings.Join(attrs, ","))
	}
	doc := func(service string, spans ...string) string {
		return `{"resourceSpans":[{"resource":{"attributes":[` + kv("service.name", service) + `]},"scopeSpans":[{"spans":[` +
			strings.Join(spans, ",") + `]}]}]}` + "\n"
	}
	rpc := []string{kv("rpc.system", "connect_rpc"), kv("rpc.service", "pay.v1.Charges"), kv("rpc.method", "CreateCharge")}
	otlp := doc("billing", span("c1", "", 3, rpc...)) +
		doc("chargeserver",
			span("r1", "h1", 2, rpc...), // the rpc span, ended (and written) before its HTTP span
			span("h1", "c1", 2, kv("http.request.method", "POST"), kv("url.path", "/pay.v1.Charges/CreateCharge")),
			span("r2", "", 2, append(rpc[:3:3], `{"key":"rpc.grpc.status_code","value":{"intValue":"5"}}`)...))
	es, err := readers.Parse("traces.jsonl", []byte(otlp), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	set := &readers.Set{Entries: es, Window: readers.DefaultWindow, Now: judged}
	proto := &rules.Contract{Format: rules.Proto, Operations: []*rules.Operation{{ID: "pay.v1.Charges.CreateCharge"}, {ID: "pay.v1.Charges.GetCharge"}}}
	ev, err := set.Bind(rules.Proto, proto)
	if err != nil {
		t.Fatal(err)
	}
	calls := ev.Calls("pay.v1.Charges.CreateCharge")
	var n int64
	for _, c := range calls {
		n += c.Reads
	}
	if n != 1 {
		t.Errorf("CreateCharge calls = %+v; want the one call counted once", calls)
	}

	har := `{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-12-04T10:00:00Z",` +
		`"request":{"method":"POST","url":"http://localhost/pay.v1.Charges/GetCharge","headers":[{"name":"User-Agent","value":"web"}]},` +
		`"response":{"status":200,"content":{}}}]}}`
	es, err = readers.Parse("calls.har", []byte(har), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	set = &readers.Set{Entries: es, Window: readers.DefaultWindow, Now: judged}
	if ev, err = set.Bind(rules.Proto, proto); err != nil {
		t.Fatal(err)
	}
	if calls := ev.Calls("pay.v1.Charges.GetCharge"); len(calls) != 1 || calls[0].Consumer != "web" {
		t.Errorf("GetCharge calls = %+v; want web's", calls)
	}
}

// A traffic file that is not what its start promised is an input error
// naming the file and how far the read got, never a panic.
func TestBadTraffic(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"a.har", `{"log":{"entries":[{"startedDateTime":"yesterday","request":{"method":"GET","url":"http://x/"}}]}}`,
			`a.har: byte 95: HAR entry 1: startedDateTime "yesterday": want an ISO 8601 time`},
		{"b.har", `{"log":{"entries":[{"startedDateTime":"2026-12-04T10:00:00Z","request":{"method":"GET","url":"http://x/"}}`,
			"b.har: byte 106: HAR log.entries: the file ends in the middle of it"},
		{"t.json", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"x"}]}]}], "x": [}`, "t.json: byte "},
		{"a.log", "{\"method\":\"GET\"}\n", `a.log: byte 16: access-log record 1: no request path (looked for path or request_uri or uri or url)`},
	} {
		_, err := readers.Parse(tc.name, []byte(tc.data), func(string) {})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v; want %q", tc.name, err, tc.want)
		}
	}
}

// A path removed with one operation called and another the traffic cannot
// speak of (it starts inside the window) is still removed while called.
func TestPathRemovalOneCalled(t *testing.T) {
	set, err := readers.Load("testdata", []string{"testdata/same/calls.nginx.log"}, 60*24*time.Hour, judged, 1<<20, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	old := chargeOps()
	for _, op := range old.Operations {
		op.Path = strings.TrimPrefix(op.ID[strings.Index(op.ID, " "):], " ")
	}
	ev, err := set.Bind(rules.OpenAPI, old)
	if err != nil {
		t.Fatal(err)
	}
	if tr := ev.Traffic(); tr == nil || tr.Covers {
		t.Fatalf("traffic = %+v; want it to start inside a 60-day window", tr)
	}
	in := &rules.Input{Old: old, Readers: ev, Changes: []rules.Change{{Kind: rules.Removed, Subject: rules.SubjectPath,
		Name: "/v1/charges/{id}", Path: "/v1/charges/{id}"}}}
	var msgs []string
	for _, r := range rules.Default().All() {
		if r.ID == "operation-removed-while-called" || r.ID == "operation-removed-unread" {
			for _, f := range r.Check(in) {
				msgs = append(msgs, f.Rule+": "+f.Message)
			}
		}
	}
	// GET was called twice, last on 12-02; DELETE only refused, and the
	// traffic, from 11-01, cannot say it was not called since 10-06.
	want := "operation-removed-while-called: path /v1/charges/{id} removed while called 2 times by 1 client (ios) in the last 60 days, last 2026-12-02"
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], want) {
		t.Errorf("findings %q; want one starting %q", msgs, want)
	}
}

// A configured header names consumers; an API key's prefix names its
// client without the key being kept.
func TestConsumerHeader(t *testing.T) {
	har := `{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-12-04T10:00:00Z",` +
		`"request":{"method":"GET","url":"http://localhost/v1/charges/ch_9","headers":[{"name":"authorization","value":"Bearer sk_live_4f9a8b7c6d"}]},` +
		`"response":{"status":200,"content":{}}}]}}`
	es, cov, err := readers.ReadTraffic("k.har", readers.FormatHAR, strings.NewReader(har),
		readers.Mapping{Header: "Authorization", KeyPrefix: 8}, time.Time{}, nil, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Consumer != "sk_live_" || es[0].Path != "/v1/charges/{}" || !slices.Equal(cov.Consumers, []string{"sk_live_"}) {
		t.Errorf("entries %+v, coverage %+v; want one call by sk_live_ of /v1/charges/{}", es, cov)
	}
}
