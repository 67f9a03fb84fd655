package protobuf

import (
	"slices"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// TestReach checks the rpcs and directions a change inside a message gets:
// through message fields, map values and a cycle, from inputs, outputs or
// both, and both directions for a message no rpc reaches.
func TestReach(t *testing.T) {
	const head = "syntax = \"proto3\";\npackage r;\n"
	const svc = "service S {\n  rpc Put(PutRequest) returns (Item);\n  rpc Get(GetRequest) returns (Item);\n  rpc List(GetRequest) returns (ListResponse);\n}\n" +
		"message ListResponse { repeated Summary items = 1; }\nmessage Summary { string id = 1; }\n" +
		"message PutRequest { Item item = 1; }\nmessage GetRequest { string id = 1; Filter filter = 2; }\n" +
		"message Item { string id = 1; map<string, Part> parts = 2; }\n" +
		"message Part { Node root = 1; }\nmessage Node { repeated Node kids = 1; Kind kind = 2; }\n" +
		"message Filter { Kind kind = 1; }\n"
	src := tree(t, map[string]string{
		"old/a.proto": head + svc + "message Part2 {}\nmessage Loose { int32 n = 1; }\nenum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; }\n",
		"new/a.proto": head + svc + "message Part2 {}\nmessage Loose { int64 n = 1; }\nenum Kind { KIND_UNSPECIFIED = 0; KIND_B = 2; }\n",
	})
	load := func(side string) *Tree {
		tr, err := Load(src, []string{side + "/a.proto"}, Options{ImportPaths: []string{side}})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	ot, nt := load("old"), load("new")
	// Node sits below Item (a map value, then a cycle), which Put sends
	// and Get and Put return; the Kind enum is also in the filter Get and List send.
	tree := newReacher(nt)
	for _, tc := range []struct {
		typ string
		ops []string
		dir rules.Direction
	}{
		{"r.Node", []string{"r.S.Get", "r.S.Put"}, rules.Request | rules.Response},
		{"r.GetRequest", []string{"r.S.Get", "r.S.List"}, rules.Request},
		{"r.Summary", []string{"r.S.List"}, rules.Response},
		{"r.Kind", []string{"r.S.Get", "r.S.List", "r.S.Put"}, rules.Request | rules.Response},
		{"r.Loose", nil, 0},
	} {
		got := tree.of(tc.typ)
		if !slices.Equal(got.ops, tc.ops) || got.dir != tc.dir {
			t.Errorf("reach of %s = %v %v, want %v %v", tc.typ, got.ops, got.dir, tc.ops, tc.dir)
		}
	}
	var sawField, sawValue bool
	for _, c := range Diff(ot, nt) {
		switch c.Path {
		case "r.Loose.n":
			sawField = true
			if c.Operations != nil || c.Dir != rules.Request|rules.Response {
				t.Errorf("unreached field change: ops %v dir %v, want none and both directions", c.Operations, c.Dir)
			}
		case "r.KIND_A":
			sawValue = true
			if !slices.Equal(c.Operations, []string{"r.S.Get", "r.S.List", "r.S.Put"}) || c.Dir != rules.Request|rules.Response {
				t.Errorf("removed enum value: ops %v dir %v", c.Operations, c.Dir)
			}
		}
	}
	if !sawField || !sawValue {
		t.Errorf("diff lacks the expected changes (field %v, enum value %v)", sawField, sawValue)
	}
}
