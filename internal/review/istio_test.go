package review

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/corpus"
)

// istioTree is a reduction of istio/api's layout (github.com/istio/api,
// Apache License 2.0) at b8f8791: buf.yaml at the top excluding
// common-protos, the vendored protos kept under common-protos, and a
// committed symbolic link at the top (google -> common-protos/google)
// through which every file imports them by their short path; istio's own
// files import each other by their full path from the top. The texts are
// cut down to a few fields each.
var istioTree = map[string]string{
	"buf.yaml": "version: v1\nbuild:\n  excludes:\n    - common-protos\nbreaking:\n  use:\n  - WIRE_JSON\n",
	"common-protos/google/api/field_behavior.proto": "syntax = \"proto3\";\npackage google.api;\n" +
		"import \"google/protobuf/descriptor.proto\";\n" +
		"extend google.protobuf.FieldOptions {\n  repeated google.api.FieldBehavior field_behavior = 1052 [packed = false];\n}\n" +
		"enum FieldBehavior {\n  FIELD_BEHAVIOR_UNSPECIFIED = 0;\n  OPTIONAL = 1;\n  REQUIRED = 2;\n}\n",
	"type/v1beta1/selector.proto": "syntax = \"proto3\";\npackage istio.type.v1beta1;\n" +
		"import \"google/api/field_behavior.proto\";\n" +
		"message WorkloadSelector {\n  map<string, string> match_labels = 1 [(google.api.field_behavior) = OPTIONAL];\n}\n",
	"networking/v1alpha3/virtual_service.proto": "syntax = \"proto3\";\npackage istio.networking.v1alpha3;\n" +
		"import \"google/api/field_behavior.proto\";\nimport \"google/protobuf/duration.proto\";\n" +
		"message HTTPRoute {\n  string name = 1;\n  google.protobuf.Duration timeout = 6;\n}\n" +
		"message VirtualService {\n  repeated string hosts = 1 [(google.api.field_behavior) = REQUIRED];\n  repeated HTTPRoute http = 3;\n}\n",
	"networking/v1alpha3/destination_rule.proto": "syntax = \"proto3\";\npackage istio.networking.v1alpha3;\n" +
		"import \"google/api/field_behavior.proto\";\nimport \"google/protobuf/wrappers.proto\";\n" +
		"import \"networking/v1alpha3/virtual_service.proto\";\nimport \"type/v1beta1/selector.proto\";\n" +
		"message LoadBalancerSettings {\n  string simple = 1;\n}\n" +
		"message DestinationRule {\n  string host = 1 [(google.api.field_behavior) = REQUIRED];\n" +
		"  LoadBalancerSettings load_balancer = 2;\n  istio.type.v1beta1.WorkloadSelector workload_selector = 5;\n" +
		"  google.protobuf.UInt32Value max_retries = 6;\n}\n",
	"mesh/v1alpha1/config.proto": "syntax = \"proto3\";\npackage istio.mesh.v1alpha1;\n" +
		"import \"networking/v1alpha3/destination_rule.proto\";\nimport \"networking/v1alpha3/virtual_service.proto\";\n" +
		"message MeshConfig {\n  istio.networking.v1alpha3.LoadBalancerSettings locality_lb_setting = 35;\n" +
		"  repeated istio.networking.v1alpha3.HTTPRoute default_routes = 36;\n}\n",
}

// An istio/api-shaped tree reviews clean, and the same every time: a
// change that only adds fields (as c9bb2b8 did, adding zone-aware load
// balancing to DestinationRule and MeshConfig) gives no finding, in the
// working tree and the index, with no extra import root, with the top
// named again (--proto-path .) and with common-protos named, ten runs out
// of ten. The base side reads the committed link from git as the working
// tree follows it.
func TestRunIstioAPITreeReviewsCleanTenTimes(t *testing.T) {
	r := newRepo(t, "main")
	for name, text := range istioTree {
		r.write(name, text)
	}
	symlink(t, r, "common-protos/google", "google")
	r.commit("v1")
	add := func(name, after, field string) {
		r.write(name, strings.Replace(istioTree[name], after, after+field, 1))
	}
	add("networking/v1alpha3/destination_rule.proto", "  string simple = 1;\n", "  bool zone_aware = 2;\n")
	add("mesh/v1alpha1/config.proto", "default_routes = 36;\n", "  istio.networking.v1alpha3.LoadBalancerSettings zone_lb = 37;\n")
	for _, paths := range [][]string{nil, {"."}, {"common-protos"}} {
		sameTenTimes(t, r, paths, func(res *Result) error {
			if len(res.Findings) > 0 || res.Compared != 2 {
				return fmt.Errorf("want 2 contracts compared and no finding, got %d: %+v", res.Compared, res.Findings)
			}
			return nil
		})
	}
}

// sameTenTimes reviews r's change ten times in the working tree and ten in
// the index, with paths as extra import roots; every result must pass
// check and name the same findings as the first. Each run is a review's
// seven-odd git runs: plain `go test` makes two of each, the least that
// compares a run with another, CI (.ci/run) all ten.
func sameTenTimes(t *testing.T, r *testRepo, paths []string, check func(*Result) error) {
	t.Helper()
	var first string
	runs := 2
	if corpus.Full() {
		runs = 10
	}
	// The tree's runs first, then the index's: the change is staged once.
	for _, staged := range []bool{false, true} {
		if staged {
			r.addAll()
		}
		for i := range runs {
			o := options(r.top)
			o.Staged = staged
			o.Pipeline.ProtoPaths = paths
			res, err := Run(o)
			if err == nil {
				err = check(res)
			}
			if err != nil {
				t.Fatalf("proto paths %q, run %d staged=%v: %v", paths, i, staged, err)
			}
			got := fmt.Sprint(res.Findings)
			if first == "" {
				first = got
			} else if got != first {
				t.Fatalf("proto paths %q, run %d staged=%v differs:\n%s\nfirst:\n%s", paths, i, staged, got, first)
			}
		}
		if staged {
			r.git("reset", "-q")
		}
	}
}
