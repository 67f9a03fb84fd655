package review

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// TestHistoryReusedFromBase: a number the base still gives to a field that
// only commits no tag contains held, given to another field, is judged by
// release as a number the base no longer has (authzed/api 7144bbf: number
// 4 of WatchResponse, added three days before, no tag between).
func TestHistoryReusedFromBase(t *testing.T) {
	r := newRepo(t, "main")
	proto := func(fields string) string {
		return "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n" + fields + "}\n"
	}
	at := func(date string) {
		t.Setenv("GIT_AUTHOR_DATE", date)
		t.Setenv("GIT_COMMITTER_DATE", date)
	}
	at("2024-03-01T10:00:00Z")
	r.write("shop.proto", proto(""))
	r.commit("v1")
	r.tag("v1.0.0", "")
	r.write("shop.proto", proto("  repeated string updates = 2;\n"))
	r.commit("updates")
	at("2024-03-04T10:00:00Z")
	r.write("shop.proto", proto("  repeated string updates = 2; // kept\n"))
	r.commit("a comment")
	r.write("shop.proto", proto("  bool updated = 2;\n"))
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(res.Findings, "field-number-reused") {
		t.Errorf("a number no release used failed the gate: %v", res.Findings)
	}
	fs := findingsOf(res.Findings, "field-number-reused-unreleased")
	if len(fs) != 1 || fs[0].Severity != rules.Warning {
		t.Fatalf("want one field-number-reused-unreleased warning, got %v", res.Findings)
	}
	// Which commit and days the warning names is the walk's (it names the
	// last commit that held the field); the verdict is this rule's.
	for _, want := range []string{`"updates"`, "only in unreleased commits", "reserve 2"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message lacks %q: %s", want, fs[0].Message)
		}
	}
	// Tagged, the base's field was released: the reuse is the error.
	r.tag("v1.1.0", "")
	res, err = Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "field-number-reused") || hasRule(res.Findings, "field-number-reused-unreleased") {
		t.Errorf("a number a release used is an error: %v", res.Findings)
	}
}
