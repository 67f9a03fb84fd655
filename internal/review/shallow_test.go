package review

import (
	"path/filepath"
	"strings"
	"testing"
)

// A shallow clone holds no commit before its edge, so field numbers used
// only before it cannot be checked: review says so as a warning naming the
// commit the history stops at, and says nothing of the kind in a full clone.
func TestRunSaysHistoryCut(t *testing.T) {
	origin := newRepo(t, "main")
	origin.write("api/shop.proto", "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n  string note = 2;\n}\n")
	origin.commit("v1: note is 2")
	origin.write("api/shop.proto", chargeProtoShop)
	origin.commit("v2: note gone")
	origin.write("README", "docs\n")
	edge := origin.commit("v3")

	clone := &testRepo{t: t, top: filepath.Join(t.TempDir(), "clone")}
	gitIn(t, origin.top, "clone", "-q", "--depth", "1", "file://"+origin.top, clone.top)
	// Number 2 is taken again, with another meaning: only v1 knew it.
	clone.write("api/shop.proto", "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n  int64 amount = 2;\n}\n")
	res, err := Run(options(clone.top))
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(res.Findings, "field-number-reused") {
		t.Errorf("a depth-1 clone saw v1's number 2: %+v", res.Findings)
	}
	fs := findingsOf(res.Findings, "history-cut")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "history cut at "+edge[:12]) || fs[0].Where.File != "api/shop.proto" {
		t.Errorf("want one history-cut at %s on api/shop.proto, got %+v", edge[:12], res.Findings)
	}

	origin.write("api/shop.proto", "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n  int64 amount = 2;\n}\n")
	res, err = Run(options(origin.top))
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(res.Findings, "history-cut") || !hasRule(res.Findings, "field-number-reused") {
		t.Errorf("full clone: want field-number-reused and no history-cut, got %+v", res.Findings)
	}
}

const chargeProtoShop = "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n}\n"
