package chargeserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	chargesv1 "github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1/chargesv1connect"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/rpc"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/store"
)

// okCharge is okBody as a message.
func okCharge(key string) *chargesv1.CreateChargeRequest {
	return &chargesv1.CreateChargeRequest{IdempotencyKey: key, AmountCents: 4000, Currency: "GBP", CardToken: "tok_visa", Description: "tea"}
}

// rpcReply is one RPC's answer, whichever client got it.
type rpcReply struct {
	charge     *chargesv1.Charge
	replayed   bool
	code       connect.Code // 0 for OK
	reason     string       // google.rpc.ErrorInfo's
	retryDelay time.Duration
	message    string
}

func (r rpcReply) String() string {
	if r.code == 0 {
		return fmt.Sprintf("OK %v replayed=%v", r.charge, r.replayed)
	}
	return fmt.Sprintf("%v %s (%s, retry %s)", r.code, r.message, r.reason, r.retryDelay)
}

// rpcCaller makes a CreateCharge call with one protocol and client.
type rpcCaller interface {
	create(ctx context.Context, apiKey string, md map[string]string, req *chargesv1.CreateChargeRequest) (rpcReply, error)
}

// grpcGo is a real grpc-go client over HTTP/2 cleartext.
type grpcGo struct{ conn *grpc.ClientConn }

