package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestTracesGroupsByResourceAndScope: spans of two services and two scopes
// become one resourceSpans per service and one scopeSpans per scope, with
// every attribute type, the parent and the status kept.
func TestTracesGroupsByResourceAndScope(t *testing.T) {
	web := resource.NewSchemaless(attribute.String("service.name", "web"))
	api := resource.NewSchemaless(attribute.String("service.name", "api"))
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: [16]byte{1}, SpanID: [8]byte{2}, TraceFlags: trace.FlagsSampled})
	stubs := tracetest.SpanStubs{
		{Name: "a", Resource: web, SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: [16]byte{1}, SpanID: [8]byte{3}}),
			Parent: parent, SpanKind: trace.SpanKindServer, Attributes: []attribute.KeyValue{
				attribute.String("s", "x"), attribute.Int("i", 7), attribute.Bool("b", true), attribute.Float64("f", 1.5),
				attribute.StringSlice("ss", []string{"p", "q"}), attribute.Int64Slice("is", []int64{1, 2})}},
		{Name: "b", Resource: api, SpanKind: trace.SpanKindClient, Status: sdktrace.Status{Code: codes.Error, Description: "boom"}},
		{Name: "c", Resource: web, InstrumentationScope: instrumentation.Scope{Name: "other"}},
		{Name: "d", Resource: web},
	}
	td := Traces(stubs.Snapshots())
	if n := td.ResourceSpans().Len(); n != 2 {
		t.Fatalf("%d resourceSpans, want 2", n)
	}
	webRS := td.ResourceSpans().At(0)
	if svc, _ := webRS.Resource().Attributes().Get("service.name"); svc.Str() != "web" || webRS.ScopeSpans().Len() != 2 {
		t.Fatalf("first resource %q with %d scopes, want web with 2", svc.Str(), webRS.ScopeSpans().Len())
	}
	first := webRS.ScopeSpans().At(0).Spans()
	if first.Len() != 2 || first.At(0).Name() != "a" || first.At(1).Name() != "d" {
		t.Fatalf("the first scope holds %d spans", first.Len())
	}
	a := first.At(0)
	if a.ParentSpanID() != [8]byte{2} || a.TraceID() != [16]byte{1} || a.Kind() != ptrace.SpanKindServer {
		t.Errorf("span a: parent %v trace %v kind %v", a.ParentSpanID(), a.TraceID(), a.Kind())
	}
	want := map[string]any{"s": "x", "i": int64(7), "b": true, "f": 1.5, "ss": []any{"p", "q"}, "is": []any{int64(1), int64(2)}}
	if d := cmp.Diff(want, a.Attributes().AsRaw()); d != "" {
		t.Errorf("span a's attributes (-want +got):\n%s", d)
	}
	b := td.ResourceSpans().At(1).ScopeSpans().At(0).Spans().At(0)
	if b.Status().Code() != ptrace.StatusCodeError || b.Status().Message() != "boom" || b.Kind() != ptrace.SpanKindClient {
		t.Errorf("span b: status %v %q kind %v", b.Status().Code(), b.Status().Message(), b.Kind())
	}
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	// OTLP JSON spells ids in hex, not protobuf JSON's base64.
	if !strings.Contains(string(line), `"traceId":"01000000000000000000000000000000"`) {
		t.Errorf("no hex trace id in %s", line)
	}
}

// TestHandlerContinuesTheCallersTrace: a request with a traceparent gets a
// server span in that trace, its parent the caller's span, named after the
// route it matched; an unrouted request keeps the bare method as its name
// and has no route. Each batch is one line of the file.
func TestHandlerContinuesTheCallersTrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	exp, err := OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tp := NewProvider(exp)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/things/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	srv := httptest.NewServer(Handler(tp, mux))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/things/7", nil)
	req.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
	for _, r := range []*http.Request{req, mustGet(t, srv.URL+"/nowhere")} {
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var spans []ptrace.Span
	for l := range strings.Lines(string(raw)) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(l))
		if err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					spans = append(spans, s)
				}
			}
		}
	}
	if len(spans) != 2 {
		t.Fatalf("%d spans, want 2", len(spans))
	}
	s := spans[0]
	route, _ := s.Attributes().Get(KeyRoute)
	status, _ := s.Attributes().Get(KeyStatus)
	if s.Name() != "GET /v1/things/{id}" || route.Str() != "/v1/things/{id}" || status.Int() != http.StatusTeapot {
		t.Errorf("span %q route %q status %d", s.Name(), route.Str(), status.Int())
	}
	if s.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" || s.ParentSpanID().String() != "b7ad6b7169203331" {
		t.Errorf("trace %s parent %s: not the caller's", s.TraceID(), s.ParentSpanID())
	}
	if _, ok := spans[1].Attributes().Get(KeyRoute); ok || spans[1].Name() != "GET" {
		t.Errorf("unrouted span %q has a route: %v", spans[1].Name(), spans[1].Attributes().AsRaw())
	}
}

func mustGet(t *testing.T, url string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
