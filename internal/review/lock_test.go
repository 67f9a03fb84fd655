package review

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// The charge story in three versions: v1 gives number 3 to price, v2 drops
// price without reserving 3, v3 gives 3 to currency. Only a look past the
// base (v2) sees the reuse.
const (
	chargeV1 = "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n  double price = 3;\n}\n"
	chargeV2 = "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n}\n"
	chargeV3 = "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n  string currency = 3;\n}\n"
)

var price = rules.UsedNumber{Message: "shop.Charge", Number: 3, Name: "price", Type: "double"}

// usesOf lists h's uses without where they were seen, sorted.
func usesOf(h *rules.History) []rules.UsedNumber {
	if h == nil {
		return nil
	}
	var out []rules.UsedNumber
	for _, u := range h.Used {
		u.Seen = ""
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b rules.UsedNumber) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func TestHistory(t *testing.T) {
	r := newRepo(t, "main")
	r.write("shop.proto", chargeV1)
	v1 := r.commit("v1")
	// A version that does not compile adds nothing and blocks nothing.
	r.write("shop.proto", "syntax = \"proto3\";\nmessage {\n")
	r.commit("broken")
	r.write("shop.proto", chargeV2)
	r.commit("v2")
	r.write("shop.proto", chargeV3)

	repo := r.repo()
	base, err := repo.ResolveBase("")
	if err != nil {
		t.Fatal(err)
	}
	c := FileChange{Status: Modified, Old: "shop.proto", New: "shop.proto"}
	baseSrc, err := source.OpenRev(repo.Top, base.Commit)
	if err != nil {
		t.Fatal(err)
	}
	defer baseSrc.Close()
	id := rules.UsedNumber{Message: "shop.Charge", Number: 1, Name: "id", Type: "string"}
	gone := rules.UsedNumber{Message: "shop.Charge", Number: 9, Name: "gone", Type: "int64"}
	fromLock := gone
	fromLock.Seen = "lock"
	lock := &rules.History{Used: []rules.UsedNumber{fromLock}}

	for _, tc := range []struct {
		name  string
		depth int
		lock  *rules.History
		want  []rules.UsedNumber
	}{
		{"all commits", 0, nil, []rules.UsedNumber{id, price}},
		{"the base only", 1, nil, []rules.UsedNumber{id}},
		// The version that does not compile still counts against the depth.
		{"down to the broken version", 2, nil, []rules.UsedNumber{id}},
		{"deep enough", 3, nil, []rules.UsedNumber{id, price}},
		{"none, lock kept", -1, lock, []rules.UsedNumber{gone}},
		{"all, lock kept", 0, lock, []rules.UsedNumber{gone, id, price}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := repo.history(c, base, baseSrc, tc.lock, Options{HistoryDepth: tc.depth, Pipeline: options(r.top).Pipeline})
			if err != nil {
				t.Fatal(err)
			}
			if d := gocmp.Diff(tc.want, usesOf(h)); d != "" {
				t.Errorf("history (-want +got):\n%s", d)
			}
		})
	}

	// Run ties it together: the reuse is reported, naming the commit where
	// price held the number.
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	fs := findingsOf(res.Findings, "field-number-reused")
	if len(fs) != 1 || fs[0].Where.File != "shop.proto" || fs[0].Where.Line != 5 ||
		!strings.Contains(fs[0].Message, `"price"`) || !strings.Contains(fs[0].Message, v1[:12]) {
		t.Errorf("want one field-number-reused at shop.proto:5 naming price and %s, got %+v", v1[:12], res.Findings)
	}
}

func TestReadLockAbsent(t *testing.T) {
	src, err := source.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if h, err := ReadLock(src); h != nil || err != nil {
		t.Errorf("ReadLock without a lock = %+v, %v; want nil, nil", h, err)
	}
}

