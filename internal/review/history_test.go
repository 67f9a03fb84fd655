package review

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestHistoryMerges: the walk sees every version a file had in the base's
// history — on a merged branch, and one only a merge commit made (a
// conflict's resolution) — and an import the base no longer has still
// resolves from the version's own commit.
func TestHistoryMerges(t *testing.T) {
	r := newRepo(t, "main")
	msg := func(fields string) string {
		return "syntax = \"proto3\";\npackage shop;\nimport \"money.proto\";\nmessage Charge {\n  string id = 1;\n" + fields + "}\n"
	}
	r.write("money.proto", "syntax = \"proto3\";\npackage shop;\nmessage Money { int64 units = 1; }\n")
	r.write("shop.proto", msg(""))
	r.commit("v1")
	r.git("checkout", "-q", "-b", "side")
	r.write("shop.proto", msg("  int64 side_only = 2;\n"))
	r.commit("side")
	r.git("checkout", "-q", "main")
	r.write("shop.proto", msg("  Money main_only = 2;\n"))
	r.commit("main")
	if out := gitIn(t, r.top, "merge", "-q", "--no-ff", "-m", "merge", "side", "-X", "ours"); out != "" {
		t.Logf("merge: %s", out)
	}
	r.write("shop.proto", msg("  Money resolved = 2;\n"))
	r.git("add", "-A")
	r.git("commit", "-q", "--amend", "-m", "merge, resolved")
	// The base drops the import the versions above needed.
	r.write("shop.proto", "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n}\n")
	r.remove("money.proto")
	r.commit("drop money")
	r.write("shop.proto", "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n  string note = 2;\n}\n")

	repo := r.repo()
	base, err := repo.ResolveBase("")
	if err != nil {
		t.Fatal(err)
	}
	baseSrc, err := source.OpenRev(repo.Top, base.Commit)
	if err != nil {
		t.Fatal(err)
	}
	defer baseSrc.Close()
	h, err := repo.history(FileChange{Status: Modified, Old: "shop.proto", New: "shop.proto"}, base, baseSrc, nil, options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	use := func(name, typ string) rules.UsedNumber {
		return rules.UsedNumber{Message: "shop.Charge", Number: 2, Name: name, Type: typ}
	}
	id := rules.UsedNumber{Message: "shop.Charge", Number: 1, Name: "id", Type: "string"}
	want := []rules.UsedNumber{id, use("main_only", "shop.Money"), use("resolved", "shop.Money"), use("side_only", "int64")}
	if d := gocmp.Diff(want, usesOf(h)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
}
