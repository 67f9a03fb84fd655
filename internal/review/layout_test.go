package review

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

const chargeProto = "syntax = \"proto3\";\npackage shop.v1;\nmessage Charge {\n  string id = 1;\n}\n"

// A .proto file moved to another path is, to every importer and to buf
// (FILE_NO_DELETE), a deleted file and a new one: review reports the old
// path deleted, as diff of the two trees does, whether git saw a rename or
// a deletion and an addition of a file declaring the same package.
// Without a buf.yaml the repository is the module, as the directory given
// to buf breaking is: a file moved to another directory under its own name
// changed its path there (FILE_NO_DELETE).
func TestRunProtoMoveIsFileRemoval(t *testing.T) {
	const money = "syntax = \"proto3\";\npackage shop.v1;\nmessage Money {\n  int64 units = 1;\n}\n"
	importing := func(imp string) string {
		return strings.Replace(chargeProto, "package shop.v1;\n", "package shop.v1;\nimport \""+imp+"\";\n", 1)
	}
	for _, tc := range []struct {
		name, to, text string
		noBuf          bool
		// with is a file beside the moved one, the moved file's import.
		with string
	}{
		{name: "renamed", to: "api/payment.proto", text: chargeProto},
		{name: "moved under a buf.yaml root", to: "api2/charge.proto", text: chargeProto},
		{name: "delete and add", to: "api/billing.proto", text: chargeProto + "message Refund {\n  string id = 1;\n  string why = 2;\n  int64 amount = 3;\n}\n"},
		{name: "renamed without buf.yaml", to: "api/payment.proto", text: chargeProto, noBuf: true},
		{name: "moved without buf.yaml", to: "api2/charge.proto", text: chargeProto, noBuf: true},
		{name: "moved deeper without buf.yaml", to: "api/v1/charge.proto", text: chargeProto, noBuf: true},
		// A well-known type's import resolves from no directory of the
		// repository: the file is still named by its path in it.
		{name: "moved without buf.yaml, importing a well-known type", to: "api2/charge.proto",
			text: importing("google/protobuf/timestamp.proto"), noBuf: true},
		{name: "moved without buf.yaml, importing by the full path", to: "api2/charge.proto",
			text: importing("api/money.proto"), noBuf: true, with: "api/money.proto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, "main")
			r.write("api/charge.proto", tc.text)
			if tc.with != "" {
				r.write(tc.with, money)
			}
			if !tc.noBuf {
				r.write("buf.yaml", "version: v2\n")
			}
			r.commit("v1")
			r.remove("api/charge.proto")
			r.write(tc.to, tc.text)
			want := []string{"api/charge.proto"}
			treeThenIndex(r, func(staged bool, res *Result, err error) {
				if err != nil {
					t.Fatalf("staged=%v: %v", staged, err)
				}
				// Two files of one package moved out of git's sight (the
				// working tree) pair with nothing: each is a deleted contract.
				var got []string
				for _, f := range slices.Concat(findingsOf(res.Findings, "proto-file-removed"), findingsOf(res.Findings, "contract-file-removed")) {
					got = append(got, f.Where.File)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("staged=%v: want proto-file-removed at %v, got %+v", staged, want, res.Findings)
				}
			})
		})
	}
}

// refDoc is an OpenAPI document whose GET /pets answers with the schema at
// ref; petSchema is a file such a $ref reaches, holding that schema.
func refDoc(ref string) string {
	return "openapi: 3.0.3\ninfo: {title: pets, version: \"1\"}\npaths:\n  /pets:\n    get:\n      responses:\n" +
		"        \"200\":\n          description: ok\n          content:\n            application/json:\n" +
		"              schema: {$ref: '" + ref + "'}\n"
}

func petSchema(props ...string) string {
	s := "Pet:\n  type: object\n  properties:\n"
	for _, p := range props {
		s += "    " + p + ": {type: string}\n"
	}
	return s
}

func symlink(t *testing.T, r *testRepo, target, name string) {
	t.Helper()
	file := filepath.Join(r.top, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, file); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
}