func newGRPCGo(t testing.TB, baseURL string) *grpcGo {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(baseURL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &grpcGo{conn: conn}
}

func outgoing(ctx context.Context, apiKey string, md map[string]string) context.Context {
	kv := []string{}
	if apiKey != "" {
		kv = append(kv, "authorization", "Bearer "+apiKey)
	}
	for k, v := range md {
		kv = append(kv, k, v)
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

func (g *grpcGo) create(ctx context.Context, apiKey string, md map[string]string, req *chargesv1.CreateChargeRequest) (rpcReply, error) {
	var header, trailer metadata.MD
	out := &chargesv1.Charge{}
	err := g.conn.Invoke(outgoing(ctx, apiKey, md), chargesv1connect.ChargeServiceCreateChargeProcedure, req, out, grpc.Header(&header), grpc.Trailer(&trailer))
	replayed := len(trailer.Get("idempotent-replay")) == 1 && trailer.Get("idempotent-replay")[0] == "true"
	if err == nil {
		return rpcReply{charge: out, replayed: replayed}, nil
	}
	st, ok := status.FromError(err)
	if !ok || st.Code() == 14 && strings.Contains(st.Message(), "connection") {
		return rpcReply{}, err
	}
	r := rpcReply{code: connect.Code(st.Code()), message: st.Message(), replayed: replayed}
	for _, d := range st.Details() {
		r.detail(d)
	}
	return r, nil
}

func (r *rpcReply) detail(d any) {
	switch d := d.(type) {
	case *errdetails.ErrorInfo:
		if d.Domain == rpc.ErrorDomain {
			r.reason = d.Reason
		}
	case *errdetails.RetryInfo:
		r.retryDelay = d.RetryDelay.AsDuration()
	}
}

// connectClient is the generated Connect client, speaking the Connect
// protocol (HTTP/1.1) or gRPC-Web.
type connectClient struct {
	c chargesv1connect.ChargeServiceClient
}

func newConnect(baseURL string, opts ...connect.ClientOption) *connectClient {
	return &connectClient{c: chargesv1connect.NewChargeServiceClient(http.DefaultClient, baseURL, opts...)}
}

func (c *connectClient) create(ctx context.Context, apiKey string, md map[string]string, req *chargesv1.CreateChargeRequest) (rpcReply, error) {
	creq := connect.NewRequest(req)
	if apiKey != "" {
		creq.Header().Set("Authorization", "Bearer "+apiKey)
	}
	for k, v := range md {
		creq.Header().Set(k, v)
	}
	res, err := c.c.CreateCharge(ctx, creq)
	if err == nil {
		return rpcReply{charge: res.Msg, replayed: res.Trailer().Get("Idempotent-Replay") == "true"}, nil
	}
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() == connect.CodeUnavailable && strings.Contains(ce.Message(), "connect:") {
		return rpcReply{}, err
	}
	r := rpcReply{code: ce.Code(), message: ce.Message(), replayed: ce.Meta().Get("Idempotent-Replay") == "true"}
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			r.detail(v)
		}
	}
	return r, nil
}

// callers are the three protocols' clients against one server.
func callers(t testing.TB, baseURL string) map[string]rpcCaller {
	return map[string]rpcCaller{
		"grpc":     newGRPCGo(t, baseURL),
		"connect":  newConnect(baseURL),
		"grpc-web": newConnect(baseURL, connect.WithGRPCWeb()),
	}
}

func mustCreate(t testing.TB, c rpcCaller, apiKey string, md map[string]string, req *chargesv1.CreateChargeRequest) rpcReply {
	t.Helper()
	r, err := c.create(context.Background(), apiKey, md, req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRPCSemantics holds each protocol to the HTTP API's idempotency: a
// replay is the stored charge with the idempotent-replay trailer, a key
// reused with another request is FAILED_PRECONDITION, a missing key and
// disagreeing keys are INVALID_ARGUMENT, each with its ErrorInfo reason.
func TestRPCSemantics(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	for name, c := range callers(t, h.url) {
		t.Run(name, func(t *testing.T) {
			key := "sem-" + name
			first := mustCreate(t, c, keyA, nil, okCharge(key))
			if first.code != 0 || first.replayed || first.charge.GetId() == "" || first.charge.GetStatus() != chargesv1.ChargeStatus_CHARGE_STATUS_SUCCEEDED {
				t.Fatalf("first call: %v", first)
			}
			again := mustCreate(t, c, keyA, nil, okCharge(key))
			if again.code != 0 || !again.replayed || !proto.Equal(again.charge, first.charge) {
				t.Fatalf("retry: %v, want the first charge replayed", again)
			}
			// The key in metadata instead of the field is the same claim.
			md := mustCreate(t, c, keyA, map[string]string{"idempotency-key": key}, okCharge(""))
			if md.code != 0 || !md.replayed || md.charge.GetId() != first.charge.GetId() {
				t.Fatalf("retry with the key in metadata: %v", md)
			}
			other := okCharge(key)
			other.AmountCents++
			checkRefused(t, "another amount", mustCreate(t, c, keyA, nil, other), connect.CodeFailedPrecondition, "IDEMPOTENCY_KEY_REUSED")
			checkRefused(t, "no key", mustCreate(t, c, keyA, nil, okCharge("")), connect.CodeInvalidArgument, "IDEMPOTENCY_KEY_MISSING")
			checkRefused(t, "two keys", mustCreate(t, c, keyA, map[string]string{"idempotency-key": "x"}, okCharge(key)), connect.CodeInvalidArgument, rpc.ReasonKeyConflict)
			checkRefused(t, "no credentials", mustCreate(t, c, "", nil, okCharge(key)), connect.CodeUnauthenticated, "UNAUTHORIZED")
			// Another account's key is its own claim.
			b := mustCreate(t, c, keyB, nil, okCharge(key))
			if b.code != 0 || b.replayed || b.charge.GetId() == first.charge.GetId() {
				t.Fatalf("account B with A's key: %v", b)
			}
		})
	}
	if n := countCharges(t, h.store); n != 6 {
		t.Fatalf("%d charge rows, want 6 (two accounts, three protocols)", n)
	}
}

func checkRefused(t *testing.T, what string, r rpcReply, code connect.Code, reason string) {
	t.Helper()
	if r.code != code || r.reason != reason || r.replayed {
		t.Errorf("%s: %v, want %v with reason %s", what, r, code, reason)
	}
}

// TestRPCInFlightIsAborted: a retry while the first call is held answers
// ABORTED with google.rpc.RetryInfo, as HTTP answers 409 with Retry-After;
// over HTTP, gRPC and Connect alike.
func TestRPCInFlightIsAborted(t *testing.T) {
	cfg := testConfig(sqliteDSN(t))
	cfg.AllowProbeDelay = true
	h := newHarness(t, cfg, nil)
	cs := callers(t, h.url)
	done := make(chan rpcReply, 1)
	go func() {
		done <- mustCreate(t, cs["grpc"], keyA, map[string]string{"x-probe-delay": "1500ms"}, okCharge("held"))
	}()
	waitFor(t, 5*time.Second, func() bool {
		rec, err := h.store.Get(context.Background(), store.Scope{Account: acctA, Route: RouteCreateCharge, Key: "held"})
		return err == nil && rec.Status == store.StatusInProgress
	})
	if r := h.mustPost(t, keyA, "held", okBody); r.Status != 409 || r.Header.Get("Retry-After") == "" {
		t.Errorf("HTTP during the held gRPC call: %d %s", r.Status, r.Body)
	}
	for name, c := range cs {
		r := mustCreate(t, c, keyA, nil, okCharge("held"))
		if r.code != connect.CodeAborted || r.reason != "REQUEST_IN_PROGRESS" || r.retryDelay < time.Second {
			t.Errorf("%s during the held call: %v, want ABORTED with RetryInfo", name, r)
		}
	}
	first := <-done
	if first.code != 0 || first.replayed {
		t.Fatalf("held call: %v", first)
	}
	r := h.mustPost(t, keyA, "held", okBody)
	if r.Status != 201 || !r.replayed() || r.charge(t).ID != first.charge.GetId() {
		t.Fatalf("HTTP retry after the gRPC call: %d %s", r.Status, r.Body)
	}
}

// TestMixedProtocolDuplicates races one request with one key over HTTP,
// gRPC, gRPC-Web and Connect at once: exactly one charge, and every success
// carries it.
func TestMixedProtocolDuplicates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db string) {
		ledger := processor.NewLedger()
		ledger.SetFaults(processor.Faults{Latency: 20 * time.Millisecond})
		h := newHarness(t, testConfig(db), ledger)
		cs := callers(t, h.url)
		names := []string{"http", "grpc", "connect", "grpc-web"}
		const n = 50
		ids := make([]string, n)
		fresh := make([]bool, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				name := names[i%len(names)]
				if name == "http" {
					r, err := h.post(t, keyA, "mixed", okBody)
					switch {
					case err != nil:
						t.Error(err)
					case r.Status == 201:
						ids[i], fresh[i] = r.charge(t).ID, !r.replayed()
					case r.Status != 409 || r.Header.Get("Retry-After") == "":
						t.Errorf("http: %d %s", r.Status, r.Body)
					}
					return
				}
				r, err := cs[name].create(context.Background(), keyA, nil, okCharge("mixed"))
				switch {
				case err != nil:
					t.Error(name, err)
				case r.code == 0:
					ids[i], fresh[i] = r.charge.GetId(), !r.replayed
				case r.code != connect.CodeAborted || r.retryDelay == 0:
					t.Errorf("%s: %v", name, r)
				}
			})
		}
		close(start)
		wg.Wait()
		seen, nfresh := map[string]bool{}, 0
		for i, id := range ids {
			if id != "" {
				seen[id] = true
			}
			if fresh[i] {
				nfresh++
			}
		}
		if len(seen) != 1 || nfresh != 1 {
			t.Fatalf("%d charge ids and %d fresh answers, want 1 and 1: %v", len(seen), nfresh, ids)
		}
		if rows, charged := countCharges(t, h.store), processorCharges(t, ledger); rows != 1 || charged != 1 {
			t.Fatalf("%d charge rows and %d processor charges, want 1 and 1", rows, charged)
		}
		// A retry afterwards over any protocol is the same charge, replayed.
		for name, c := range cs {
			if r := mustCreate(t, c, keyA, nil, okCharge("mixed")); !r.replayed || !seen[r.charge.GetId()] {
				t.Errorf("%s retry: %v", name, r)
			}
		}
	})
}

