package chargeserver_test

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	chargesv1 "github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1/chargesv1connect"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/tracing"
)

// span is what a test checks of one recorded span.
type span struct {
	name, service string
	kind          ptrace.SpanKind
	attrs         map[string]any
}

// readSpans decodes a trace file line by line, as the collector's file
// exporter's readers do: every line must be one OTLP JSON document.
func readSpans(t *testing.T, path string) []span {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []span
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var u ptrace.JSONUnmarshaler
	for n := 1; sc.Scan(); n++ {
		if !strings.HasPrefix(sc.Text(), `{"resourceSpans":[`) {
			t.Fatalf("%s:%d is not an OTLP JSON document: %.80s", path, n, sc.Text())
		}
		td, err := u.UnmarshalTraces(sc.Bytes())
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		for _, rs := range td.ResourceSpans().All() {
			svc, _ := rs.Resource().Attributes().Get("service.name")
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					out = append(out, span{name: s.Name(), service: svc.Str(), kind: s.Kind(), attrs: s.Attributes().AsRaw()})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// h2c is a client transport that speaks HTTP/2 without TLS, as gRPC needs.
func h2c() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}}
}

// TestTraceFileRecordsEveryProtocol: with a trace file, a charge over HTTP
// (the charge client), gRPC and Connect, a read by id and a refused read
// each leave one server span of service charge-server: the HTTP ones with
// their route, method and status, the rpc ones with rpc.service,
// rpc.method and the gRPC status code, each with the account that called.
func TestTraceFileRecordsEveryProtocol(t *testing.T) {
	file := filepath.Join(t.TempDir(), "traces.jsonl")
	base, flush := chargetest.StartTraced(t, map[string]string{"sk_web": "acct_web", "sk_app": "acct_app"}, file)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	opts := chargeclient.DefaultOptions()
	opts.URL, opts.APIKey = base+"/v1/charges", "sk_web"
	res, err := chargeclient.New(opts).Charge(ctx, chargeclient.Intent{AmountCents: 4900, Currency: "GBP", CardToken: "tok_visa"})
	if err != nil || !res.Charged() {
		t.Fatalf("HTTP charge: %+v %v", res, err)
	}
	get, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/charges/ch_missing", nil)
	get.Header.Set("Authorization", "Bearer sk_web")
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	for _, c := range []chargesv1connect.ChargeServiceClient{
		chargesv1connect.NewChargeServiceClient(h2c(), base, connect.WithGRPC()),
		chargesv1connect.NewChargeServiceClient(http.DefaultClient, base),
	} {
		req := connect.NewRequest(&chargesv1.CreateChargeRequest{IdempotencyKey: chargeclient.NewKey(), AmountCents: 1200, Currency: "GBP", CardToken: "tok_visa"})
		req.Header().Set("Authorization", "Bearer sk_app")
		if _, err := c.CreateCharge(ctx, req); err != nil {
			t.Fatal(err)
		}
		miss := connect.NewRequest(&chargesv1.GetChargeRequest{Id: "ch_missing"})
		miss.Header().Set("Authorization", "Bearer sk_app")
		if _, err := c.GetCharge(ctx, miss); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("GetCharge of a missing charge: %v", err)
		}
	}
	flush()

	spans := readSpans(t, file)
	got := map[string][]map[string]any{}
	for _, s := range spans {
		if s.service != tracing.ServiceName || s.kind != ptrace.SpanKindServer {
			t.Errorf("span %q: service %q kind %v, want %s and a server span", s.name, s.service, s.kind, tracing.ServiceName)
		}
		got[s.name] = append(got[s.name], s.attrs)
	}
	check := func(name string, want ...map[string]any) {
		t.Helper()
		if len(got[name]) != len(want) {
			t.Errorf("%d spans named %q, want %d (all: %v)", len(got[name]), name, len(want), slices.Sorted(func(yield func(string) bool) {
				for k := range got {
					if !yield(k) {
						return
					}
				}
			}))
			return
		}
		for i, w := range want {
			for k, v := range w {
				if g := got[name][i][k]; g != v {
					t.Errorf("%s #%d: %s = %v, want %v", name, i+1, k, g, v)
				}
			}
		}
	}
	check("POST /v1/charges", map[string]any{"http.route": "/v1/charges", "http.request.method": "POST",
		"http.response.status_code": int64(201), "enduser.id": "acct_web", "user_agent.original": chargeclient.UserAgent})
	check("GET /v1/charges/{id}", map[string]any{"http.route": "/v1/charges/{id}", "http.response.status_code": int64(404), "enduser.id": "acct_web"})
	create := map[string]any{"rpc.service": "contractlint.charges.v1.ChargeService", "rpc.method": "CreateCharge",
		"rpc.grpc.status_code": int64(0), "enduser.id": "acct_app"}
	check("contractlint.charges.v1.ChargeService/CreateCharge", with(create, "rpc.system", "grpc"), with(create, "rpc.system", "connect_rpc"))
	missing := map[string]any{"rpc.service": "contractlint.charges.v1.ChargeService", "rpc.method": "GetCharge",
		"rpc.grpc.status_code": int64(connect.CodeNotFound), "http.route": nil}
	check("contractlint.charges.v1.ChargeService/GetCharge", with(missing, "rpc.system", "grpc"),
		with(with(missing, "rpc.system", "connect_rpc"), "rpc.connect_rpc.error_code", "not_found"))
	if len(spans) != 6 {
		t.Errorf("%d spans, want 6", len(spans))
	}
}

// with is m and k: v.
func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for mk, mv := range m {
		out[mk] = mv
	}
	return out
}