// A $ref through a symbolic link inside the repository (a linked
// directory, a linked file) reaches the file the working tree's read does,
// on both sides, and a root that is itself a link is read through it: a
// change in the linked bytes is reviewed, in the working tree and the index.
// One repository holds the three, each in a directory of its own and
// reaching only its own files.
func TestRunFollowsLinksInside(t *testing.T) {
	cases := []struct {
		name, root, ref, real string
		links                 [][2]string // target, name
	}{
		{"linked directory", "api/root.yaml", "../shared/pet.yaml#/Pet", "common/pet.yaml", [][2]string{{"common", "shared"}}},
		{"linked file", "api/root.yaml", "pet.yaml#/Pet", "common/pet.yaml", [][2]string{{"../common/pet.yaml", "api/pet.yaml"}}},
		{"root is a link", "spec/api.yaml", "../common/pet.yaml#/Pet", "common/pet.yaml", [][2]string{{"spec/api.yaml", "api.yaml"}}},
	}
	r := newRepo(t, "main")
	dir := func(i int) string { return fmt.Sprintf("case%d/", i) }
	for i, tc := range cases {
		r.write(dir(i)+tc.root, refDoc(tc.ref))
		r.write(dir(i)+tc.real, petSchema("name", "age"))
		for _, l := range tc.links {
			symlink(t, r, l[0], dir(i)+l[1])
		}
	}
	r.commit("v1")
	for i, tc := range cases {
		r.write(dir(i)+tc.real, petSchema("name"))
	}
	treeThenIndex(r, func(staged bool, res *Result, err error) {
		if err != nil {
			t.Fatalf("staged=%v: %v", staged, err)
		}
		for i, tc := range cases {
			if !slices.ContainsFunc(findingsOf(res.Findings, "response-property-removed"), func(f rules.Finding) bool {
				return strings.HasPrefix(f.Where.File, dir(i))
			}) {
				t.Errorf("staged=%v, %s: the removed property behind the link was not reported: %+v", staged, tc.name, res.Findings)
			}
		}
	})
}

// treeThenIndex reviews the working tree, then stages every change and
// reviews the index: the head read from the file system, then from git.
func treeThenIndex(r *testRepo, check func(staged bool, res *Result, err error)) {
	for _, staged := range []bool{false, true} {
		if staged {
			r.addAll()
		}
		o := options(r.top)
		o.Staged = staged
		res, err := Run(o)
		check(staged, res, err)
	}
}

// A link whose target leaves the repository is never followed, on either
// side: review stops with an error naming the link, never a pass.
func TestRunRefusesLinkOutside(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/root.yaml", refDoc("pet.yaml#/Pet"))
	writeFile(t, filepath.Join(filepath.Dir(r.top), "outside", "pet.yaml"), petSchema("name", "age"))
	symlink(t, r, "../../outside/pet.yaml", "api/pet.yaml")
	r.commit("v1")
	r.write("api/root.yaml", refDoc("pet.yaml#/Pet")+"# touched\n")
	treeThenIndex(r, func(staged bool, res *Result, err error) {
		msg := fmt.Sprint(err)
		if err == nil {
			fs := findingsOf(res.Findings, "contract-unreadable")
			if len(fs) == 0 {
				t.Fatalf("staged=%v: a link out of the repository passed: %+v", staged, res.Findings)
			}
			msg = fs[0].Message
		}
		if !strings.Contains(msg, "api/pet.yaml") || !strings.Contains(msg, "outside") {
			t.Errorf("staged=%v: %q does not name the link and say it leads outside", staged, msg)
		}
	})
}

// A $ref may name a file of any extension, or none: a change in it is a
// change of every contract that reaches it. One repository holds a root
// per extension, each reaching only its own file (one review of them all
// costs what one of six did).
func TestRunRefTargetAnyExtension(t *testing.T) {
	names := []string{"pet", "pet.txt", "pet.schema", "pet.oas", "pet.yaml.tmpl", "PET.YAML"}
	r := newRepo(t, "main")
	dir := func(i int) string { return fmt.Sprintf("api%d/", i) }
	for i, name := range names {
		r.write(dir(i)+"root.yaml", refDoc(name+"#/Pet"))
		r.write(dir(i)+name, petSchema("name", "age"))
	}
	r.commit("v1")
	for i, name := range names {
		r.write(dir(i)+name, petSchema("name"))
	}
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		if !slices.ContainsFunc(findingsOf(res.Findings, "response-property-removed"), func(f rules.Finding) bool {
			return strings.HasPrefix(f.Where.File, dir(i))
		}) {
			t.Errorf("a change in %s%s was not reviewed: %+v", dir(i), name, res.Findings)
		}
	}
}

