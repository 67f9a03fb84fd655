package cli_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/cli"
	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/gittest"
)

// FuzzReviewLayouts is the differential test over layouts the project's
// own pairs never take, drawn by a generator of its own from one seed: a
// $ref target of any extension or case, reached directly, through a linked
// directory or a linked file, in a directory whose name has spaces or
// non-ASCII letters, or in a submodule the change bumps; a target holding
// a second YAML document (which diff refuses); a root of upper- or
// mixed-case extension, opening with a BOM or a %YAML 1.2 directive, with
// CRLF lines; .proto files importing each other by their full path or
// through a linked directory; a change that edits the target, re-points
// the link or touches nothing; the working tree or the index, of a clone
// full or shallow. The property: review's exit is never below that of
// `diff` of the same two trees. The seeds are a fixed few, so plain
// `go test` runs them quickly and the same way every time. CI (.ci/run)
// takes the first 16 and those past them that draw a submodule bump, a
// .proto import through a linked directory (moved, edited, its import
// edited), a shallow clone of .proto files, a .proto file moved without a
// buf.yaml, or an import by the short path (with and without a buf.yaml
// declaring its directory; the importer edited, moved, or its import
// edited). Each seed builds a repository, some a clone, a worktree or a
// submodule, and reviews it, so plain `go test` takes layoutSample: a
// subset of those that still draws every value of every choice and every
// case named above (TestLayoutSampleDrawsEverything holds it to that).
func FuzzReviewLayouts(f *testing.F) {
	seeds := layoutSample
	if corpus.Full() {
		seeds = layoutSeeds()
	}
	for _, seed := range seeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		l := genLayout(seed)
		reviewNotBelowDiff(t, l)
	})
}

// layoutNamed are the seeds past the first 16 that CI runs for the cases
// FuzzReviewLayouts names.
var layoutNamed = []uint64{18, 19, 22, 31, 39, 59, 122, 126, 168, 196, 201, 202, 270, 274, 355}

// layoutSample is plain `go test`'s share of layoutSeeds.
var layoutSample = []uint64{0, 2, 4, 5, 10, 11, 14, 18, 19, 22, 31, 59, 122, 126, 196, 270, 274}

// layoutSeeds are the seeds CI runs: the first 16 and layoutNamed.
func layoutSeeds() []uint64 {
	var out []uint64
	for seed := range uint64(16) {
		out = append(out, seed)
	}
	return append(out, layoutNamed...)
}

// TestLayoutSampleDrawsEverything holds layoutSample to what CI's seeds
// draw: every value of every choice the generator makes, staged or not,
// refused or not, and each case FuzzReviewLayouts names. It builds no
// repository: it only draws.
func TestLayoutSampleDrawsEverything(t *testing.T) {
	drawn := func(seeds []uint64) map[string]bool {
		out := map[string]bool{}
		for _, seed := range seeds {
			for _, k := range layoutKinds(genLayout(seed)) {
				out[k] = true
			}
		}
		return out
	}
	sample := drawn(layoutSample)
	for k := range drawn(layoutSeeds()) {
		if !sample[k] {
			t.Errorf("layoutSample draws no layout of kind %q; CI's seeds do", k)
		}
	}
	for _, seed := range layoutSample {
		if !slices.Contains(layoutSeeds(), seed) {
			t.Errorf("layoutSample's seed %d is not one CI runs", seed)
		}
	}
}

// layoutKinds names what a layout drew, one entry per choice (its desc's
// fields, in order), and the combinations FuzzReviewLayouts names.
func layoutKinds(l layout) []string {
	f := strings.Split(l.desc, " | ")
	kind := "openapi"
	if f[0] == "proto" {
		kind, f = "proto", f[1:]
	}
	var out []string
	for i, v := range f {
		out = append(out, fmt.Sprintf("%s choice %d: %s", kind, i, v))
	}
	out = append(out, fmt.Sprintf("%s staged %v", kind, l.staged), fmt.Sprintf("%s refused %v", kind, l.refused))
	if kind == "openapi" {
		if l.subDir != "" && !l.refused {
			out = append(out, "a submodule bump")
		}
		return out
	}
	buf, imports, change := f[1], f[2], f[3]
	switch {
	case imports == "linked dir" && slices.Contains([]string{"move", "edit", "import"}, change):
		out = append(out, "an import through a linked directory, "+change)
	case imports == "short path":
		out = append(out, "an import by the short path with "+buf)
		if slices.Contains([]string{"move", "edit", "import"}, change) {
			out = append(out, "an import by the short path, "+change)
		}
	}
	if change == "move" && buf == "none" {
		out = append(out, "a .proto file moved without a buf.yaml")
	}
	return out
}

