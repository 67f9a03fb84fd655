package review

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// manyPaths is an OpenAPI document with n GET routes, each answering with
// the properties given.
func manyPaths(title, prefix string, n int, props ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "openapi: 3.0.3\ninfo: {title: %s, version: \"1\"}\npaths:\n", title)
	for i := range n {
		fmt.Fprintf(&b, "  /%s/%d:\n    get:\n      responses:\n        \"200\":\n          description: ok %s %d\n"+
			"          content:\n            application/json:\n              schema:\n                type: object\n"+
			"                properties:\n", prefix, i, prefix, i)
		for _, p := range props {
			fmt.Fprintf(&b, "                  %s: {type: string}\n", p)
		}
	}
	return b.String()
}

// A rename with a large edit is below git's rename threshold: it must
// still be compared as one contract, followed by its identity (OpenAPI
// info.title, proto package), not reported deleted.
func TestRunFollowsRenameByIdentity(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/orders.yaml", manyPaths("orders", "orders", 2, "id", "total"))
	r.write("api/shop.proto", "syntax = \"proto3\";\npackage shop.v1;\nmessage Charge {\n  string id = 1;\n  double price = 2;\n}\n")
	r.write("api/other.yaml", pets("name"))
	r.commit("v1")
	r.remove("api/orders.yaml")
	// The same two routes (one loses total), and many more: git sees
	// under 50% similarity.
	r.write("api/v2/orders.yaml", manyPaths("orders", "orders", 2, "id")+
		strings.TrimPrefix(manyPaths("orders", "more", 8, "id", "note"), "openapi: 3.0.3\ninfo: {title: orders, version: \"1\"}\npaths:\n"))
	r.remove("api/shop.proto")
	var msgs strings.Builder
	for i := range 12 {
		fmt.Fprintf(&msgs, "message Extra%d {\n  string id = 1;\n  string note = 2;\n}\n", i)
	}
	r.write("api/billing.proto", "syntax = \"proto3\";\npackage shop.v1;\nmessage Charge {\n  string id = 1;\n  string price = 2;\n}\n"+msgs.String())

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(res.Findings, "contract-file-removed") {
		t.Errorf("a renamed contract was reported removed: %+v", res.Findings)
	}
	if fs := findingsOf(res.Findings, "response-property-removed"); len(fs) == 0 {
		t.Errorf("the renamed OpenAPI document was not compared: %+v", res.Findings)
	}
	if !hasRule(res.Findings, "proto-field-type-changed") {
		t.Errorf("the renamed .proto file was not compared: %+v", res.Findings)
	}
	renamed := 0
	for _, f := range res.Files {
		if f.Status == Renamed {
			renamed++
		}
	}
	if renamed != 2 {
		t.Errorf("Files = %+v, want two renames", res.Files)
	}
}

// A submodule bump may change contracts review cannot see from here: it
// says so, naming the submodule, instead of "no contracts changed".
func TestRunNamesSubmodules(t *testing.T) {
	sub := newRepo(t, "main")
	sub.write("api/pets.yaml", pets("name", "age"))
	sub.commit("sub v1")

	r := newRepo(t, "main")
	r.write("api/shop.yaml", pets("id"))
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.top, "vendor/pets")
	r.commit("v1")

	// The bump, committed in the submodule's checkout (as a pull there
	// would bring it, in one git start rather than seven).
	r.write("vendor/pets/api/pets.yaml", pets("name"))
	gitIn(t, filepath.Join(r.top, "vendor/pets"), "commit", "-q", "-a", "-m", "sub v2: a break")

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotReviewed) != 1 || !strings.Contains(res.NotReviewed[0], "vendor/pets") || !strings.Contains(res.NotReviewed[0], "submodule") {
		t.Errorf("NotReviewed = %q, want the submodule vendor/pets named", res.NotReviewed)
	}
}