// Extensions are matched whatever their case, as the file systems most
// contracts are written on match them: API.YAML is a contract.
func TestRunUpperCaseExtensions(t *testing.T) {
	r := newRepo(t, "main")
	r.write("API.YAML", pets("name", "age"))
	r.write("api.Yml", pets("name", "age"))
	r.write("api.JSON", `{"openapi": "3.0.3", "info": {"title": "j", "version": "1"}, "paths": {"/j": {"get": {"parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}], "responses": {"200": {"description": "ok"}}}}}}`)
	r.write("T.PROTO", chargeProto)
	r.commit("v1")
	r.write("API.YAML", pets("name"))
	r.write("api.Yml", pets("name"))
	r.write("api.JSON", `{"openapi": "3.0.3", "info": {"title": "j", "version": "1"}, "paths": {"/j": {"get": {"parameters": [{"name": "q", "in": "query", "required": true, "schema": {"type": "string"}}], "responses": {"200": {"description": "ok"}}}}}}`)
	r.write("T.PROTO", "syntax = \"proto3\";\npackage shop.v1;\nmessage Charge {\n  int64 id = 1;\n}\n")
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		seen[f.Where.File] = true
	}
	for _, name := range []string{"API.YAML", "api.Yml", "api.JSON", "T.PROTO"} {
		if !seen[name] {
			t.Errorf("%s was not reviewed: Files %+v, Findings %+v", name, res.Files, res.Findings)
		}
	}
}

// A contract that opens with a `%YAML 1.2` directive (YAML 1.2 is what
// OpenAPI names) is a contract: compared, not passed over as other YAML.
func TestRunYAML12Directive(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", "%YAML 1.2\n---\n"+pets("name", "age"))
	r.commit("v1")
	r.write("api/pets.yaml", "%YAML 1.2\n---\n"+pets("name"))
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	fs := findingsOf(res.Findings, "response-property-removed")
	if len(fs) != 1 || fs[0].Where.Line != 17 {
		t.Errorf("want response-property-removed at api/pets.yaml:17, got %+v", res.Findings)
	}
}

// --proto-path (or proto.paths) adds import roots to those buf.yaml
// declares, never replaces them: an import resolved through the module
// root still resolves when another root is named.
func TestRunProtoPathAddsToBufRoots(t *testing.T) {
	r := newRepo(t, "main")
	r.write("buf.yaml", "version: v2\nmodules:\n  - path: proto\n")
	r.write("proto/shop/v1/money.proto", "syntax = \"proto3\";\npackage shop.v1;\nmessage Money {\n  int64 units = 1;\n}\n")
	r.write("third_party/ext/tag.proto", "syntax = \"proto3\";\npackage ext;\nmessage Tag {\n  string name = 1;\n}\n")
	order := func(total string) string {
		return "syntax = \"proto3\";\npackage shop.v1;\nimport \"shop/v1/money.proto\";\nimport \"ext/tag.proto\";\n" +
			"message Order {\n  " + total + " total = 1;\n  ext.Tag tag = 2;\n}\n"
	}
	r.write("proto/shop/v1/order.proto", order("Money"))
	r.commit("v1")
	r.write("proto/shop/v1/order.proto", order("string"))
	o := options(r.top)
	o.Pipeline.ProtoPaths = []string{"third_party"}
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(res.Findings, "contract-unreadable") || !hasRule(res.Findings, "proto-field-type-changed") {
		t.Errorf("want proto-field-type-changed and every import read, got %+v", res.Findings)
	}
}