// layout is one generated repository: its base and head trees (file
// bytes and symbolic links, by slash-separated name) and the root
// contract both sides hold.
type layout struct {
	root       string
	base, head tree
	staged     bool
	history    string // how the head's repository got there (see checkout)
	breaks     bool   // the head removes a property clients read
	refused    bool   // diff refuses the trees (exit 2), and review must
	// untouched: the head changes no byte of a contract, so review has
	// nothing to review and passes, however diff judges the unchanged
	// trees (a blemish the base already had is not the change's).
	untouched bool
	dirs      bool   // diff compares the two trees as directories (.proto)
	desc      string // what was drawn, for a failure's message
	// sub is a submodule at subDir, with its files at the base and head
	// commits; diff reads them in place in each tree.
	subDir string
	sub    [2]map[string][]byte
}

type tree struct {
	files map[string][]byte
	links map[string]string // name -> target, relative to the link's directory
}

func (tr tree) clone() tree {
	out := tree{files: map[string][]byte{}, links: map[string]string{}}
	for k, v := range tr.files {
		out.files[k] = v
	}
	for k, v := range tr.links {
		out.links[k] = v
	}
	return out
}

// genLayout draws a layout from seed; the same seed gives the same layout.
func genLayout(seed uint64) layout {
	rng := rand.New(rand.NewPCG(seed, 0x43))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	if rng.IntN(3) == 0 {
		return genProtoLayout(rng, pick)
	}
	dir := pick("schemas", "common schemas", "schémas")
	ext := pick(".yaml", "", ".txt", ".schema", ".YAML")
	via := pick("direct", "linked dir", "linked file", "submodule")
	root := "api/" + pick("openapi.yaml", "API.YAML", "api.Yml")
	change := pick("edit", "edit", "repoint", "none")
	if change == "repoint" { // only a linked directory is re-pointed
		via = "linked dir"
	}
	enc := pick("plain", "bom", "crlf", "yaml12")
	docs := pick("one", "one", "one", "two")
	schema, shape := layoutSchema, pick("flat", "anchors")
	if shape == "anchors" {
		schema = anchoredSchema
	}
	l := layout{root: root, staged: rng.IntN(2) == 1, breaks: change != "none", refused: docs == "two",
		untouched: change == "none",
		history:   pick("plain", "detached", "moved on", "merged", "worktree", "shallow")}
	if via == "submodule" && (l.history == "worktree" || l.history == "shallow") {
		l.history = "plain" // neither checks the submodule out
	}
	l.desc = strings.Join([]string{dir, ext, via, root, change, enc, docs, shape, l.history}, " | ")

	target := dir + "/pet" + ext
	ref := "../" + target
	// A second document in the target: diff refuses it at its line.
	doc := func(s string) []byte {
		if docs == "two" {
			s += "---\nOther: {type: string}\n"
		}
		return []byte(s)
	}
	base := tree{files: map[string][]byte{target: doc(schema("name", "age"))}, links: map[string]string{}}
	switch via {
	case "submodule":
		delete(base.files, target)
		l.subDir, ref = "vendor/pets", "../vendor/pets/pet"+ext
		l.sub = [2]map[string][]byte{{"pet" + ext: doc(schema("name", "age"))}, {"pet" + ext: doc(schema("name", "age"))}}
		if change == "edit" {
			l.sub[1]["pet"+ext] = doc(schema("name"))
		}
	case "linked dir":
		base.links["shared"] = dir
		ref = "../shared/pet" + ext
	case "linked file":
		base.links["api/pet"+ext] = "../" + target
		ref = "pet" + ext
	}
	if change == "repoint" {
		base.files[dir+"2/pet"+ext] = []byte(schema("name"))
	}
	base.files[root] = encode(layoutRoot(escapeRef(ref)+"#/Pet"), enc)
	head := base.clone()
	switch {
	case via == "submodule":
	case change == "edit":
		head.files[target] = doc(schema("name"))
	case change == "repoint":
		head.links["shared"] = dir + "2"
	}
	l.base, l.head = base, head
	return l
}

