package rules

import "testing"

// TestReadVerbs holds each documented read verb to its meaning: an rpc
// named with it is a read, unbound and without a key; the same letters
// running on into a lower-case word (Getaway, Checkout) are not the verb.
func TestReadVerbs(t *testing.T) {
	for _, verb := range readVerbs {
		t.Run(verb, func(t *testing.T) {
			for _, name := range []string{verb, verb + "Charges"} {
				if op := (&Operation{ID: "pay.v1.Charges." + name}); !readRPC(op) || needsKey(op) {
					t.Errorf("rpc %s is a read, but needsKey holds", name)
				}
			}
			if op := (&Operation{ID: "pay.v1.Charges." + verb + "ment"}); readRPC(op) {
				t.Errorf("rpc %sment is no %s read", verb, verb)
			}
		})
	}
	// A search named noun first (AuthZEN's SubjectSearch) is a Search.
	// So is a schema diff named noun first, and a read verb behind
	// authzed's Experimental prefix (ExperimentalDiffSchema).
	for name, read := range map[string]bool{"SubjectSearch": true, "ChargeSearch": true, "Research": false, "ChargeSearchAgain": false,
		"SchemaDiff": true, "ExperimentalSchemaDiff": true, "ExperimentalDiffSchema": true, "ExperimentalCountCharges": true,
		"ExperimentalRegisterCounter": false, "Experimental": false} {
		if op := (&Operation{ID: "pay.v1.Charges." + name}); readRPC(op) != read {
			t.Errorf("rpc %s: read %v, want %v", name, !read, read)
		}
	}
	// A name that starts with an adjective names what the rpc returns, not
	// an action (authzed's ComputablePermissions, DependentRelations); the
	// verbs spelled like one (Enable, Disable) are actions.
	for _, adj := range readAdjectives {
		if op := (&Operation{ID: "pay.v1.Charges." + adj + "Charges"}); !readRPC(op) || needsKey(op) {
			t.Errorf("rpc %sCharges is a read, but needsKey holds", adj)
		}
	}
	for _, verb := range ableVerbs {
		if op := (&Operation{ID: "pay.v1.Charges." + verb + "Charges"}); readRPC(op) {
			t.Errorf("rpc %sCharges is an action, not a read", verb)
		}
	}
	for name, read := range map[string]bool{"ComputablePermissions": true, "VisibleCharges": true, "RefundableCharges": true,
		"ExperimentalComputablePermissions": true, "Able": false, "Ible": false} {
		if op := (&Operation{ID: "pay.v1.Charges." + name}); readRPC(op) != read {
			t.Errorf("rpc %s: read %v, want %v", name, !read, read)
		}
	}
	// A batch of reads is a read (Cerbos's AccessEvaluationBatch); a batch
	// of anything else is not.
	for name, read := range map[string]bool{"AccessEvaluation": true, "AccessEvaluationBatch": true, "GetChargeBatch": true,
		"AccessBatch": false, "Batch": false, "CaptureChargeBatch": false} {
		if op := (&Operation{ID: "pay.v1.Charges." + name}); readRPC(op) != read {
			t.Errorf("rpc %s: read %v, want %v", name, !read, read)
		}
	}
	// Idempotent by name (AIP-135's Delete) or by an HTTP PUT or DELETE
	// binding: no key needed, though not a read.
	for _, verb := range idempotentVerbs {
		for _, name := range []string{verb, verb + "Charge", "Experimental" + verb + "Charge"} {
			if op := (&Operation{ID: "pay.v1.Charges." + name}); needsKey(op) || readRPC(op) {
				t.Errorf("rpc %s is idempotent, not a read: needsKey %v, read %v", name, needsKey(op), readRPC(op))
			}
		}
		if op := (&Operation{ID: "pay.v1.Charges." + verb + "d"}); !needsKey(op) {
			t.Errorf("rpc %sd is no %s", verb, verb)
		}
	}
	for _, method := range []string{"PUT", "DELETE"} {
		if op := (&Operation{ID: "pay.v1.Charges.CaptureCharge", Binding: method}); needsKey(op) {
			t.Errorf("an rpc bound to HTTP %s is idempotent", method)
		}
	}
	if op := (&Operation{ID: "pay.v1.Charges.CaptureCharge", Binding: "GET"}); needsKey(op) {
		t.Error("an rpc bound to HTTP GET is a read")
	}
	if op := (&Operation{ID: "pay.v1.Charges.CaptureCharge", Binding: "POST"}); !needsKey(op) {
		t.Error("CaptureCharge bound to POST may change state")
	}
}