// An istio/api-shaped tree: buf.yaml at the top, third-party protos under
// common-protos, a committed symbolic link to where they are kept, named
// as an extra root; imports by full path and by short path. Review reads
// it the same in the working tree and in git, loads each file once, and
// says the same every time.
func TestRunIstioShapedTreeIsDeterministic(t *testing.T) {
	r := newRepo(t, "main")
	r.write("buf.yaml", "version: v1\n")
	r.write("vendor-protos/k8s/meta.proto", "syntax = \"proto3\";\npackage k8s.meta;\nmessage ObjectMeta {\n  string name = 1;\n}\n")
	symlink(t, r, "vendor-protos", "common-protos")
	r.write("networking/v1/common.proto", "syntax = \"proto3\";\npackage istio.networking.v1;\nmessage Port {\n  uint32 number = 1;\n}\n")
	gateway := func(portType string) string {
		return "syntax = \"proto3\";\npackage istio.networking.v1;\nimport \"networking/v1/common.proto\";\nimport \"k8s/meta.proto\";\n" +
			"message Gateway {\n  k8s.meta.ObjectMeta meta = 1;\n  " + portType + " port = 2;\n}\n"
	}
	r.write("networking/v1/gateway.proto", gateway("Port"))
	// A second importer names common.proto by its short path, from its own
	// directory; the same file must not be loaded twice.
	r.write("networking/v1/service.proto", "syntax = \"proto3\";\npackage istio.networking.v1;\nimport \"networking/v1/common.proto\";\n"+
		"import \"k8s/meta.proto\";\nmessage Service {\n  k8s.meta.ObjectMeta meta = 1;\n  Port port = 2;\n}\n")
	r.commit("v1")
	r.write("networking/v1/gateway.proto", gateway("string"))
	r.write("networking/v1/common.proto", "syntax = \"proto3\";\npackage istio.networking.v1;\nmessage Port {\n  uint32 number = 1;\n  string name = 2;\n}\n")
	sameTenTimes(t, r, []string{"common-protos"}, func(res *Result) error {
		if hasRule(res.Findings, "contract-unreadable") || !hasRule(res.Findings, "proto-field-type-changed") {
			return fmt.Errorf("want proto-field-type-changed and every file read, got %+v", res.Findings)
		}
		return nil
	})
}

// A sparse checkout leaves a root out of the working tree while the change
// edits a file it reaches: the root is read from the index, as git holds
// it, and compared, as --staged compares it.
func TestRunSparseCheckoutWithoutRoot(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/root.yaml", refDoc("../schemas/pet.yaml#/Pet"))
	r.write("schemas/pet.yaml", petSchema("name", "age"))
	r.commit("v1")
	r.git("sparse-checkout", "set", "--no-cone", "/schemas/")
	if _, err := os.Stat(filepath.Join(r.top, "api", "root.yaml")); err == nil {
		t.Fatal("the sparse checkout kept api/root.yaml")
	}
	r.write("schemas/pet.yaml", petSchema("name"))
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "response-property-removed") {
		t.Errorf("the root outside the sparse checkout was not compared: Files %+v, Findings %+v", res.Files, res.Findings)
	}
}

// A root of this repository that $refs into a submodule the change bumps
// is compared: the submodule's old commit is read from its own git
// directory, the new one from its checkout. Where the old commit is not
// there, review stops with an error naming the submodule and the commit.
func TestRunRootIntoBumpedSubmodule(t *testing.T) {
	sub := newRepo(t, "main")
	sub.write("api/pet.yaml", petSchema("name", "age"))
	v1 := sub.commit("sub v1")

	r := newRepo(t, "main")
	r.write("api/shop.yaml", refDoc("../vendor/pets/api/pet.yaml#/Pet"))
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.top, "vendor/pets")
	r.commit("v1")

	// The bump, committed in the submodule's checkout (as a pull there
	// would bring it, in one git start rather than seven).
	r.write("vendor/pets/api/pet.yaml", petSchema("name"))
	gitIn(t, filepath.Join(r.top, "vendor/pets"), "commit", "-q", "-a", "-m", "sub v2: a break")
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "response-property-removed") {
		t.Errorf("the root reaching into the bumped submodule was not compared: Files %+v, Findings %+v, NotReviewed %q",
			res.Files, res.Findings, res.NotReviewed)
	}

	// A clone that never fetched the submodule: the bump is still judged,
	// and what cannot be read is said, located, never passed.
	r.commit("v2: bump")
	clone := &testRepo{t: t, top: filepath.Join(t.TempDir(), "clone")}
	gitIn(t, r.top, "clone", "-q", "file://"+r.top, clone.top)
	v2 := gitIn(t, filepath.Join(r.top, "vendor/pets"), "rev-parse", "HEAD")
	clone.git("update-index", "--cacheinfo", "160000,"+v1+",vendor/pets")
	clone.git("commit", "-q", "-m", "back to v1")
	clone.git("update-index", "--cacheinfo", "160000,"+v2+",vendor/pets")
	o := options(clone.top)
	o.Staged = true
	res, err = Run(o)
	msg := fmt.Sprint(err)
	if err == nil {
		fs := findingsOf(res.Findings, "contract-unreadable")
		if len(fs) == 0 {
			t.Fatalf("a submodule the clone lacks passed: %+v", res.Findings)
		}
		msg = fs[0].Message
	}
	if !strings.Contains(msg, "vendor/pets") || !strings.Contains(msg, "submodule") {
		t.Errorf("%q does not name the submodule it could not read", msg)
	}
}

