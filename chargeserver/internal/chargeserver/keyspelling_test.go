package chargeserver

import (
	"testing"

	"connectrpc.com/connect"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/processor"
)

// keySend is one attempt of an intent: the protocol, and the key as spelled
// in the request field or in the idempotency-key metadata (over HTTP the
// header is the only place).
type keySend struct {
	proto    string
	field    string
	metadata string
}

// sendKey makes one attempt of okBody's intent and returns the charge id it
// was told, or the refusal's reason as ErrorInfo spells it.
func sendKey(t *testing.T, h *harness, cs map[string]rpcCaller, s keySend) (id, reason string) {
	t.Helper()
	if s.proto == "http" {
		r := h.mustPost(t, keyA, s.metadata, okBody)
		if r.Status == 201 {
			return r.charge(t).ID, ""
		}
		return "", rpcReason(r.code())
	}
	var md map[string]string
	if s.metadata != "" {
		md = map[string]string{"idempotency-key": s.metadata}
	}
	r := mustCreate(t, cs[s.proto], keyA, md, okCharge(s.field))
	if r.code == 0 {
		return r.charge.GetId(), ""
	}
	if r.code != connect.CodeInvalidArgument {
		t.Fatalf("%+v: %v", s, r)
	}
	return "", r.reason
}

// rpcReason is a problem code as the RPC API's ErrorInfo reason spells it.
func rpcReason(code string) string {
	b := []byte(code)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// TestKeySpellingIsOneKeyOnEveryProtocol is issue 49's money bug: HTTP trims
// the spaces around a header value, so "K " over HTTP was the key "K" while
// the same "K " in the Connect or gRPC request field stayed "K ", and one
// intent sent over both was two charges. One intent per group below goes out
// over every protocol with every spelling; each group must be one charge
// (surrounding spaces and tabs are not part of a key), a key differing in
// case is another key on every protocol alike, and a key that is not
// printable ASCII (either Unicode normalisation of "café") is refused on every
// protocol with the same problem, charging nothing.
func TestKeySpellingIsOneKeyOnEveryProtocol(t *testing.T) {
	ledger := processor.NewLedger()
	h := newHarness(t, testConfig(sqliteDSN(t)), ledger)
	cs := callers(t, h.url)
	groups := map[string][]keySend{
		"trailing space": {
			{proto: "http", metadata: "K "},
			{proto: "grpc", field: "K "},
			{proto: "connect", field: "K "},
			{proto: "grpc-web", field: "K "},
			{proto: "grpc", field: "K"},
			{proto: "connect", field: "K\t"},
			{proto: "grpc-web", field: " K", metadata: "K"},
			{proto: "http", metadata: "K"},
		},
		"upper case": {
			{proto: "connect", field: "ORDER-7 "},
			{proto: "http", metadata: " ORDER-7"},
			{proto: "grpc", field: "ORDER-7"},
			{proto: "grpc-web", field: "\tORDER-7"},
		},
		"lower case": {
			{proto: "grpc-web", field: "order-7"},
			{proto: "http", metadata: "order-7 "},
			{proto: "grpc", field: " order-7 "},
			{proto: "connect", field: "order-7"},
		},
	}
	ids := map[string]string{}
	for name, sends := range groups {
		for _, s := range sends {
			id, reason := sendKey(t, h, cs, s)
			switch {
			case id == "":
				t.Errorf("%s %+v: refused with %s, want a charge", name, s, reason)
			case ids[name] == "":
				ids[name] = id
			case ids[name] != id:
				t.Errorf("%s %+v: told charge %s, the group was told %s: two charges for one key", name, s, id, ids[name])
			}
		}
	}
	if ids["upper case"] == ids["lower case"] {
		t.Errorf("ORDER-7 and order-7 were told one charge %s: keys are case-sensitive", ids["upper case"])
	}
	for _, key := range []string{"caf\u00e9", "cafe\u0301", "caf\u00e9 "} {
		for _, s := range []keySend{{proto: "http", metadata: key}, {proto: "grpc", field: key}, {proto: "connect", field: key}, {proto: "grpc-web", field: key}} {
			if id, reason := sendKey(t, h, cs, s); id != "" || reason != "IDEMPOTENCY_KEY_INVALID" {
				t.Errorf("%+q over %s: charge %q, reason %q; want IDEMPOTENCY_KEY_INVALID and no charge", key, s.proto, id, reason)
			}
		}
	}
	if rows, charged := countCharges(t, h.store), processorCharges(t, ledger); rows != 3 || charged != 3 {
		t.Fatalf("%d charge rows and %d processor charges for three keys, want 3 and 3", rows, charged)
	}
}
