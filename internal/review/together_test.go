package review

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// TestReviewLoadsBesideWalks: files that each walk a history load at once,
// beside the walks, and the rest of their reviews (the history handed to
// the rules, the rules, Compared) still go file by file, in order. The
// findings are those of the one-at-a-time review --stats runs, and the
// unchanged file that does not compile, checked in the background, is
// reported as when checked last.
func TestReviewLoadsBesideWalks(t *testing.T) {
	r := newRepo(t, "main")
	names := []string{"a.proto", "b.proto", "c.proto", "d.proto"}
	msg := func(name, fields string) string {
		return "syntax = \"proto3\";\npackage " + name[:1] + ";\nmessage M {\n  string id = 1;\n" + fields + "}\n"
	}
	for _, n := range names {
		r.write(n, msg(n, "  int64 gone = 2;\n"))
	}
	r.write("broken.proto", "syntax = \"proto3\";\npackage z;\nmessage Z { string id = 1; }\n")
	r.commit("v1")
	for _, n := range names {
		r.write(n, msg(n, ""))
	}
	r.commit("v2")
	for _, n := range names {
		r.write(n, msg(n, "  string back = 2;\n"))
	}
	r.write("broken.proto", "syntax = \"proto3\";\npackage z;\nmessage Z { Missing id = 1; }\n")

	run := func(stats bool) ([]rules.Finding, []string) {
		t.Helper()
		o := options(r.top)
		if stats {
			o.Pipeline.Stats = &pipeline.Stats{}
		}
		var order []string
		o.Pipeline.Compared = func(in *rules.Input) {
			if in.History == nil || len(in.History.Used) == 0 {
				t.Errorf("%s compared without its history", in.New.Messages[0].Name)
			}
			order = append(order, in.New.Messages[0].Name)
		}
		res, err := Run(o)
		if err != nil {
			t.Fatal(err)
		}
		return res.Findings, order
	}
	want, wantOrder := run(true)
	messages := []string{"a.M", "b.M", "c.M", "d.M"}
	if d := gocmp.Diff(messages, wantOrder); d != "" {
		t.Fatalf("compared one at a time (-want +got):\n%s", d)
	}
	if len(findingsOf(want, "field-number-reused")) != len(names) || len(findingsOf(want, "contract-unreadable")) != 1 {
		t.Fatalf("want a reused number in each file and broken.proto reported, got %v", want)
	}
	for range 5 {
		got, order := run(false)
		if d := gocmp.Diff(want, got); d != "" {
			t.Errorf("findings loaded at once (-one at a time +at once):\n%s", d)
		}
		if d := gocmp.Diff(messages, order); d != "" {
			t.Errorf("compared at once (-want +got):\n%s", d)
		}
	}
}