// WriteLock then ReadLock: every number any commit used, deleted files
// included, survives; and a lock carried into a repository whose history
// was squashed away still makes review see the reuse.
func TestLockRoundTrip(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/shop.proto", chargeV1)
	r.write("api/old.proto", "syntax = \"proto3\";\npackage old;\nmessage Gone {\n  int64 n = 4;\n}\n")
	v1 := r.commit("v1")
	r.write("api/shop.proto", chargeV2)
	r.remove("api/old.proto")
	r.commit("v2")
	// Not yet committed, but already a use.
	r.write("api/new.proto", "syntax = \"proto3\";\npackage fresh;\nmessage New {\n  bool ok = 2;\n}\n")

	po := options(r.top).Pipeline
	file, n, err := WriteLock(filepath.Join(r.top, "api"), []string{"**/*.proto"}, po)
	if err != nil {
		t.Fatal(err)
	}
	if file != filepath.Join(r.top, LockFile) {
		t.Errorf("lock written to %s, want the top of the repository", file)
	}
	src, err := source.OpenDir(r.top)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadLock(src)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(h.Used) {
		t.Errorf("WriteLock counted %d numbers, the lock holds %d", n, len(h.Used))
	}
	// A use is recorded where it was first seen: the working tree, which is
	// read first, else the newest commit that had it.
	want := []rules.UsedNumber{
		{Message: "fresh.New", Number: 2, Name: "ok", Type: "bool", Seen: "working tree"},
		{Message: "old.Gone", Number: 4, Name: "n", Type: "int64", Seen: v1[:12]},
		{Message: "shop.Charge", Number: 1, Name: "id", Type: "string", Seen: "working tree"},
		{Message: "shop.Charge", Number: 3, Name: "price", Type: "double", Seen: v1[:12]},
	}
	if d := gocmp.Diff(want, h.Used); d != "" {
		t.Errorf("lock (-want +got):\n%s", d)
	}
	lockText, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	// A squashed history: one commit holding v2, plus the lock.
	sq := newRepo(t, "main")
	sq.write("api/shop.proto", chargeV2)
	sq.write(LockFile, string(lockText))
	sq.commit("squashed")
	// Writing the lock again keeps what only the old lock knew.
	if _, _, err := WriteLock(sq.top, []string{"**/*.proto"}, po); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(filepath.Join(sq.top, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff(string(lockText), string(again)); d != "" {
		t.Errorf("rewriting the lock after a squash changed it (-old +new):\n%s", d)
	}

	sq.write("api/shop.proto", chargeV3)
	o := options(sq.top)
	o.HistoryDepth = -1 // the lock alone must carry the evidence
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "field-number-reused") {
		t.Errorf("with the lock, no field-number-reused in %+v", res.Findings)
	}
	// Deleting the lock in the change itself does not lower the protection:
	// the lock is read from the base.
	sq.remove(LockFile)
	if res, err = Run(o); err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "field-number-reused") || !hasRule(res.Findings, "lock-file-weakened") {
		t.Errorf("lock deleted in the change: want field-number-reused and lock-file-weakened in %+v", res.Findings)
	}
}

