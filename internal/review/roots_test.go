package review

import (
	"errors"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

const money = `syntax = "proto3";
package shop.common.v1;
message Money {
  string currency = 1;
  int64 units = 2;
}
`

const point = `syntax = "proto3";
package geo.v1;
message Point {
  double lat = 1;
  double lng = 2;
}
`

// orders imports across packages (and, with geo, across modules); note is
// the field the change under review deletes.
func ordersProto(geo bool, note bool) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage shop.orders.v1;\nimport \"shop/common/v1/money.proto\";\n")
	if geo {
		b.WriteString("import \"geo/v1/point.proto\";\n")
	}
	b.WriteString("message Order {\n  shop.common.v1.Money total = 1;\n")
	if geo {
		b.WriteString("  geo.v1.Point ship_to = 2;\n")
	}
	if note {
		b.WriteString("  string note = 3;\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// A repository laid out for buf reviews with no flags and no
// .contractlint.yaml: the roots come from buf.yaml (v1 or v2) or from
// buf.work.yaml. (With none, the repository is the module and imports
// resolve from its top: TestRunProtoImportOnlyFromSubdir.)
func TestRunFindsProtoRoots(t *testing.T) {
	layouts := []struct {
		name  string
		geo   bool
		files map[string]string
	}{
		{"buf.yaml v1 in the module", false, map[string]string{"proto/buf.yaml": "version: v1\n"}},
		{"buf.yaml v2 at the top", true, map[string]string{
			"buf.yaml": "version: v2\nmodules:\n  - path: proto\n  - path: third_party\n    excludes: [third_party/legacy]\n"}},
		{"buf.yaml v1beta1 build.roots", true, map[string]string{
			"buf.yaml": "version: v1beta1\nbuild:\n  roots:\n    - proto\n    - third_party\n"}},
		{"buf.work.yaml", true, map[string]string{
			"buf.work.yaml":  "version: v1\ndirectories:\n  - proto\n  - third_party\n",
			"proto/buf.yaml": "version: v1\n", "third_party/buf.yaml": "version: v1\n"}},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			r := newRepo(t, "main")
			for name, text := range l.files {
				r.write(name, text)
			}
			r.write("proto/shop/common/v1/money.proto", money)
			if l.geo {
				r.write("third_party/geo/v1/point.proto", point)
			}
			r.write("proto/shop/orders/v1/orders.proto", ordersProto(l.geo, true))
			r.commit("v1")
			r.write("proto/shop/orders/v1/orders.proto", ordersProto(l.geo, false))

			res, err := Run(options(r.top))
			if err != nil {
				t.Fatalf("review: %v", err)
			}
			fs := findingsOf(res.Findings, "proto-field-removed")
			if len(fs) != 1 {
				t.Fatalf("want one proto-field-removed, got %+v", res.Findings)
			}
			// The finding names the file as the repository does and points
			// at the message that lost the field.
			want := rules.Location{File: "proto/shop/orders/v1/orders.proto", Line: 4, Column: 1}
			if l.geo {
				want.Line = 5
			}
			if d := gocmp.Diff(want, fs[0].Where); d != "" {
				t.Errorf("Where (-want +got):\n%s", d)
			}
			// lock walks the same files' history and finds the same roots.
			if _, n, err := WriteLock(r.top, config.DefaultContracts, options(r.top).Pipeline); err != nil || n == 0 {
				t.Errorf("lock: %d numbers, %v; want the numbers of every version", n, err)
			}
		})
	}
}

// One proto that does not compile is one contract-unreadable error: the
// OpenAPI change in the same review is still reported. Alone, it is the
// run's input error, and its message says where the import was looked for
// and how to fix it.
func TestRunUnreadableProto(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name", "age"))
	r.write("proto/buf.yaml", "version: v1\n")
	r.write("proto/shop/orders/v1/orders.proto", ordersProto(false, true))
	r.write("proto/shop/common/v1/money.proto", money)
	r.commit("v1")
	r.write("api/pets.yaml", pets("name"))
	r.remove("proto/shop/common/v1/money.proto")
	r.write("proto/shop/orders/v1/orders.proto", ordersProto(false, false))

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatalf("review: %v", err)
	}
	if !hasRule(res.Findings, "response-property-removed") {
		t.Errorf("the OpenAPI finding was lost: %+v", res.Findings)
	}
	fs := findingsOf(res.Findings, "contract-unreadable")
	if len(fs) != 1 || fs[0].Severity != rules.Error || fs[0].Where.File != "proto/shop/orders/v1/orders.proto" || fs[0].Where.Line != 3 {
		t.Fatalf("want one contract-unreadable error at orders.proto:3, got %+v", fs)
	}
	for _, part := range []string{`import "shop/common/v1/money.proto" not found`, "looked for proto/shop/common/v1/money.proto", "buf.yaml", "--proto-path", "proto.paths"} {
		if !strings.Contains(fs[0].Message, part) {
			t.Errorf("message %q does not say %q", fs[0].Message, part)
		}
	}

	o := options(r.top)
	o.Paths = []string{"proto/shop/orders"}
	_, err = Run(o)
	var ps source.Problems
	if !errors.As(err, &ps) || len(ps) == 0 || ps[0].File != "proto/shop/orders/v1/orders.proto" || ps[0].Line != 3 {
		t.Fatalf("alone, the unreadable proto must be the input error at orders.proto:3; got %v", err)
	}
}

// A file buf.yaml excludes from its module is not built by buf, so review
// leaves it out: a legacy tree that does not compile on its own does not
// fail the review. It is named as not reviewed, never skipped silently.
func TestRunSkipsBufExcluded(t *testing.T) {
	r := newRepo(t, "main")
	r.write("buf.yaml", "version: v2\nmodules:\n  - path: proto\n    excludes: [proto/legacy]\n")
	r.write("proto/shop/common/v1/money.proto", money)
	r.write("proto/legacy/x/v1/x.proto", "syntax = \"proto3\";\npackage x.v1;\nmessage X { string id = 1; }\n")
	r.commit("v1")
	r.write("proto/legacy/x/v1/x.proto", "syntax = \"proto3\";\npackage x.v1;\nimport \"nowhere/y.proto\";\nmessage X { nowhere.Y id = 1; }\n")
	r.write("proto/shop/common/v1/money.proto", strings.Replace(money, "  int64 units = 2;\n", "", 1))

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatalf("review: %v", err)
	}
	want := []FileChange{{Status: Modified, Old: "proto/shop/common/v1/money.proto", New: "proto/shop/common/v1/money.proto"}}
	if d := gocmp.Diff(want, res.Files); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	if hasRule(res.Findings, "contract-unreadable") || !hasRule(res.Findings, "proto-field-removed") {
		t.Errorf("want money.proto's finding and nothing about the excluded file, got %+v", res.Findings)
	}
	if want := []string{"proto/legacy/x/v1/x.proto is excluded from its module by buf.yaml (excludes), so buf does not build it either"}; !slices.Equal(res.NotReviewed, want) {
		t.Errorf("NotReviewed = %q, want %q", res.NotReviewed, want)
	}
}
