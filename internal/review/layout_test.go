package review

import (
	"testing"
)

const chargeProto = "syntax = \"proto3\";\npackage shop.v1;\nmessage Charge {\n  string id = 1;\n}\n"

// A .proto file moved to another path is, to every importer and to buf
// (FILE_NO_DELETE), a deleted file and a new one: review reports the old
// path deleted, as diff of the two trees does, whether git saw a rename or
// a deletion and an addition of a file declaring the same package.
func TestRunProtoMoveIsFileRemoval(t *testing.T) {
	for _, tc := range []struct{ name, to, text string }{
		{"renamed", "api/payment.proto", chargeProto},
		{"moved under a buf.yaml root", "api2/charge.proto", chargeProto},
		{"delete and add", "api/billing.proto", chargeProto + "message Refund {\n  string id = 1;\n  string why = 2;\n  int64 amount = 3;\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, "main")
			r.write("api/charge.proto", chargeProto)
			r.write("buf.yaml", "version: v2\n")
			r.commit("v1")
			r.remove("api/charge.proto")
			r.write(tc.to, tc.text)
			res, err := Run(options(r.top))
			if err != nil {
				t.Fatal(err)
			}
			fs := findingsOf(res.Findings, "proto-file-removed")
			if len(fs) != 1 || fs[0].Where.File != "api/charge.proto" {
				t.Errorf("want proto-file-removed at api/charge.proto, got %+v", res.Findings)
			}
		})
	}
}