// A change that only re-points a link (shared -> common becomes
// shared -> common2, whose files differ) changes every contract reaching
// through it, by $ref or by import: the roots are reviewed as diff of the
// two trees reports them, in the working tree and in the index. A $ref's
// finding is located where the $ref names the file, as diff's loader
// reads it.
func TestRunRepointedLink(t *testing.T) {
	money := func(typ string) string {
		return "syntax = \"proto3\";\npackage shop.v1;\nmessage Money {\n  " + typ + " units = 1;\n}\n"
	}
	for _, tc := range []struct {
		name, from, to, rule, at string
		files                    map[string]string
	}{
		{"ref", "common", "common2", "response-property-removed", "shared/pet.yaml", map[string]string{
			"api/root.yaml": refDoc("../shared/pet.yaml#/Pet"), "common/pet.yaml": petSchema("name", "age"),
			"common2/pet.yaml": petSchema("name"),
		}},
		{"import", "common/shared", "common2/shared", "proto-field-type-changed", "", map[string]string{
			"buf.yaml": "version: v2\n", "common/shared/money.proto": money("int64"), "common2/shared/money.proto": money("string"),
			"order.proto": "syntax = \"proto3\";\npackage shop.v1;\nimport \"shared/money.proto\";\nmessage Order {\n  Money total = 1;\n}\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, "main")
			for name, text := range tc.files {
				r.write(name, text)
			}
			symlink(t, r, tc.from, "shared")
			r.commit("v1")
			r.remove("shared")
			symlink(t, r, tc.to, "shared")
			treeThenIndex(r, func(staged bool, res *Result, err error) {
				if err != nil {
					t.Fatalf("staged=%v: %v", staged, err)
				}
				fs := findingsOf(res.Findings, tc.rule)
				if len(fs) != 1 || tc.at != "" && fs[0].Where.File != tc.at {
					t.Errorf("staged=%v: want one %s (at %q), got Files %+v, Findings %+v", staged, tc.rule, tc.at, res.Files, res.Findings)
				}
			})
		})
	}
}

// A .proto root importing through a committed link to a directory that
// buf.yaml excludes (istio/api's google -> common-protos/google) reaches
// the change behind the link under the name it imports: a field removed
// there is reported at that name, as diff of the two trees reports it,
// and the file is not compiled twice under its two names.
func TestRunProtoImportThroughLinkedDir(t *testing.T) {
	r := newRepo(t, "main")
	r.write("buf.yaml", "version: v1\nbuild:\n  excludes:\n    - vendor\n")
	money := "syntax = \"proto3\";\npackage money.v1;\nmessage Money {\n  int64 units = 1;\n  string currency = 2;\n}\n"
	r.write("vendor/money.proto", money)
	symlink(t, r, "vendor", "shared")
	r.write("api/charge.proto", "syntax = \"proto3\";\npackage shop.v1;\nimport \"shared/money.proto\";\nmessage Charge {\n  money.v1.Money amount = 1;\n}\n")
	r.commit("v1")
	r.write("vendor/money.proto", strings.Replace(money, "  string currency = 2;\n", "", 1))
	treeThenIndex(r, func(staged bool, res *Result, err error) {
		if err != nil {
			t.Fatalf("staged=%v: %v", staged, err)
		}
		fs := findingsOf(res.Findings, "proto-field-removed")
		if hasRule(res.Findings, "contract-unreadable") || len(fs) != 1 || fs[0].Where.File != "shared/money.proto" {
			t.Errorf("staged=%v: want proto-field-removed at shared/money.proto, got %+v", staged, res.Findings)
		}
	})
}

