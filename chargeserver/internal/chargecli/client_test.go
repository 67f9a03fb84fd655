package chargecli

import (
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeclient"
)

// TestDescribeNeverClaimsNotChargedWithoutProof: the line the command prints
// says "not charged" only for an answer that proves it. A reused key already
// charged, for the earlier request: the line says so and points at that
// charge, never inviting a retry under a fresh key.
func TestDescribeNeverClaimsNotChargedWithoutProof(t *testing.T) {
	for name, c := range map[string]struct {
		res       chargeclient.Result
		want, not []string
	}{
		"key reused": {
			chargeclient.Result{Key: "K", Status: 422, Code: "idempotency_key_reused", Detail: "this Idempotency-Key was used with a different request body", Attempts: 1, Final: true},
			[]string{"this key was already used for a different request; nothing new was charged; look up the earlier charge",
				"this Idempotency-Key was used with a different request body", "key K"},
			[]string{"not charged"},
		},
		"stored unknown": {
			chargeclient.Result{Key: "K", Status: 502, Code: "charge_outcome_unknown", Attempts: 1, Final: true},
			[]string{"outcome unknown", "502 charge_outcome_unknown", "never with a new key"},
			[]string{"not charged"},
		},
		"unrecognised answer": {
			chargeclient.Result{Key: "K", Status: 404, Attempts: 1, Final: true},
			[]string{"outcome unknown", "404", "never with a new key"},
			[]string{"not charged"},
		},
		"declined": {
			chargeclient.Result{Key: "K", Status: 402, Code: "card_declined", Attempts: 1, Final: true},
			[]string{"not charged: 402 card_declined after 1 attempt (key K)"},
			nil,
		},
	} {
		got := describe(c.res, time.Minute)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not say %q", name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q says %q", name, got, n)
			}
		}
	}
}
