package review

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/readers"
)

// pets returns an OpenAPI document whose GET /pets response has the
// properties given, one per line from line 14 on.
func pets(props ...string) string { return getDoc("pets", "/pets", "", props...) }

// getDoc is an OpenAPI document with one GET at route, its parameters (YAML
// lines) and a response object with the string properties given.
func getDoc(title, route, params string, props ...string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: " + title + ", version: \"1\"}\npaths:\n  " + route + ":\n    get:\n" + params +
		"      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n" +
		"              schema:\n                type: object\n                properties:\n")
	for _, p := range props {
		b.WriteString("                  " + p + ": {type: string}\n")
	}
	return b.String()
}

func TestRunOpenAPIChange(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name", "age"))
	r.write("notes.yaml", "title: notes\n")
	head := r.commit("v1")

	r.write("api/pets.yaml", pets("name"))
	// YAML that is not OpenAPI changes without being reviewed.
	r.write("notes.yaml", "title: more notes\n")

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Base{Commit: head, Ref: "main", Why: "merge base of HEAD"}); res.Base != want {
		t.Errorf("Base = %+v, want %+v", res.Base, want)
	}
	want := []FileChange{{Status: Modified, Old: "api/pets.yaml", New: "api/pets.yaml"}}
	if d := gocmp.Diff(want, res.Files); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	fs := findingsOf(res.Findings, "response-property-removed")
	if len(fs) != 1 {
		t.Fatalf("want one response-property-removed, got %+v", res.Findings)
	}
	// A removal points at the line in the old file, where the property was.
	f := fs[0]
	if f.Where.File != "api/pets.yaml" || f.Where.Line != 15 || !f.Removed || !strings.Contains(f.Message, `"age"`) {
		t.Errorf("finding = %+v, want the removed \"age\" at api/pets.yaml:15 on the old side", f)
	}
	if res.Unmatched != nil {
		t.Errorf("Unmatched = %+v without any evidence", res.Unmatched)
	}

	// A path elsewhere leaves the change out of the review.
	o := options(r.top)
	o.Paths = []string{"notes.yaml"}
	if res, err = Run(o); err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 || len(res.Findings) != 0 {
		t.Errorf("limited to notes.yaml: Files %+v, Findings %+v; want none", res.Files, res.Findings)
	}
}

// --staged must read the new side from the index: here the working tree
// has been put back, so only the index still holds the breaking change.
func TestRunStagedReadsIndex(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name", "age"))
	r.commit("v1")
	r.write("api/pets.yaml", pets("name"))
	r.git("add", "api/pets.yaml")
	r.write("api/pets.yaml", pets("name", "age"))

	o := options(r.top)
	o.Staged = true
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "response-property-removed") {
		t.Errorf("staged: no response-property-removed in %+v", res.Findings)
	}

	res, err = Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 0 || len(res.Findings) != 0 {
		t.Errorf("working tree equal to the base: Files %+v, Findings %+v; want none", res.Files, res.Findings)
	}
}

// A contract is chosen by what it is on either side: a deleted OpenAPI
// document exists only at the base, an untracked .proto only on disk.
func TestRunAddedAndDeleted(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name"))
	r.commit("v1")
	r.remove("api/pets.yaml")
	r.write("api/shop.proto", "syntax = \"proto3\";\npackage shop;\nmessage Charge {\n  string id = 1;\n}\n")

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Status: Deleted, Old: "api/pets.yaml"},
		{Status: Added, New: "api/shop.proto"},
	}
	if d := gocmp.Diff(want, res.Files); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	fs := findingsOf(res.Findings, "contract-file-removed")
	if len(fs) != 1 || fs[0].Where.File != "api/pets.yaml" || !fs[0].Removed {
		t.Errorf("want one contract-file-removed on the old api/pets.yaml, got %+v", res.Findings)
	}
}

const pact = `{
  "consumer": {"name": "app"},
  "provider": {"name": "shop"},
  "interactions": [
    {"description": "get an order", "request": {"method": "GET", "path": "/v1/orders/42"},
     "response": {"status": 200, "body": {"id": "42", "price": 4000}}},
    {"description": "get a user", "request": {"method": "GET", "path": "/v1/users/7"},
     "response": {"status": 200, "body": {"id": "7", "name": "Ann"}}}
  ],
  "metadata": {"pactSpecification": {"version": "3.0.0"}}
}
`

