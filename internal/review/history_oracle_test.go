package review

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// TestHistoryWalkOracle: on a generated history of many commits (fields
// added, deleted, renamed, retyped and their numbers reused; messages
// added, renamed, nested and moved; maps, oneofs, groups, enums, types
// named relative to the package, qualified and fully qualified, some from
// an import that later moves; comments opened and closed across lines;
// release tags), the walk's ledger equals, use by use and in order, the one
// compiling every version with the whole compiler (the walk as it was).
// The plain run walks one generated history, the full run (corpus.Full)
// two.
func TestHistoryWalkOracle(t *testing.T) {
	seeds := []uint64{1}
	if corpus.Full() {
		seeds = append(seeds, 2)
	}
	for _, seed := range seeds {
		r, names, compiled := sharedOracle(t)
		if seed != 1 {
			r, names = oracleRepo(t, t.TempDir(), seed, 160)
			compiled = map[string]*rules.Contract{}
		}
		repo := r.repo()
		base, err := repo.ResolveBase("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		baseSrc, err := source.OpenRev(repo.Top, base.Commit)
		if err != nil {
			t.Fatal(err)
		}
		for _, all := range []bool{false, true} {
			o := options(r.top)
			o.HistoryAll = all
			for _, name := range names {
				got, err := repo.history(FileChange{Status: Modified, Old: name, New: name}, base, baseSrc, nil, o)
				if err != nil {
					t.Fatal(err)
				}
				want := oracleHistory(t, repo, base, baseSrc, name, o, compiled)
				if len(want.Used) == 0 {
					t.Fatalf("seed %d %s: the oracle found no uses", seed, name)
				}
				if d := gocmp.Diff(want.Used, got.Used); d != "" {
					t.Errorf("seed %d, history all %v, %s: ledger differs (-compiled +walked):\n%s", seed, all, name, d)
				}
			}
		}
		baseSrc.Close()
	}
}

// historyOracle is the history of seed 1 both oracle tests read, written
// once for the package (in templateDir) and read-only after, with each of
// its versions compiled once: the whole compile of every version is most
// of what the oracle costs, and the walk's two modes and the two tests
// compile the same versions.
var historyOracle struct {
	once     sync.Once
	top      string
	names    []string
	compiled map[string]*rules.Contract // by name and commit
}

// sharedOracle is historyOracle, written on first use.
func sharedOracle(t *testing.T) (*testRepo, []string, map[string]*rules.Contract) {
	t.Helper()
	gitEnv(t)
	h := &historyOracle
	h.once.Do(func() {
		top := filepath.Join(templateDir, "oracle")
		_, names := oracleRepo(t, top, 1, 160)
		h.top, h.names, h.compiled = top, names, map[string]*rules.Contract{}
	})
	if h.names == nil {
		t.Fatal("the shared oracle history was not written (see the test that first asked for it)")
	}
	return &testRepo{t: t, top: h.top}, h.names, h.compiled
}

// oracleHistory is the walk as it was: every version of name compiled with
// its imports from the base tree, else from its own commit, else skipped;
// compiled holds the versions compiled before.
func oracleHistory(t *testing.T, r *Repo, base Base, baseSrc source.Source, name string, o Options, compiled map[string]*rules.Contract) *rules.History {
	t.Helper()
	tags, err := r.releaseTags(o)
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.walks.versions(r, base.Commit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	vs := all[name]
	released, err := r.releasedBlobs(name, tags)
	if err != nil {
		t.Fatal(err)
	}
	g := baseSrc.(*source.Git)
	h := &rules.History{}
	for i, v := range vs {
		u := rules.UsedNumber{Seen: v.commit[:12]}
		if released != nil && !released[v.blob] {
			u.Unreleased, u.Since, u.Until = true, day(v.time), day(v.time)
			if i > 0 {
				u.Until = day(vs[i-1].time)
			}
		}
		h.AddVersion(compiledVersion(compiled, r, g, name, v, o.Pipeline), u)
	}
	return h
}

// compiledVersion is compileVersion's, from compiled when it is there.
func compiledVersion(compiled map[string]*rules.Contract, r *Repo, base *source.Git, name string, v version, po pipeline.Options) *rules.Contract {
	key := name + "\x00" + v.commit
	c, ok := compiled[key]
	if !ok {
		c = compileVersion(r, base, name, v, po)
		compiled[key] = c
	}
	return c
}

func compileVersion(r *Repo, base *source.Git, name string, v version, po pipeline.Options) *rules.Contract {
	if c, err := pipeline.Load(side(base.Pinned(name, v.blob, v.commit), name), po); err == nil {
		return c
	}
	src, err := source.OpenRev(r.Top, v.commit)
	if err != nil {
		return nil
	}
	defer src.Close()
	c, _ := pipeline.Load(side(src, name), po)
	return c
}

// oracleRepo writes in top, with git fast-import, commits commits of random edits
// to two .proto files under proto/ that import proto/common/common.proto,
// tagging about one commit in twelve; it returns the files' names at HEAD.
func oracleRepo(t *testing.T, top string, seed uint64, commits int) (*testRepo, []string) {
	r := newRepoAt(t, top, "main")
	rnd := rand.New(rand.NewPCG(seed, seed*7))
	files := []*genFile{newGenFile("shop", rnd), newGenFile("ledger", rnd)}
	files[1].proto2 = true
	common := genCommon(true)
	var in bytes.Buffer
	blob := func(p, text string) {
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(text), text)
	}
	tags := 0
	for i := range commits {
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata 3\nc%d\n", i+1, 1700000000+i*3600*7, i%10)
		if i == 0 {
			blob("proto/common/common.proto", common)
		}
		f := files[rnd.IntN(len(files))]
		old := f.path()
		f.edit(rnd, i)
		if f.path() != old {
			fmt.Fprintf(&in, "D %s\n", old)
		}
		if i == commits/2 {
			// The import loses Legacy, so the versions that used it only
			// compile with the import their own commit holds.
			blob("proto/common/common.proto", genCommon(false))
			for _, g := range files {
				g.dropLegacy()
			}
		}
		for _, g := range files {
			if g == f || i == 0 || i == commits/2 {
				blob(g.path(), g.text())
			}
		}
		if rnd.IntN(12) == 0 {
			tags++
			fmt.Fprintf(&in, "reset refs/tags/v1.%d.0\nfrom :%d\n\n", tags, i+1)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.top
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	r.git("checkout", "-q", "-f", "main")
	return r, []string{files[0].path(), files[1].path()}
}

func genCommon(legacy bool) string {
	s := "syntax = \"proto3\";\npackage acme.common;\nmessage Money { int64 units = 1; string currency = 2; }\nenum Status { STATUS_UNKNOWN = 0; OK = 1; }\n"
	if legacy {
		s += "message Legacy { string line = 1; }\n"
	}
	return s
}

func (f *genFile) dropLegacy() {
	f.dropped = true
	for _, m := range append(slices.Clone(f.msgs), nestedOf(f.msgs)...) {
		for i := range m.fields {
			if strings.HasSuffix(m.fields[i].typ, "Legacy") {
				m.fields[i].typ = "string"
			}
		}
	}
}

func nestedOf(ms []*genMsg) []*genMsg {
	var out []*genMsg
	for _, m := range ms {
		if m.nested != nil {
			out = append(out, m.nested)
		}
	}
	return out
}

// genFile is a .proto file as a list of messages that random edits change.
type genFile struct {
	pkg    string
	dir    string
	proto2 bool
	msgs   []*genMsg
	next   int
	// dropped is set once the import no longer has Legacy.
	dropped bool
	// comment is a block comment that an edit opens above a message and a
	// later one closes again.
	comment int
}

type genMsg struct {
	name   string
	fields []genField
	nested *genMsg
	next   int32
	// freed are numbers of deleted fields, which an edit may give again.
	freed []int32
}

type genField struct {
	name, typ string
	num       int32
	kind      int // 0 plain, 1 map, 2 oneof, 3 group
}

func newGenFile(pkg string, rnd *rand.Rand) *genFile {
	f := &genFile{pkg: pkg, dir: "proto/" + pkg + "/v1"}
	for range 3 {
		f.addMsg(rnd)
	}
	return f
}

func (f *genFile) path() string { return f.dir + "/" + f.pkg + ".proto" }

func (f *genFile) addMsg(rnd *rand.Rand) *genMsg {
	f.next++
	m := &genMsg{name: fmt.Sprintf("M%d", f.next), next: 1}
	for range 1 + rnd.IntN(4) {
		m.add(rnd, f)
	}
	f.msgs = append(f.msgs, m)
	return m
}

// types a field may take: scalars, the import's types written three ways,
// messages of the file, a nested one, and Address once the import has it.
func (f *genFile) types(rnd *rand.Rand, m *genMsg) string {
	if len(f.msgs) == 0 {
		return "int32"
	}
	switch rnd.IntN(9) {
	case 0:
		return "int64"
	case 1:
		return "string"
	case 2:
		return "acme.common.Money"
	case 3:
		return "common.Status"
	case 4:
		return ".acme.common.Money"
	case 5:
		return f.msgs[rnd.IntN(len(f.msgs))].name
	case 6:
		if m.nested != nil {
			return m.nested.name
		}
		return "bytes"
	case 7:
		return f.qualified(f.msgs[0].name)
	case 8:
		if !f.dropped {
			return "common.Legacy"
		}
	}
	return "bool"
}

func (m *genMsg) add(rnd *rand.Rand, f *genFile) {
	num := m.next
	if len(m.freed) > 0 && rnd.IntN(2) == 0 {
		num, m.freed = m.freed[0], m.freed[1:]
	} else {
		m.next++
	}
	kind := rnd.IntN(6)
	if kind > 3 || (kind == 3 && !f.proto2) {
		kind = 0
	}
	m.fields = append(m.fields, genField{name: fmt.Sprintf("f%d_%d", num, rnd.IntN(3)), typ: f.types(rnd, m), num: num, kind: kind})
}

// edit makes commit i's change: one of a dozen kinds of edit.
func (f *genFile) edit(rnd *rand.Rand, i int) {
	f.repair()
	m := f.msgs[rnd.IntN(len(f.msgs))]
	switch rnd.IntN(12) {
	case 0, 1, 2:
		m.add(rnd, f)
	case 3, 4:
		if len(m.fields) > 1 {
			k := rnd.IntN(len(m.fields))
			m.freed = append(m.freed, m.fields[k].num)
			m.fields = slices.Delete(m.fields, k, k+1)
		}
	case 5:
		k := rnd.IntN(len(m.fields))
		m.fields[k].name += "x"
	case 6:
		k := rnd.IntN(len(m.fields))
		m.fields[k].typ = f.types(rnd, m)
		if rnd.IntN(3) == 0 {
			m.fields[k].typ = "Missing" // a broken commit, repaired by the next
		}
	case 7:
		f.addMsg(rnd)
	case 8:
		if m.nested == nil {
			m.nested = &genMsg{name: "Inner", next: 1}
			m.nested.add(rnd, f)
		} else {
			m.nested.add(rnd, f)
		}
	case 9:
		// A message moves to the end.
		k := rnd.IntN(len(f.msgs))
		moved := f.msgs[k]
		f.msgs = append(slices.Delete(f.msgs, k, k+1), moved)
	case 10:
		f.comment = (f.comment + 1) % (2 * len(f.msgs))
	case 11:
		if rnd.IntN(3) == 0 {
			f.dir = fmt.Sprintf("proto/%s/v%d", f.pkg, 1+i%2) // a rename
		} else {
			f.rename(m, m.name+"R")
		}
	}
}

func (f *genFile) qualified(name string) string { return fmt.Sprintf(".acme.%s.v1.%s", f.pkg, name) }

// repair points the references a rename left dangling at a scalar.
func (f *genFile) repair() {
	known := map[string]bool{}
	for _, m := range f.msgs {
		known[m.name], known[f.qualified(m.name)] = true, true
	}
	for _, m := range f.msgs {
		for i, x := range m.fields {
			if strings.HasPrefix(x.typ, ".acme."+f.pkg) || strings.HasPrefix(x.typ, "M") {
				if !known[x.typ] {
					m.fields[i].typ = "sint32"
				}
			}
		}
	}
}

// rename renames m and the references to it, all but one in five:
// those versions do not compile.
func (f *genFile) rename(m *genMsg, name string) {
	for _, x := range f.msgs {
		for i := range x.fields {
			switch t := x.fields[i].typ; {
			case x.fields[i].num%5 == 0:
			case t == m.name:
				x.fields[i].typ = name
			case t == f.qualified(m.name):
				x.fields[i].typ = f.qualified(name)
			}
		}
	}
	m.name = name
}

func (f *genFile) text() string {
	var b strings.Builder
	syntax := "proto3"
	if f.proto2 {
		syntax = "proto2"
	}
	fmt.Fprintf(&b, "// %s\nsyntax = %q;\n\npackage acme.%s.v1;\n\nimport \"common/common.proto\";\n", f.pkg, syntax, f.pkg)
	open := f.comment % len(f.msgs)
	for i, m := range f.msgs {
		if f.comment >= len(f.msgs) && i == open {
			b.WriteString("\n/* a note\n   that spans lines, message Old { int32 x = 99; }\n*/ ")
		} else {
			b.WriteString("\n")
		}
		m.write(&b, "", f.proto2)
	}
	return b.String()
}

func (m *genMsg) write(b *strings.Builder, indent string, proto2 bool) {
	fmt.Fprintf(b, "%smessage %s {\n", indent, m.name)
	if m.nested != nil {
		m.nested.write(b, indent+"  ", proto2)
	}
	label := ""
	if proto2 {
		label = "optional "
	}
	for _, f := range m.fields {
		switch f.kind {
		case 1:
			fmt.Fprintf(b, "%s  map<string, %s> %s = %d;\n", indent, f.typ, f.name, f.num)
		case 2:
			fmt.Fprintf(b, "%s  oneof o_%s {\n%s    %s %s = %d; // in a oneof\n%s  }\n", indent, f.name, indent, f.typ, f.name, f.num, indent)
		case 3:
			fmt.Fprintf(b, "%s  optional group G%s = %d {\n%s    optional %s v = 1;\n%s  }\n", indent, f.name, f.num, indent, f.typ, indent)
		default:
			fmt.Fprintf(b, "%s  %s%s %s = %d;\n", indent, label, f.typ, f.name, f.num)
		}
	}
	fmt.Fprintf(b, "%s}\n", indent)
}

// TestHistoryOracleRepo: the generated history has what the oracle test
// needs to mean something: versions that do not compile, reused numbers,
// release tags and uses marked unreleased.
func TestHistoryOracleRepo(t *testing.T) {
	r, names, compiled := sharedOracle(t)
	repo := r.repo()
	base, baseSrc := openBase(t, repo, "HEAD")
	all, err := repo.walks.versions(repo, base.Commit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	broken, versions := 0, 0
	for _, name := range names {
		for _, v := range all[name] {
			versions++
			if compiledVersion(compiled, repo, baseSrc, name, v, options(r.top).Pipeline) == nil {
				broken++
			}
		}
	}
	h := oracleHistory(t, repo, base, baseSrc, names[0], options(r.top), compiled)
	reused, unreleased := 0, 0
	seen := map[[2]string]string{}
	for _, u := range h.Used {
		k := [2]string{u.Message, fmt.Sprint(u.Number)}
		if n, ok := seen[k]; ok && n != u.Name+u.Type {
			reused++
		}
		seen[k] = u.Name + u.Type
		if u.Unreleased {
			unreleased++
		}
	}
	t.Logf("%d versions, %d do not compile; %d uses, %d numbers given again, %d unreleased", versions, broken, len(h.Used), reused, unreleased)
	if broken == 0 || broken > versions/2 || reused == 0 || unreleased == 0 || unreleased == len(h.Used) {
		t.Errorf("the generated history lacks a case")
	}
}