// genProtoLayout draws a repository of a .proto root, with or without a
// buf.yaml, importing nothing, a file by its full path or one through a
// linked directory that buf.yaml excludes (istio/api's layout), that the
// head renames, moves to another directory under its name, moves deeper,
// edits, edits the import of, or leaves alone.
func genProtoLayout(rng *rand.Rand, pick func(...string) string) layout {
	name := pick("charge.proto", "Charge.PROTO")
	bufYAML := pick("none", "buf.yaml")
	imports := pick("none", "full path", "linked dir")
	change := pick("rename", "move", "deeper", "edit", "import", "none")
	switch {
	case change == "import" && imports == "none":
		change = "edit"
	case imports == "linked dir":
		bufYAML = "buf.yaml excluding vendor"
	}
	l := layout{root: "api/" + name, staged: rng.IntN(2) == 1, breaks: change != "none", dirs: true,
		history: pick("plain", "detached", "moved on", "worktree", "shallow")}
	// Drawn last, so the seeds above draw what they drew before: an import
	// by the short path, beside the importer, which resolves only from its
	// directory. Without a buf.yaml declaring that directory diff refuses
	// both trees, and review must stop too.
	if imports == "full path" && rng.IntN(2) == 0 {
		imports = "short path"
		l.refused = bufYAML == "none"
	}
	l.untouched = l.refused && change == "none"
	l.desc = strings.Join([]string{"proto", name, bufYAML, imports, change, l.history}, " | ")
	money := func(fields string) []byte {
		return []byte("syntax = \"proto3\";\npackage money.v1;\nmessage Money {\n  int64 units = 1;\n" + fields + "}\n")
	}
	imported, importedAs := map[string]string{"full path": "api/money.proto", "short path": "api/money.proto", "linked dir": "vendor/money.proto"}[imports], ""
	charge := func(typ string) []byte {
		s := "syntax = \"proto3\";\npackage shop.v1;\n"
		if imported != "" {
			s += "import \"" + importedAs + "\";\n"
		}
		s += "message Charge {\n  " + typ + " id = 1;\n"
		if imported != "" {
			s += "  money.v1.Money amount = 2;\n"
		}
		return []byte(s + "}\n")
	}
	l.base = tree{files: map[string][]byte{}, links: map[string]string{}}
	switch imports {
	case "full path":
		importedAs = imported
	case "short path":
		importedAs = "money.proto"
	case "linked dir":
		importedAs = "shared/money.proto"
		l.base.links["shared"] = "vendor"
	}
	if imported != "" {
		l.base.files[imported] = money("  string currency = 2;\n")
	}
	l.base.files[l.root] = charge("string")
	switch {
	case bufYAML == "buf.yaml" && imports == "short path":
		l.base.files["buf.yaml"] = []byte("version: v2\nmodules:\n  - path: api\n")
	case bufYAML == "buf.yaml":
		l.base.files["buf.yaml"] = []byte("version: v2\n")
	case bufYAML == "buf.yaml excluding vendor":
		l.base.files["buf.yaml"] = []byte("version: v1\nbuild:\n  excludes:\n    - vendor\n")
	}
	l.head = l.base.clone()
	to := map[string]string{"rename": "api/payment.proto", "move": "api2/" + name, "deeper": "api/v1/" + name}[change]
	switch {
	case to != "":
		delete(l.head.files, l.root)
		l.head.files[to] = charge("string")
	case change == "edit":
		l.head.files[l.root] = charge("int64")
	case change == "import":
		l.head.files[imported] = money("")
	}
	return l
}

// escapeRef writes a file path as a $ref names it: a URI reference, each
// segment percent-escaped (spaces, non-ASCII letters).
func escapeRef(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func encode(s, enc string) []byte {
	switch enc {
	case "bom":
		return []byte("\ufeff" + s)
	case "crlf":
		return []byte(strings.ReplaceAll(s, "\n", "\r\n"))
	case "yaml12":
		return []byte("%YAML 1.2\n---\n" + s)
	}
	return []byte(s)
}

func layoutRoot(ref string) string {
	return "openapi: 3.0.3\ninfo:\n  title: zoo\n  version: \"1\"\npaths:\n  /animals/{id}:\n    get:\n" +
		"      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n" +
		"      responses:\n        \"200\":\n          description: one animal\n          content:\n" +
		"            application/json:\n              schema:\n                $ref: '" + ref + "'\n"
}

// layoutSchema is a file of schemas the root's $ref reaches: Pet, with
// props, each a non-empty string.
func layoutSchema(props ...string) string {
	lines := []string{"Pet:", "  type: object", "  required: [name]", "  properties:"}
	for _, p := range props {
		lines = append(lines, "    "+p+": {type: string, minLength: 1}")
	}
	return strings.Join(lines, "\n") + "\n"
}

// anchoredSchema writes the same schema through a YAML anchor, an alias
// and a merge key, which a reader must expand to see the properties.
func anchoredSchema(props ...string) string {
	s := "Str: &str {type: string}\nPet:\n  type: object\n  properties:\n"
	for i, p := range props {
		if i == 0 {
			s += "    " + p + ":\n      <<: *str\n      description: first\n"
			continue
		}
		s += "    " + p + ": *str\n"
	}
	return s
}

// writeLayout writes a tree's files and links under dir, replacing any
// link already there.
func writeLayout(t *testing.T, dir string, tr tree) {
	t.Helper()
	writeTree(t, dir, tr.files)
	for name, target := range tr.links {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), file); err != nil {
			t.Skipf("cannot make symbolic links here: %v", err)
		}
	}
}