// TestRPCReadsAndReflection: GetCharge and ListCharges answer what HTTP
// lists, and gRPC server reflection (what grpcurl and buf curl use) names
// the service.
func TestRPCReadsAndReflection(t *testing.T) {
	h := newHarness(t, testConfig(sqliteDSN(t)), nil)
	g := newGRPCGo(t, h.url)
	made := mustCreate(t, g, keyA, nil, okCharge("read"))
	ctx := outgoing(context.Background(), keyA, nil)
	got := &chargesv1.Charge{}
	if err := g.conn.Invoke(ctx, chargesv1connect.ChargeServiceGetChargeProcedure, &chargesv1.GetChargeRequest{Id: made.charge.GetId()}, got); err != nil || !proto.Equal(got, made.charge) {
		t.Fatalf("GetCharge: %v %v, want %v", got, err, made.charge)
	}
	err := g.conn.Invoke(ctx, chargesv1connect.ChargeServiceGetChargeProcedure, &chargesv1.GetChargeRequest{Id: "ch_none"}, got)
	if status.Code(err) != 5 {
		t.Fatalf("GetCharge of no charge: %v, want NOT_FOUND", err)
	}
	list, err := newConnect(h.url).c.ListCharges(context.Background(), authorized(connect.NewRequest(&chargesv1.ListChargesRequest{Limit: 5}), keyA))
	if err != nil || len(list.Msg.GetData()) != 1 || !proto.Equal(list.Msg.GetData()[0], made.charge) || list.Msg.GetHasMore() {
		t.Fatalf("ListCharges: %v %v", list, err)
	}
	if _, err := newConnect(h.url).c.ListCharges(context.Background(), authorized(connect.NewRequest(&chargesv1.ListChargesRequest{Limit: 500}), keyA)); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("ListCharges limit 500: %v", err)
	}

	stream, err := reflectionv1.NewServerReflectionClient(g.conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if len(names) != 1 || names[0] != chargesv1connect.ChargeServiceName {
		t.Fatalf("reflection lists %v", names)
	}
	_ = stream.CloseSend()
}

func authorized[T any](r *connect.Request[T], apiKey string) *connect.Request[T] {
	r.Header().Set("Authorization", "Bearer "+apiKey)
	return r
}
