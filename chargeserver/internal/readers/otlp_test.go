package readers_test

import (
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

	// Three clients: the charge client, reportsUA and appUA.
	wantEvidence(t, dir, "traces.jsonl", tr.reads[reportsUA], reportsUA, tr.rpcReads, appUA, tr.requests, 3, 0, "")
}
