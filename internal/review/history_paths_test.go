package review

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestWalkOfNamesIsWalkOfAll: a log limited to some files lists each of
// their versions, at the same commit and in the same order, as the log of
// every file does, through merges of every kind: a merge alike with its
// first parent, with its second, with both and with neither (a conflict's
// resolution), a side branch whose change the merge drops, a file that
// leaves and comes back, and a name a pathspec would read as a pattern.
func TestWalkOfNamesIsWalkOfAll(t *testing.T) {
	r := newRepo(t, "main")
	msg := func(fields string) string {
		return "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n" + fields + "}\n"
	}
	names := []string{"shop.proto", "api/v1/order.proto", "odd[1]*.proto"}
	for _, n := range names {
		r.write(n, msg(""))
	}
	r.write("odd1x.proto", msg("")) // what odd[1]*.proto matches as a pattern
	r.write("notes.txt", "a\n")
	r.commit("v1")
	step := 0
	edit := func(name string) {
		step++
		r.write(name, msg("  int64 f"+string(rune('a'+step%26))+" = 2;\n"))
	}
	for round := range 3 {
		r.newBranch("side" + string(rune('0'+round)))
		edit("shop.proto")
		edit("odd1x.proto")
		r.commit("side")
		r.git("checkout", "-q", "main")
		edit("api/v1/order.proto")
		r.write("notes.txt", "b"+string(rune('0'+round))+"\n")
		r.commit("main")
		switch round {
		case 0: // the side's change is dropped: alike with the first parent
			gitIn(t, r.top, "merge", "-q", "--no-ff", "-s", "ours", "-m", "merge", "side0")
		case 1: // taken: alike with the second parent for shop.proto
			gitIn(t, r.top, "merge", "-q", "--no-ff", "-m", "merge", "side1")
		case 2: // resolved anew: alike with neither
			gitIn(t, r.top, "merge", "-q", "--no-ff", "-m", "merge", "side2")
			edit("shop.proto")
			edit("odd[1]*.proto")
			r.git("add", "-A")
			r.git("commit", "-q", "--amend", "-m", "merge, resolved")
		}
	}
	r.remove("api/v1/order.proto")
	r.commit("gone")
	r.write("api/v1/order.proto", msg(""))
	r.commit("back")
	edit("odd[1]*.proto")
	r.commit("odd")
	repo := r.repo()
	base, _ := openBase(t, repo, "")
	all, err := (&walks{}).walk(repo, base.Commit, nil, nil).wait(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range [][]string{names, names[:1], names[2:]} {
		some, err := (&walks{}).walk(repo, base.Commit, nil, limit).wait(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range limit {
			if len(all[n]) < 2 {
				t.Fatalf("%s: %d versions, want several", n, len(all[n]))
			}
			if d := gocmp.Diff(all[n], some[n], gocmp.AllowUnexported(version{})); d != "" {
				t.Errorf("%s, log of %q (-every file +those):\n%s", n, limit, d)
			}
		}
	}
}
