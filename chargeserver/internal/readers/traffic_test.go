// Package readers_test drives the reference charge server with real clients,
// records the traffic as its operators would (the server's own OpenTelemetry
// traces, a HAR from headless Chromium, a JSON access log of nginx in front
// of it), and asks contractlint what that evidence says about removing what
// the clients call and what they do not.
package readers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
	chargesv1 "github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1/chargesv1connect"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/testdb"
)

// The consumers, each named by the User-Agent it sends, which is how the
// evidence readers tell clients apart by default.
const (
	// reportsUA reads charges back over HTTP.
	reportsUA = "reports/1"
	// appUA is the generated Connect client, over gRPC and Connect.
	appUA = "checkout-app/1"
	// webUA is the browser.
	webUA = "checkout-web/1"
)

// apiKeys are the server's accounts.
var apiKeys = map[string]string{"sk_web": "acct_web", "sk_app": "acct_app"}

// missingID is a charge id no account has: reads of it are refused (404,
// NOT_FOUND) and must not count as use.
const missingID = "ch_missing"

// traffic is what drive sent that counts as use, per consumer: the
// refused reads of missingID are left out.
type traffic struct {
	reads      map[string]int // GET /v1/charges/{id}, by consumer
	rpcCreates int            // CreateCharge by appUA, every protocol
	rpcReads   int            // GetCharge by appUA
	requests   int            // everything sent, refused included
}

// drive sends the traffic of three consumers: the charge client creates
// two charges over HTTP (its body always carries description), reportsUA reads each
// back and asks for a missing one, and appUA creates a charge and reads it
// back over each rpc client given, then asks for the missing one. Nobody
// lists charges.
func drive(t *testing.T, base string, rpcClients ...chargesv1connect.ChargeServiceClient) traffic {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tr := traffic{reads: map[string]int{}}
	opts := chargeclient.DefaultOptions()
	opts.URL, opts.APIKey = base+"/v1/charges", "sk_web"
	client := chargeclient.New(opts)
	var ids []string
	for _, desc := range []string{"tea", ""} {
		res, err := client.Charge(ctx, chargeclient.Intent{AmountCents: 4900, Currency: "GBP", CardToken: "tok_visa", Description: desc})
		if err != nil || !res.Charged() {
			t.Fatalf("charge: %+v %v", res, err)
		}
		var c struct{ ID string }
		if err := json.Unmarshal(res.Body, &c); err != nil || c.ID == "" {
			t.Fatalf("charge answer %s: %v", res.Body, err)
		}
		ids = append(ids, c.ID)
		tr.requests++
	}
	for _, id := range append(ids, missingID) {
		status := httpGet(t, ctx, base+"/v1/charges/"+id, "sk_web", reportsUA)
		tr.requests++
		if id == missingID {
			if status != http.StatusNotFound {
				t.Fatalf("GET %s: %d, want 404", id, status)
			}
			continue
		}
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", id, status)
		}
		tr.reads[reportsUA]++
	}
	for _, c := range rpcClients {
		req := connect.NewRequest(&chargesv1.CreateChargeRequest{IdempotencyKey: chargeclient.NewKey(), AmountCents: 1200,
			Currency: "GBP", CardToken: "tok_visa", Description: "coffee"})
		res, err := c.CreateCharge(ctx, appRequest(req))
		if err != nil {
			t.Fatal(err)
		}
		tr.rpcCreates++
		if _, err := c.GetCharge(ctx, appRequest(connect.NewRequest(&chargesv1.GetChargeRequest{Id: res.Msg.GetId()}))); err != nil {
			t.Fatal(err)
		}
		tr.rpcReads++
		if _, err := c.GetCharge(ctx, appRequest(connect.NewRequest(&chargesv1.GetChargeRequest{Id: missingID}))); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("GetCharge %s: %v, want NOT_FOUND", missingID, err)
		}
		tr.requests += 3
	}
	return tr
}

// appRequest is a request as appUA sends it.
func appRequest[T any](r *connect.Request[T]) *connect.Request[T] {
	r.Header().Set("Authorization", "Bearer sk_app")
	r.Header().Set("User-Agent", appUA)
	return r
}

func httpGet(t *testing.T, ctx context.Context, url, key, ua string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("User-Agent", ua)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// grpcClient is the generated client speaking gRPC over HTTP/2 cleartext.
func grpcClient(base string) chargesv1connect.ChargeServiceClient {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return chargesv1connect.NewChargeServiceClient(&http.Client{Transport: &http.Transport{Protocols: &p}}, base, connect.WithGRPC())
}

// connectClient is the generated client speaking the Connect protocol with
// JSON bodies over HTTP/1.1, which a proxy logs as it logs any JSON API.
func connectClient(base string) chargesv1connect.ChargeServiceClient {
	return chargesv1connect.NewChargeServiceClient(http.DefaultClient, base, connect.WithProtoJSON())
}

// need finds a program, or skips without it; on CI (CI=true) a missing
// program fails (testdb.Missing), so the suite never passes by skipping.
func need(t testing.TB, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	testdb.Missing(t, names[0]+" is not installed")
	return ""
}

// contracts is where the charge server's contracts are: the fixtures the
// server itself is tested against.
var contracts = filepath.Join("..", "chargeserver", "api")

// cut removes from s the text from the line that starts with from up to,
// not including, the line that starts with to ("" for one line only),
// failing unless from is there exactly once.
func cut(t *testing.T, s, from, to string) string {
	t.Helper()
	if strings.Count(s, "\n"+from) != 1 {
		t.Fatalf("%q is not in the contract exactly once", from)
	}
	i := strings.Index(s, "\n"+from) + 1
	j := i + strings.Index(s[i:], "\n") + 1
	if to != "" {
		k := strings.Index(s[i:], "\n"+to)
		if k < 0 {
			t.Fatalf("%q does not follow %q", to, from)
		}
		j = i + k + 1
	}
	return s[:i] + s[j:]
}

// workspace writes the charge server's contracts, old and changed, into a
// fresh directory (the repository contractlint runs in, where the evidence
// must be too): the change removes one operation its clients call (getCharge,
// GetCharge), one nobody calls (listCharges, ListCharges) and the request
// field description of CreateChargeRequest.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	oa := read(t, filepath.Join(contracts, "openapi.yaml"))
	newOA := cut(t, oa, "    get:\n      operationId: listCharges", "  /v1/charges/{id}:")
	newOA = cut(t, newOA, "  /v1/charges/{id}:", "  /openapi.yaml:")
	newOA = cut(t, newOA, "        description:\n          type: string\n          maxLength: 1000", "    Charge:")
	pb := read(t, filepath.Join(contracts, "charges.proto"))
	newPB := cut(t, pb, "  rpc GetCharge(", "  rpc ListCharges(")
	newPB = cut(t, newPB, "  rpc ListCharges(", "}")
	newPB = cut(t, newPB, "  string description = 5;", "")
	for name, text := range map[string]string{"old/openapi.yaml": oa, "new/openapi.yaml": newOA,
		"old/charges.proto": pb, "new/charges.proto": newPB} {
		write(t, filepath.Join(dir, name), text)
	}
	return dir
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