// Without a buf.yaml or buf.work.yaml, and without --proto-path or
// proto.paths, the repository is the module, as the directory handed to
// buf breaking or to diff is: imports resolve from its top. An import that
// resolves only from a subdirectory (proto/a/v1/a.proto importing
// "a/v1/common.proto") is an error at its import line saying what was
// looked for and how to declare the root, as diff of the two trees fails
// on it, never a root guessed here that passes an edit diff refuses. Once
// the root is declared (buf.yaml, proto.paths), the same change is
// compared.
func TestRunProtoImportOnlyFromSubdir(t *testing.T) {
	const common = "syntax = \"proto3\";\npackage a.v1;\nmessage Money {\n  int64 units = 1;\n}\n"
	a := func(extra string) string {
		return "syntax = \"proto3\";\npackage a.v1;\nimport \"a/v1/common.proto\";\nmessage Charge {\n  string id = 1;\n  Money amount = 2;\n" + extra + "}\n"
	}
	for _, tc := range []struct {
		name, head string
		unchanged  bool // the head edits another file; a.proto is as it was
	}{
		{name: "an added field", head: a("  string note = 3;\n")},
		{name: "a removed field", head: strings.Replace(a(""), "  Money amount = 2;\n", "", 1)},
		{name: "another file edited", unchanged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, "main")
			r.write("proto/a/v1/common.proto", common)
			r.write("proto/a/v1/a.proto", a(""))
			r.write("z.proto", "syntax = \"proto3\";\npackage z;\nmessage Z {\n  string id = 1;\n}\n")
			r.commit("v1")
			if tc.unchanged {
				r.write("z.proto", "syntax = \"proto3\";\npackage z;\nmessage Z {\n  string id = 1;\n  string note = 2;\n}\n")
			} else {
				r.write("proto/a/v1/a.proto", tc.head)
			}
			treeThenIndex(r, func(staged bool, res *Result, err error) {
				wantImportError(t, staged, res, err, "proto/a/v1/a.proto:3:8", "a/v1/common.proto")
			})
			r.git("reset", "-q")
			for _, declare := range []string{"proto.paths", "buf.yaml"} {
				o := options(r.top)
				if declare == "proto.paths" {
					o.Pipeline.ProtoPaths = []string{"proto"}
				} else {
					r.write("buf.yaml", "version: v1\nbuild:\n  roots: [proto]\n")
					r.git("add", "buf.yaml")
					r.git("commit", "-q", "-m", "declare the root", "--", "buf.yaml")
				}
				res, err := Run(o)
				if err != nil || hasRule(res.Findings, "contract-unreadable") {
					t.Fatalf("with %s: %v, %+v", declare, err, res)
				}
				if removed := tc.name == "a removed field"; removed != hasRule(res.Findings, "proto-field-removed") {
					t.Errorf("with %s: want proto-field-removed %v, got %+v", declare, removed, res.Findings)
				}
			}
		})
	}
}

// An import by the short path, beside the importing file, resolves from
// that file's directory only: without a buf.yaml, as diff of the two trees
// and buf breaking, review does not look there.
func TestRunProtoShortImportWithoutBufYAML(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/money.proto", "syntax = \"proto3\";\npackage shop.v1;\nmessage Money {\n  int64 units = 1;\n}\n")
	charge := strings.Replace(chargeProto, "package shop.v1;\n", "package shop.v1;\nimport \"money.proto\";\n", 1)
	r.write("api/charge.proto", charge)
	r.commit("v1")
	r.write("api/charge.proto", strings.Replace(charge, "string id = 1;", "int64 id = 1;", 1))
	treeThenIndex(r, func(staged bool, res *Result, err error) {
		wantImportError(t, staged, res, err, "api/charge.proto:3:8", "money.proto")
	})
}

// wantImportError checks a review stopped (exit 2), or reported the file
// contract-unreadable, at the import of imp that does not resolve from the
// repository's top, saying where it looked and how to declare the root.
func wantImportError(t *testing.T, staged bool, res *Result, err error, at, imp string) {
	t.Helper()
	msg, got := fmt.Sprint(err), ""
	var ps source.Problems
	switch {
	case errors.As(err, &ps):
		got = fmt.Sprintf("%s:%d:%d", ps[0].File, ps[0].Line, ps[0].Column)
	case err == nil && len(findingsOf(res.Findings, "contract-unreadable")) == 1:
		f := findingsOf(res.Findings, "contract-unreadable")[0]
		msg, got = f.Message, f.Where.String()
	default:
		t.Fatalf("staged=%v: want an error at the import, got %v, %+v", staged, err, res)
	}
	if got != at {
		t.Errorf("staged=%v: the error is at %s, not at the import, %s", staged, got, at)
	}
	for _, part := range []string{`import "` + imp + `" not found`, "looked for " + imp + ";", "buf.yaml", "proto.paths"} {
		if !strings.Contains(msg, part) {
			t.Errorf("staged=%v: %q does not say %q", staged, msg, part)
		}
	}
}