// reviewNotBelowDiff builds the layout's repository, reviews the change
// and checks review exits at least as diff of the two trees does.
func reviewNotBelowDiff(t *testing.T, l layout) {
	// diff reads both trees side by side; the empty .git makes their
	// parent the root their $refs may reach within.
	plain := t.TempDir()
	if err := os.Mkdir(filepath.Join(plain, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeLayout(t, filepath.Join(plain, "old"), l.base)
	writeLayout(t, filepath.Join(plain, "new"), l.head)
	if l.subDir != "" {
		writeTree(t, filepath.Join(plain, "old", l.subDir), l.sub[0])
		writeTree(t, filepath.Join(plain, "new", l.subDir), l.sub[1])
	}
	diffArgs := []string{"diff", path.Join("old", l.root), path.Join("new", l.root)}
	if l.dirs {
		diffArgs = []string{"diff", "old", "new"}
	}
	want := runCLI(t, plain, diffArgs...)

	r := gittest.New(t)
	writeLayout(t, r.Dir, l.base)
	if l.subDir != "" {
		sub := gittest.New(t)
		writeTree(t, sub.Dir, l.sub[0])
		sub.Commit(t, "base", ".")
		r.Git(t, "submodule", "add", "-q", sub.Dir, l.subDir)
	}
	r.Commit(t, "base", ".")
	w := checkout(t, r, l.history)
	writeLayout(t, w.Dir, l.head)
	if l.subDir != "" && l.breaks {
		// The head bumps the submodule to a commit that edits the target.
		sub := &gittest.Repo{Dir: filepath.Join(w.Dir, filepath.FromSlash(l.subDir))}
		writeTree(t, sub.Dir, l.sub[1])
		sub.Git(t, "commit", "-q", "-am", "head")
	}
	for name := range l.base.files {
		if _, ok := l.head.files[name]; !ok {
			if err := os.Remove(filepath.Join(w.Dir, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := []string{"review", "--base", "main"}
	if l.staged {
		w.Git(t, "add", "-A")
		args = append(args, "--staged")
	}
	got := runCLI(t, w.Dir, args...)
	// The generator knows what it drew: a diff that does not see the
	// break (or sees one that is not there) would make the check empty.
	wantCode := map[bool]int{false: cli.ExitOK, true: cli.ExitFindings}[l.breaks]
	if l.refused {
		wantCode = cli.ExitUsage
	}
	if want.code != wantCode {
		t.Fatalf("%s: diff exits %d, the layout calls for %d\n%s%s", l.desc, want.code, wantCode, want.stdout, want.stderr)
	}
	t.Logf("%s (staged %v): diff %d, review %d", l.desc, l.staged, want.code, got.code)
	if l.untouched {
		if got.code != cli.ExitOK {
			t.Fatalf("%s (staged %v): review of a change that touches no contract exits %d\n%s%s",
				l.desc, l.staged, got.code, got.stdout, got.stderr)
		}
		return
	}
	if got.code < want.code {
		t.Fatalf("%s (staged %v): review exits %d, below diff's %d\nreview: %s%s\ndiff: %s%s",
			l.desc, l.staged, got.code, want.code, got.stdout, got.stderr, want.stdout, want.stderr)
	}
}

// checkout readies the work tree the head is written in, after the base
// commit on main: main itself ("plain"), a detached HEAD, a feature branch
// whose base branch moved on since ("moved on"), the same with main merged
// back in ("merged", a merge commit), a linked worktree of a branch, or a
// clone of main one commit deep ("shallow", as actions/checkout makes).
func checkout(t *testing.T, r *gittest.Repo, history string) *gittest.Repo {
	t.Helper()
	moveMain := func() {
		r.Git(t, "checkout", "-q", "-b", "feature")
		r.Git(t, "checkout", "-q", "main")
		writeTree(t, r.Dir, map[string][]byte{"NOTES.md": []byte("main moved on\n")})
		r.Commit(t, "main moves on", ".")
		r.Git(t, "checkout", "-q", "feature")
	}
	switch history {
	case "detached":
		r.Git(t, "checkout", "-q", "--detach")
	case "moved on":
		moveMain()
	case "merged":
		moveMain()
		r.Git(t, "merge", "-q", "--no-edit", "main")
	case "worktree":
		w := &gittest.Repo{Dir: filepath.Join(t.TempDir(), "linked tree")}
		r.Git(t, "worktree", "add", "-q", "-b", "feature", w.Dir, "main")
		return w
	case "shallow":
		w := &gittest.Repo{Dir: filepath.Join(t.TempDir(), "shallow")}
		r.Git(t, "clone", "-q", "--depth", "1", "file://"+r.Dir, w.Dir)
		return w
	}
	return r
}
