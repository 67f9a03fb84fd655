package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// shop is a contract with every method, examples on one operation and a
// path parameter another operation's answer supplies.
const shop = `openapi: 3.0.3
info: {title: shop, version: "1"}
paths:
  /orders/{id}:
    delete:
      operationId: deleteOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: gone}}
    get:
      operationId: getOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: expand, in: query, schema: {type: array, items: {type: string, enum: [lines]}}}
      responses: {'200': {description: the order}}
    put:
      operationId: putOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}, example: o_1}]
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {note: {type: string}}}
            example: {note: hello}
      responses: {'200': {description: replaced}}
  /orders:
    get:
      operationId: listOrders
      responses: {'200': {description: a page}}
    post:
      operationId: createOrder
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [sku]
              properties: {sku: {type: string}, qty: {type: integer, minimum: 1}}
      responses: {'201': {description: created}}
  /upload:
    post:
      operationId: upload
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema: {type: object}
      responses: {'201': {description: stored}}
`

func loadText(t *testing.T, text string) *openapi.Doc {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shop.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return load(t, dir, "shop.yaml")
}

// lines renders a plan as Write prints it.
func lines(p *Plan) []string {
	var b strings.Builder
	p.Write(&b, func(s string) string { return s })
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// TestPlanOrder: creates first, then replaces, then reads, deletes last; a
// collection before its members; examples first, then required fields,
// then all fields (sent once when they are the same request); the member's
// id comes from the collection's answer.
func TestPlanOrder(t *testing.T) {
	doc := loadText(t, shop)
	want := []string{
		"  1. POST /orders (createOrder): required fields",
		"  2. POST /orders (createOrder): all fields",
		"  3. PUT /orders/{id} (putOrder): examples; id from an earlier response of /orders",
		"  4. PUT /orders/{id} (putOrder): required fields; id from an earlier response of /orders",
		"  5. PUT /orders/{id} (putOrder): all fields; id from an earlier response of /orders",
		"  6. GET /orders (listOrders): required fields",
		"  7. GET /orders/{id} (getOrder): required fields; id from an earlier response of /orders",
		"  8. GET /orders/{id} (getOrder): all fields; id from an earlier response of /orders",
		"  9. DELETE /orders/{id} (deleteOrder): required fields; id from an earlier response of /orders",
		"  not sent: POST /upload (upload): its request body is multipart/form-data; replay builds JSON and form bodies only",
	}
	if diff := cmp.Diff(want, lines(NewPlan(doc, Options{SideEffects: true}))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	p := NewPlan(doc, Options{SideEffects: true})
	if got := string(p.Requests[2].Body); got != `{"note":"hello"}` || p.Requests[2].Path["id"] != "o_1" {
		t.Errorf("the examples request has body %s and id %q", got, p.Requests[2].Path["id"])
	}
	if got := p.Requests[7].Query; len(got) != 1 || got[0] != [2]string{"expand", "lines"} {
		t.Errorf("all fields of getOrder sends query %v", got)
	}
}

// TestPlanSafeOnly: without side effects only GET, HEAD and OPTIONS go out.
func TestPlanSafeOnly(t *testing.T) {
	want := []string{
		"  1. GET /orders (listOrders): required fields",
		"  2. GET /orders/{id} (getOrder): required fields; id from an earlier response of /orders",
		"  3. GET /orders/{id} (getOrder): all fields; id from an earlier response of /orders",
		"  not sent: POST /orders (createOrder): POST changes state on the server; pass --allow-side-effects to send it",
		"  not sent: POST /upload (upload): POST changes state on the server; pass --allow-side-effects to send it",
		"  not sent: PUT /orders/{id} (putOrder): PUT changes state on the server; pass --allow-side-effects to send it",
		"  not sent: DELETE /orders/{id} (deleteOrder): DELETE changes state on the server; pass --allow-side-effects to send it",
	}
	if diff := cmp.Diff(want, lines(NewPlan(loadText(t, shop), Options{}))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// TestPlanFixtures: a fixture's body replaces the derived ones (so the
// variants collapse into one request) and its parameters override all. An
// operation is named by operationId or by "METHOD /template".
func TestPlanFixtures(t *testing.T) {
	fx, err := ParseFixtures("fx.yaml", []byte("createOrder:\n  body: {sku: tea, qty: 2}\nGET /orders/{id}:\n  params: {id: o_9, expand: [lines]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	doc := loadText(t, shop)
	if err := fx.Check("fx.yaml", doc); err != nil {
		t.Fatal(err)
	}
	p := NewPlan(doc, Options{Fixtures: fx, SideEffects: true})
	var creates, reads int
	for _, r := range p.Requests {
		switch r.Op.Name {
		case "createOrder":
			creates++
			if string(r.Body) != `{"qty":2,"sku":"tea"}` {
				t.Errorf("createOrder sends %s", r.Body)
			}
		case "getOrder":
			reads++
			if r.Path["id"] != "o_9" || len(r.Query) != 1 || len(r.Feeds) != 0 {
				t.Errorf("getOrder sends id %q (fed from %v) and query %v", r.Path["id"], r.Feeds, r.Query)
			}
		}
	}
	if got := strings.Join(lines(p), "\n"); !strings.Contains(got, "(getOrder): required fields, fixture params\n") {
		t.Errorf("the plan does not say getOrder's values come from the fixture:\n%s", got)
	}
	if creates != 1 || reads != 1 {
		t.Errorf("%d createOrder and %d getOrder requests, want 1 each (the same request is sent once)", creates, reads)
	}
}

func TestFixtureErrors(t *testing.T) {
	doc := loadText(t, shop)
	for _, c := range []struct{ text, want string }{
		{"- a\n- b\n", "fx.yaml:1:1: want a map from operationId to {params, body}"},
		{"createOrder: 3\n", "fx.yaml:1:14: want a map with params and body"},
		{"createOrder:\n  params: [1]\n", "fx.yaml:2:11: params: want a map from parameter name to value"},
		{"createOrder:\n  headers: {}\n", `fx.yaml:2:3: unknown key "headers" (want params or body)`},
		{"createOrdr: {}\n", `fx.yaml:1:1: "createOrdr" is not an operationId of the contract`},
		{"getOrder:\n  params: {idd: 1}\n", `fx.yaml:1:1: getOrder: "idd" is not a parameter of GET /orders/{id}`},
		{"a: [\n", "fx.yaml: not YAML"},
	} {
		fx, err := ParseFixtures("fx.yaml", []byte(c.text))
		if err == nil {
			err = fx.Check("fx.yaml", doc)
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.text, err, c.want)
		}
	}
}

func TestFormEncode(t *testing.T) {
	got := formEncode(map[string]any{"amount": 100.0, "tags": []any{"a", "b"}, "card": map[string]any{"exp": "12/30"}, "ok": true})
	if want := "amount=100&card%5Bexp%5D=12%2F30&ok=true&tags=a&tags=b"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestPlanFixtureKeyedCreate: an Idempotency-Key header parameter is
// replaced by a fresh key when the request is sent, so two variants that
// differ only in its planned value are the same request: with a fixture
// body the create is sent (and the charge made) once, not once per variant.
func TestPlanFixtureKeyedCreate(t *testing.T) {
	doc := loadText(t, `openapi: 3.0.3
info: {title: charges, version: "1"}
paths:
  /charges:
    post:
      operationId: createCharge
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [amount]
              properties: {amount: {type: number}, note: {type: string}}
            example: {amount: 12.5}
      responses: {'201': {description: created}}
`)
	fx, err := ParseFixtures("fx.yaml", []byte("createCharge:\n  body: {amount: 1500}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"  1. POST /charges (createCharge): examples, fixture body"}
	if diff := cmp.Diff(want, lines(NewPlan(doc, Options{Fixtures: fx, SideEffects: true}))); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// load reads a contract from dir/name the way the CLI does.
func load(t testing.TB, dir, name string) *openapi.Doc {
	t.Helper()
	src, err := source.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Load(src, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
