package readers_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
)

// TestOwnTracesAreEvidence: the charge server's own OTLP trace file, written
// while the charge client, a reader of charges and the generated client
// over gRPC and Connect used it, is evidence for contractlint: removing
// getCharge or GetCharge, which they call, is an error counting their calls
// (the refused reads of a missing charge not among them); removing
// listCharges or ListCharges, which nobody calls, is a warning that says
// how much traffic shows no call. Traces carry no bodies, so the removed
// request field gets no evidence either way.
func TestOwnTracesAreEvidence(t *testing.T) {
	dir := workspace(t)
	base, flush := chargetest.StartTraced(t, apiKeys, filepath.Join(dir, "traces.jsonl"))
	tr := drive(t, base, grpcClient(base), connectClient(base))
	flush()

	noCall := func(e evidence) string {
		// The charge client, reportsUA and appUA.
		return fmt.Sprintf("no call in %s across %d requests from 3 clients", e.window, tr.requests)
	}
	t.Run("openapi", func(t *testing.T) {
		e := diff(t, dir, "openapi.yaml", "traces.jsonl")
		wantRemovals(t, e, "path /v1/charges/{id}", calledBy(tr.reads[reportsUA], e.window, reportsUA),
			"operation GET /v1/charges", noCall(e))
	})
	t.Run("proto", func(t *testing.T) {
		e := diff(t, dir, "charges.proto", "traces.jsonl")
		wantRemovals(t, e, "rpc contractlint.charges.v1.ChargeService.GetCharge", calledBy(tr.rpcReads, e.window, appUA),
			"rpc contractlint.charges.v1.ChargeService.ListCharges", noCall(e))
	})
}
