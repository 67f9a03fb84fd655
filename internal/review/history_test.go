package review

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/fieldnums"
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
	r.newBranch("side")
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
	base, baseSrc := openBase(t, repo, "")
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

// A root commit's walk is read from its snapshot and cat-file, as git log
// --root would list it: every regular .proto file of its tree at the
// commit's time, executable ones too, links and other files not. A commit
// with a parent is left to git log.
func TestRootLogIsGitLog(t *testing.T) {
	r := newRepo(t, "main")
	r.write("a.proto", "syntax = \"proto3\";\n")
	r.write("api/v1/b.proto", "syntax = \"proto3\";\npackage b;\n")
	r.write("notes.txt", "not a contract\n")
	if err := os.Chmod(filepath.Join(r.top, "api/v1/b.proto"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, r, "a.proto", "link.proto")
	t.Setenv("GIT_COMMITTER_DATE", "1700000000 +0200")
	root := r.commit("root")
	snap, err := source.OpenRev(r.top, root)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	got, ok := rootLog(snap, root)
	if !ok {
		t.Fatal("rootLog did not read the root commit")
	}
	want := parseRawLog([]byte(r.git(append(rawLog(), root, "--")...)))
	if d := gocmp.Diff(want, got, gocmp.AllowUnexported(rawLogOf{}, version{})); d != "" {
		t.Errorf("rootLog differs from git log (-git log +rootLog):\n%s", d)
	}
	if len(got.versions) != 2 || got.versions["a.proto"][0].time != 1700000000 {
		t.Errorf("want a.proto and api/v1/b.proto at 1700000000, got %+v", got.versions)
	}
	next := r.commit("next")
	snap2, err := source.OpenRev(r.top, next)
	if err != nil {
		t.Fatal(err)
	}
	defer snap2.Close()
	if _, ok := rootLog(snap2, next); ok {
		t.Error("rootLog read a commit with a parent")
	}
	if _, ok := rootLog(snap2, root); ok {
		t.Error("rootLog read a commit other than its snapshot's")
	}
}

// TestHistoryCommentOnlyVersions: a version whose change from the next is
// only comment or blank lines is given the next one's uses, and one whose
// comment line closes a block comment early (declaring a message the next
// version hides) is read anew: the walk's ledger equals compiling every
// version.
func TestHistoryCommentOnlyVersions(t *testing.T) {
	r := newRepo(t, "main")
	text := func(note, doc string) string {
		return "syntax = \"proto3\";\npackage shop;\n/* a note\n" + note + "\nmessage Old { int32 x = 99; }\n// */\n" +
			"message Charge {\n" + doc + "  string id = 1;\n}\n"
	}
	r.write("shop.proto", text("// note ends here */", "  // the id\n"))
	r.commit("v1: the note closes early, Old is declared")
	r.write("shop.proto", text("// note", "  // the id\n"))
	r.commit("v2: Old is in the note")
	r.write("shop.proto", text("  // note, reworded", "\n  // the id,\n  // reworded\n"))
	r.commit("v3: comments and blank lines")
	r.write("shop.proto", text("// note", "  // the id\n  string note = 2;\n"))

	repo := r.repo()
	base, baseSrc := openBase(t, repo, "")
	o := options(r.top)
	got, err := repo.history(FileChange{Status: Modified, Old: "shop.proto", New: "shop.proto"}, base, baseSrc, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	want := oracleHistory(t, repo, base, baseSrc, "shop.proto", o, map[string]*rules.Contract{})
	if d := gocmp.Diff(want.Used, got.Used); d != "" {
		t.Errorf("ledger differs (-compiled +walked):\n%s", d)
	}
	if !slices.ContainsFunc(got.Used, func(u rules.UsedNumber) bool { return u.Message == "shop.Old" && u.Number == 99 }) {
		t.Errorf("the versions that declare shop.Old gave no use of 99: %+v", got.Used)
	}
}

// TestSameTokens: lines that hold no token wherever they stand (blank
// lines, line comments that neither open nor close a block comment) may
// differ; any other line may not.
func TestSameTokens(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"message A {}\n", "message A {}", true},
		{"message A {}\n", "// doc\n\nmessage A {}\n  // more\n", true},
		{"// one\nmessage A {}\n", "// two\nmessage A {}\n", true},
		{"\t// one\r\nmessage A {}\n", "\v\f// two\nmessage A {}\n", true},
		{"message A {} // one\n", "message A {} // two\n", false},
		{"/* x\n// one\n*/\n", "/* x\n// one */\n*/\n", false},
		{"// one\n", "// one /* two\n", false},
		{"// one\n", "// one \x00\n", false},
		{"message A {}\n", "message B {}\n", false},
		{"message A {}\n", "message A {}\nmessage B {}\n", false},
		{"/* x\n */\n", "/* y\n */\n", false},
	} {
		if got := sameTokens([]byte(c.a), []byte(c.b)); got != c.same {
			t.Errorf("sameTokens(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestSameTokensAsWhole: reading only the lines between those both texts
// start and end with answers as reading every line does, over random
// edits of lines (code, comments, blank lines, a last line without a line
// break, partial lines alike at either end).
func TestSameTokensAsWhole(t *testing.T) {
	whole := sameTokenLines
	pool := []string{"message A {}", "// one", "// two", "", "  ", "/* open", "close */", "int32 a = 1;", "// one /* x", "message A {} // c"}
	rnd := rand.New(rand.NewPCG(5, 9))
	same := 0
	for range 5000 {
		var lines []string
		for range 1 + rnd.IntN(8) {
			lines = append(lines, pool[rnd.IntN(len(pool))])
		}
		a := strings.Join(lines, "\n")
		for range 1 + rnd.IntN(2) {
			k := rnd.IntN(len(lines))
			if rnd.IntN(2) == 0 {
				lines[k] = pool[rnd.IntN(len(pool))]
			} else {
				lines = append(lines[:k], append([]string{pool[rnd.IntN(len(pool))]}, lines[k:]...)...)
			}
		}
		b := strings.Join(lines, "\n")
		if rnd.IntN(2) == 0 {
			b += "\n"
		}
		want := whole([]byte(a), []byte(b))
		if got := sameTokens([]byte(a), []byte(b)); got != want {
			t.Fatalf("sameTokens(%q, %q) = %v, reading every line %v", a, b, got, want)
		}
		if want {
			same++
		}
	}
	if same < 500 {
		t.Errorf("only %d of the pairs had the same tokens", same)
	}
}

// openBase resolves rev in repo and opens its tree, closed when the test
// ends.
func openBase(t *testing.T, repo *Repo, rev string) (Base, *source.Git) {
	t.Helper()
	base, err := repo.ResolveBase(rev)
	if err != nil {
		t.Fatal(err)
	}
	src, err := source.OpenRev(repo.Top, base.Commit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return base, src
}

// protoName, which reads the raw log's names as bytes, is isProto.
func TestProtoNameIsProto(t *testing.T) {
	for _, name := range []string{"a.proto", "A.PROTO", "dir/b.Proto", ".proto", "a/.proto", "proto", "a.protos", "a.proto/",
		"a.pr", "", "a.proto.bak", "dir.proto/x", "é.proto", "a.prot\u00f6", "a\u212a.proto", "a.\u212aroto"} {
		if got, want := protoName([]byte(name)), isProto(name); got != want {
			t.Errorf("protoName(%q) = %v, isProto %v", name, got, want)
		}
	}
}

// addVersions passes over a version whose uses repeat the one's before
// when that changes nothing; the ledger is the one every sighting makes
// (addEvery), over random histories of repeated uses and releases.
func TestAddVersionsRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 3))
	pool := [][]fieldnums.Use{nil, {{Message: "m.M", Number: 1, Name: "a", Type: "int64"}},
		{{Message: "m.M", Number: 1, Name: "a", Type: "int64"}, {Message: "m.M", Number: 2, Name: "b", Type: "string"}},
		{{Message: "m.M", Number: 2, Name: "c", Type: "string"}}}
	for range 2000 {
		n := 1 + rng.IntN(8)
		vs := make([]version, n)
		read := make([][]fieldnums.Use, n)
		released := map[string]bool{}
		for i := range vs {
			vs[i] = version{commit: fmt.Sprintf("c%02d", i), blob: fmt.Sprintf("b%02d", i), time: int64(1e9 - i*86400)}
			if rng.IntN(2) == 0 {
				released[vs[i].blob] = true
			}
			read[i] = pool[rng.IntN(len(pool))]
			if i > 0 && rng.IntN(2) == 0 {
				read[i] = read[i-1]
			}
		}
		for _, rel := range []map[string]bool{nil, released} {
			got, want := &rules.History{}, &rules.History{}
			addVersions(got, vs, read, rel)
			addEvery(want, vs, read, rel)
			if d := gocmp.Diff(want.Used, got.Used); d != "" {
				t.Fatalf("ledger (-every sighting +addVersions):\n%s", d)
			}
		}
	}
}

// addEvery is addVersions crediting every version's uses, none passed over.
func addEvery(h *rules.History, vs []version, read [][]fieldnums.Use, released map[string]bool) {
	held := map[fieldnums.Use]bool{}
	var used []rules.UsedNumber
	for i := range vs {
		used = credit(used, held, sighting(vs, i, released), read[i])
	}
	h.Merge(&rules.History{Used: used})
}
