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
	if want := (Base{Commit: head, Why: "merge base with main"}); res.Base != want {
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