func TestParseLock(t *testing.T) {
	h, err := ParseLock([]byte(`{"//": "note", "version": 1, "numbers": [
  {"message": "shop.Charge", "number": 3, "name": "price", "type": "double", "seen": "lock"}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff([]rules.UsedNumber{{Message: "shop.Charge", Number: 3, Name: "price", Type: "double", Seen: "lock"}}, h.Used); d != "" {
		t.Errorf("ParseLock (-want +got):\n%s", d)
	}

	// The lock is written by a tool: anything else in it is refused with
	// where and how to recover, never read half-way.
	for _, tc := range []struct {
		name, text string
		msgHas     []string
		// line and col are where the reader should look: the offending
		// key, character or value (0 when the whole file is at fault).
		line, col int
	}{
		{"unknown key", "{\n  \"version\": 1,\n  \"numbrs\": []\n}\n",
			[]string{`unknown field "numbrs"`, "regenerate it with `contractlint lock`"}, 3, 3},
		{"bad syntax", "{\n  \"version\": 1,\n  \"numbers\": [\n}\n",
			[]string{"invalid character '}'", "regenerate"}, 4, 1},
		{"wrong type", `{"version": "1"}`, []string{"string", "regenerate"}, 1, 13},
		{"newer version", `{"version": 2, "numbers": []}`, []string{"version 2 is not one this contractlint reads (1)"}, 0, 0},
		{"no version", `{"numbers": []}`, []string{"version 0"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := ParseLock([]byte(tc.text))
			var ps source.Problems
			if !errors.As(err, &ps) || len(ps) != 1 {
				t.Fatalf("ParseLock = %+v, %v; want one problem", h, err)
			}
			p := ps[0]
			if p.File != LockFile {
				t.Errorf("problem in %q, want %q", p.File, LockFile)
			}
			for _, want := range tc.msgHas {
				if !strings.Contains(p.Msg, want) {
					t.Errorf("message %q does not say %q", p.Msg, want)
				}
			}
			if p.Line != tc.line || p.Column != tc.col {
				t.Errorf("%s points at %d:%d, want %d:%d", tc.name, p.Line, p.Column, tc.line, tc.col)
			}
		})
	}
}

// The lock protects numbers a squash erased from history. It is read from
// the base: a pull request that deletes or trims it keeps the protection
// and is itself reported.
func TestRunLockFromBase(t *testing.T) {
	const lock = `{"version": 1, "numbers": [{"message": "shop.Charge", "number": 3, "name": "price", "type": "double"}]}` + "\n"
	for _, c := range []struct {
		name     string
		edit     func(r *testRepo)
		weakened bool
	}{
		{"deleted", func(r *testRepo) { r.remove(LockFile) }, true},
		{"trimmed", func(r *testRepo) { r.write(LockFile, `{"version": 1, "numbers": []}`+"\n") }, true},
		{"kept", func(r *testRepo) {}, false},
		{"grown", func(r *testRepo) {
			r.write(LockFile, `{"version": 1, "numbers": [{"message": "shop.Charge", "number": 3, "name": "price", "type": "double"},
 {"message": "shop.Charge", "number": 4, "name": "tax", "type": "double"}]}`+"\n")
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t, "main")
			r.write("shop.proto", chargeV2) // history squashed: only the lock knows price
			r.write(LockFile, lock)
			r.commit("squashed")
			r.newBranch("pr")
			r.write("shop.proto", chargeV3)
			c.edit(r)

			res, err := Run(options(r.top))
			if err != nil {
				t.Fatal(err)
			}
			if !hasRule(res.Findings, "field-number-reused") {
				t.Errorf("number 3 taken again: findings %+v, want field-number-reused", res.Findings)
			}
			fs := findingsOf(res.Findings, "lock-file-weakened")
			if c.weakened && (len(fs) != 1 || fs[0].Where.File != LockFile || !strings.Contains(fs[0].Message, "shop.Charge")) {
				t.Errorf("want one lock-file-weakened on %s naming shop.Charge, got %+v", LockFile, res.Findings)
			}
			if !c.weakened && len(fs) != 0 {
				t.Errorf("lock not weakened: got %+v", fs)
			}
		})
	}
}

// TestWriteLockRefusesSymlink: a committed contractlint.lock that is a
// symbolic link (to a file outside the repository, or dangling) is refused,
// and nothing is written where it points. Before, lock wrote through it.
func TestWriteLockRefusesSymlink(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim")
	for _, existing := range []bool{true, false} {
		r := newRepo(t, "main")
		r.write("api/shop.proto", chargeV1)
		if existing {
			writeFile(t, outside, "keep")
		} else {
			os.Remove(outside)
		}
		if err := os.Symlink(outside, filepath.Join(r.top, LockFile)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		r.commit("v1")
		if _, _, err := WriteLock(r.top, []string{"**/*.proto"}, options(r.top).Pipeline); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("existing target %v: err = %v, want a refusal", existing, err)
		}
		b, err := os.ReadFile(outside)
		if existing && string(b) != "keep" || !existing && err == nil {
			t.Errorf("existing target %v: the file the link points to was written (%q, %v)", existing, b, err)
		}
	}
}
