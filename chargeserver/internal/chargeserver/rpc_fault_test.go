package chargeserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1/chargesv1connect"
)

// newRPCLoadClient is a load client that charges over gRPC (HTTP/2
// cleartext) with the generated connect-go client, which speaks the gRPC
// protocol: the same keys, body and ledger checks as over HTTP.
func newRPCLoadClient(url string, conns int) *loadClient {
	c := newLoadClient(url, conns)
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	c.rpc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		Protocols: &protocols, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, MaxIdleConnsPerHost: conns}}
	return c
}

// postRPC is post over gRPC. A refusal's status is the HTTP status the
// server's ErrorInfo carries, so the load statistics read alike; a call
// that got no answer from the server is an error.
func (c *loadClient) postRPC(key string) (status int, id string, err error) {
	client := c.service()
	req := connect.NewRequest(okCharge(key))
	req.Header().Set("Authorization", "Bearer "+keyA)
	res, err := client.CreateCharge(context.Background(), req)
	if err == nil {
		return 201, res.Msg.GetId(), nil
	}
	var ce *connect.Error
	if !errors.As(err, &ce) || !connect.IsWireError(ce) {
		return 0, "", err
	}
	for _, d := range ce.Details() {
		if v, err := d.Value(); err == nil {
			if info, ok := v.(*errdetails.ErrorInfo); ok {
				if s, err := strconv.Atoi(info.GetMetadata()["http_status"]); err == nil {
					return s, "", nil
				}
			}
		}
	}
	return 0, "", err
}

// service is the gRPC client for the current url.
func (c *loadClient) service() chargesv1connect.ChargeServiceClient {
	s := &c.rpcService
	s.Lock()
	defer s.Unlock()
	if s.client == nil || s.url != c.url {
		s.client, s.url = chargesv1connect.NewChargeServiceClient(c.rpc, c.url, connect.WithGRPC()), c.url
	}
	return s.client
}

// TestFaultSIGKILLDuringLoadOverGRPC is the SIGKILL fault test with every
// client on gRPC: nothing lost, nothing doubled, the ledger reconciles.
func TestFaultSIGKILLDuringLoadOverGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	forEachBackend(t, func(t *testing.T, db string) { sigkillDuringLoad(t, db, newRPCLoadClient) })
}

// TestFaultPostgresConnectionsKilledOverGRPC kills the server's database
// connections under gRPC load.
func TestFaultPostgresConnectionsKilledOverGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	postgresConnectionsKilled(t, newRPCLoadClient)
}

// TestFaultSQLiteDiskFullOverGRPC fills the SQLite file under gRPC load.
func TestFaultSQLiteDiskFullOverGRPC(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test under load: skipped under -short")
	}
	sqliteDiskFull(t, newRPCLoadClient)
}

// TestTwoServerProcessesOnePostgresOverGRPC races 50 identical gRPC calls
// (grpc-go clients) across two server processes sharing one database and
// one processor service: one charge.
func TestTwoServerProcessesOnePostgresOverGRPC(t *testing.T) {
	db, psURL, ledger, st := twoProcessDatabase(t)
	var clients []*grpcGo
	for range 2 {
		clients = append(clients, newGRPCGo(t, startChildAt(t, "", db, psURL, false, patientProcessor).url))
	}
	const n = 50
	replies := make([]rpcReply, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			r, err := clients[i%2].create(context.Background(), keyA, nil, okCharge("race-rpc"))
			if err != nil {
				t.Error(err)
			}
			replies[i] = r
		})
	}
	close(start)
	wg.Wait()
	ids, fresh := map[string]bool{}, 0
	for _, r := range replies {
		switch {
		case r.code == 0:
			ids[r.charge.GetId()] = true
			if !r.replayed {
				fresh++
			}
		case r.code != connect.CodeAborted || r.retryDelay == 0:
			t.Errorf("unexpected answer %v", r)
		}
	}
	if fresh != 1 || len(ids) != 1 || countCharges(t, st) != 1 || processorCharges(t, ledger) != 1 {
		t.Fatalf("%d fresh answers, %d charge ids, %d rows, %d processor charges; want 1 each", fresh, len(ids), countCharges(t, st), processorCharges(t, ledger))
	}
}