// resource is an OpenAPI document with GET /v1/<name>/{id} returning props.
func resource(name string, props ...string) string {
	return getDoc(name, "/v1/"+name+"/{id}",
		"      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n", props...)
}

// Two contracts are compared and a third is untouched. The evidence for
// orders misses tickets but matches orders, so it is used, not reported;
// the evidence for users misses both and is reported, once per entry
// although two contracts missed it.
func TestRunUnmatchedEvidence(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/orders.yaml", resource("orders", "id", "price"))
	r.write("api/tickets.yaml", resource("tickets", "id", "seat"))
	r.write("api/users.yaml", resource("users", "id", "name"))
	r.commit("v1")
	r.write("api/orders.yaml", resource("orders", "id"))
	r.write("api/tickets.yaml", resource("tickets", "id", "seat", "row"))

	file := filepath.Join(t.TempDir(), "app.json")
	writeFile(t, file, pact)
	set, err := readers.Load(filepath.Dir(file), []string{file}, readers.DefaultWindow, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
		1<<20, func(msg string) { t.Errorf("readers warned: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	var users []readers.Entry
	for _, e := range set.Entries {
		if e.Path == "/v1/users/7" {
			users = append(users, e)
		}
	}
	if len(users) != 3 {
		t.Fatalf("the pact gave %d entries for users, want 3 (the operation, id, name): %+v", len(users), set.Entries)
	}

	o := options(r.top)
	o.Pipeline.Readers = set
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 {
		t.Errorf("Files = %+v, want orders and tickets", res.Files)
	}
	if d := gocmp.Diff(users, res.Unmatched); d != "" {
		t.Errorf("Unmatched (-want +got):\n%s", d)
	}
	// The orders evidence was bound: the removed price has a reader.
	fs := findingsOf(res.Findings, "field-removed-while-read")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "app") {
		t.Errorf("want field-removed-while-read naming app, got %+v", res.Findings)
	}

	// Once users is compared too, its evidence serves it.
	r.write("api/users.yaml", resource("users", "id", "name", "email"))
	if res, err = Run(o); err != nil {
		t.Fatal(err)
	}
	if len(res.Unmatched) != 0 {
		t.Errorf("users compared: Unmatched = %+v, want none", res.Unmatched)
	}
}

// Evidence named twice (a folder and a file inside it) holds each entry
// twice; that must not change which entries match no compared contract.
func TestRunUnmatchedEvidenceNamedTwice(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/orders.yaml", resource("orders", "id", "price"))
	r.write("api/tickets.yaml", resource("tickets", "id", "seat"))
	r.commit("v1")
	r.write("api/orders.yaml", resource("orders", "id"))
	r.write("api/tickets.yaml", resource("tickets", "id", "seat", "row"))

	dir := t.TempDir()
	file := filepath.Join(dir, "app.json")
	writeFile(t, file, pact)
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	once, err := readers.Load(dir, []string{file}, readers.DefaultWindow, now, 1<<20, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := readers.Load(dir, []string{dir, file}, readers.DefaultWindow, now, 1<<20, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(twice.Entries) != 2*len(once.Entries) {
		t.Fatalf("loading the file twice gave %d entries, want %d", len(twice.Entries), 2*len(once.Entries))
	}
	var users []readers.Entry
	for _, e := range once.Entries {
		if e.Path == "/v1/users/7" {
			users = append(users, e)
		}
	}

	o := options(r.top)
	o.Pipeline.Readers = twice
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if d := gocmp.Diff(users, res.Unmatched); d != "" {
		t.Errorf("evidence given twice changes Unmatched (-want +got):\n%s", d)
	}
}

// --staged is what this commit changes: the index against HEAD. A break
// already committed on the branch must not block every later harmless
// commit to the same file.
func TestRunStagedComparesWithHead(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name", "age"))
	r.commit("v1")
	r.newBranch("feature")
	r.write("api/pets.yaml", pets("name"))
	head := r.commit("the break, already committed")
	r.write("api/pets.yaml", pets("name", "tag"))
	r.git("add", "api/pets.yaml")

	o := options(r.top)
	o.Staged = true
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Commit != head || res.Base.Ref != "HEAD" {
		t.Errorf("Base = %+v, want HEAD (%s)", res.Base, head)
	}
	if len(res.Findings) != 0 {
		t.Errorf("a harmless staged change after a committed break: findings %+v, want none", res.Findings)
	}

	// A staged deletion is this commit's own change.
	r.git("rm", "-q", "-f", "api/pets.yaml")
	if res, err = Run(o); err != nil {
		t.Fatal(err)
	}
	if !hasRule(res.Findings, "contract-file-removed") {
		t.Errorf("a staged deletion: findings %+v, want contract-file-removed", res.Findings)
	}

	// --base keeps the pull-request view.
	o.Base = "main"
	if res, err = Run(o); err != nil {
		t.Fatal(err)
	}
	if res.Base.Ref != "main" {
		t.Errorf("--staged --base main: Base = %+v", res.Base)
	}
}

// A typo'd path or contracts glob must not pass as "nothing changed".
func TestRunPathMatchesNothing(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name", "age"))
	r.write("old/gone.yaml", pets("name"))
	r.commit("v1")
	r.remove("old/gone.yaml")

	o := options(r.top)
	o.Paths = []string{"apis/"}
	_, err := Run(o)
	if err == nil || !strings.Contains(err.Error(), `path "apis/" matches no file`) {
		t.Errorf("a path that matches nothing: err = %v, want one naming it", err)
	}
	// A path that only the base has (a deleted file) is a real path.
	o.Paths = []string{"old/gone.yaml"}
	res, err := Run(o)
	if err != nil || !hasRule(res.Findings, "contract-file-removed") {
		t.Errorf("a deleted path: %v, %+v; want contract-file-removed", err, res)
	}

	o = options(r.top)
	o.Globs, o.GlobsFrom = []string{"apis/**/*.yaml", "api/*.yaml"}, ".contractlint.yaml"
	_, err = Run(o)
	if err == nil || !strings.Contains(err.Error(), `.contractlint.yaml: contracts glob "apis/**/*.yaml" matches no file`) {
		t.Errorf("a contracts glob that matches nothing: err = %v, want one naming it", err)
	}
}

// "Nothing to compare" and "compared, no findings" are different answers.
func TestRunCountsCompared(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/pets.yaml", pets("name"))
	r.write("api/shop.yaml", getDoc("shop", "/shop", "", "id"))
	r.commit("v1")
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if res.Compared != 0 {
		t.Errorf("nothing changed: Compared = %d", res.Compared)
	}
	r.write("api/pets.yaml", pets("name", "tag"))
	if res, err = Run(options(r.top)); err != nil {
		t.Fatal(err)
	}
	if res.Compared != 1 || len(res.Findings) != 0 {
		t.Errorf("one harmless change: Compared = %d, findings %+v; want 1 and none", res.Compared, res.Findings)
	}
}

// orderAPI is an OpenAPI root whose GET route answers with schemas/order.yaml.
func orderAPI(title, route string) string {
	return "openapi: 3.0.3\ninfo: {title: " + title + ", version: \"1\"}\npaths:\n  " + route + ":\n    get:\n" +
		"      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n" +
		"              schema: {$ref: \"../schemas/order.yaml\"}\n"
}

// review compares contracts, not files: a change to a file that only a
// $ref reaches (two steps away here) makes every root that reaches it
// compared, and a finding in it is reported once, in the changed file.
func TestRunRefGraph(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/orders.yaml", orderAPI("orders", "/orders"))
	r.write("api/admin.yaml", orderAPI("admin", "/admin/orders"))
	r.write("api/other.yaml", pets("name"))
	r.write("schemas/order.yaml", "type: object\nproperties:\n  id: {type: string}\n  total: {$ref: \"money.yaml\"}\n")
	r.write("schemas/money.yaml", "type: object\nproperties:\n  amount: {type: integer}\n  currency: {type: string}\n")
	r.commit("v1")
	r.write("schemas/money.yaml", "type: object\nproperties:\n  amount: {type: integer}\n")

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	fs := findingsOf(res.Findings, "response-property-removed")
	if len(fs) != 1 || fs[0].Where.File != "schemas/money.yaml" || fs[0].Where.Line != 4 {
		t.Errorf("want one response-property-removed at schemas/money.yaml:4, got %+v", res.Findings)
	}
	if len(fs) == 1 && len(fs[0].Operations) != 2 {
		t.Errorf("the finding should name both operations that reach it: %v", fs[0].Operations)
	}
	if res.Compared != 2 {
		t.Errorf("Compared = %d, want the two roots that reach the change (orders, admin)", res.Compared)
	}

	// A path argument limits which roots are compared, not which changed
	// files count.
	o := options(r.top)
	o.Paths = []string{"api/admin.yaml"}
	if res, err = Run(o); err != nil {
		t.Fatal(err)
	}
	if res.Compared != 1 || !hasRule(res.Findings, "response-property-removed") {
		t.Errorf("limited to api/admin.yaml: Compared %d, findings %+v", res.Compared, res.Findings)
	}
}

// A .proto file imported from outside the contracts globs is reached
// through its importer.
func TestRunImportGraph(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/buf.yaml", "version: v1\n")
	r.write("api/shop.proto", "syntax = \"proto3\";\npackage shop;\nimport \"lib/money.proto\";\nmessage Charge {\n  lib.Money total = 1;\n}\n")
	r.write("api/lib/money.proto", "syntax = \"proto3\";\npackage lib;\nmessage Money {\n  int64 units = 1;\n  string currency = 2;\n}\n")
	r.commit("v1")
	r.write("api/lib/money.proto", "syntax = \"proto3\";\npackage lib;\nmessage Money {\n  int64 units = 1;\n  int32 currency = 2;\n}\n")

	o := options(r.top)
	o.Globs = []string{"api/*.proto"}
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Compared != 1 || !hasRule(res.Findings, "proto-field-type-changed") {
		t.Errorf("Compared %d, findings %+v; want api/shop.proto compared and the type change in lib/money.proto", res.Compared, res.Findings)
	}
}

// orders is an OpenAPI document whose response schema has the properties
// given and, when ignore is set, the x-contractlint-ignore block given.
func orders(ignore string, props ...string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: orders, version: \"1\"}\npaths:\n  /orders:\n    get:\n      responses:\n" +
		"        \"200\":\n          description: ok\n          content:\n            application/json:\n" +
		"              schema:\n                type: object\n" + ignore + "                properties:\n")
	for _, p := range props {
		b.WriteString("                  " + p + ": {type: string}\n")
	}
	return b.String()
}

// An ignore names the element it accepts: once the change it accepted is
// merged, a later removal below the same parent is reported, and the
// leftover ignore is reported unused.
func TestRunElementIgnore(t *testing.T) {
	const ignore = "                x-contractlint-ignore:\n                  response-property-removed:\n" +
		"                    {element: tracking_url, reason: \"moved to the carrier's page\"}\n"
	r := newRepo(t, "main")
	r.write("api/orders.yaml", orders("", "id", "tracking_url", "carrier"))
	r.commit("v1")

	r.write("api/orders.yaml", orders(ignore, "id", "carrier"))
	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(res.Findings, "response-property-removed") || hasRule(res.Findings, "unused-ignore") {
		t.Errorf("the accepted removal: findings %+v, want neither response-property-removed nor unused-ignore", res.Findings)
	}
	r.commit("v2: tracking_url removed, accepted")

	r.write("api/orders.yaml", orders(ignore, "id"))
	if res, err = Run(options(r.top)); err != nil {
		t.Fatal(err)
	}
	fs := findingsOf(res.Findings, "response-property-removed")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "carrier") {
		t.Errorf("a later removal under the same parent: want response-property-removed for carrier, got %+v", res.Findings)
	}
	if fs := findingsOf(res.Findings, "unused-ignore"); len(fs) != 1 || fs[0].Where.Line != 13 {
		t.Errorf("the leftover ignore: want unused-ignore at api/orders.yaml:13, got %+v", res.Findings)
	}
}

// A changed .proto file compared on its own is not compared again through
// each file importing it: the findings would be the same, the compiles not.
func TestRunImportedRootComparedOnce(t *testing.T) {
	r := newRepo(t, "main")
	r.write("api/money.proto", "syntax = \"proto3\";\npackage lib;\nmessage Money {\n  int64 units = 1;\n  string currency = 2;\n}\n")
	for _, n := range []string{"a", "b", "c"} {
		r.write("api/"+n+".proto", "syntax = \"proto3\";\npackage "+n+";\nimport \"money.proto\";\nmessage M {\n  lib.Money total = 1;\n}\n")
	}
	r.commit("v1")
	r.write("api/money.proto", "syntax = \"proto3\";\npackage lib;\nmessage Money {\n  int64 units = 1;\n  int32 currency = 2;\n}\n")

	res, err := Run(options(r.top))
	if err != nil {
		t.Fatal(err)
	}
	if res.Compared != 1 || len(findingsOf(res.Findings, "proto-field-type-changed")) != 1 {
		t.Errorf("Compared %d, findings %+v; want money.proto compared once and one type change", res.Compared, res.Findings)
	}
}
