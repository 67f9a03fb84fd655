package lsp

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/chain"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/rules"
)

const orders = `openapi: 3.0.3
info: {title: Orders, version: "1"}
paths:
  /v1/orders/{id}:
    get:
      operationId: getOrder
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: the order
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Order'
components:
  schemas:
    Order:
      type: object
      properties:
        id: {type: string}
        price:
          type: number
          description: Ticket price in dollars.
`

const shop = `syntax = "proto3";
package shop.v1;

message Order {
  string id = 1;
  string note = 2;
}

service Orders {
  rpc GetOrder(Order) returns (Order);
}
`

// openOne starts a server on a repository whose base holds name with
// text, and opens it unchanged.
func openOne(t *testing.T, name, text string) (*client, string) {
	t.Helper()
	r := newRepo(t, map[string]string{name: text})
	c := start(t, r, testOptions(), nil)
	uri := r.uri(name)
	c.open(uri, text)
	return c, uri
}

func lineOf(t *testing.T, text, substr string) int {
	t.Helper()
	i := strings.Index(text, substr)
	if i < 0 {
		t.Fatalf("%q not in the text", substr)
	}
	return strings.Count(text[:i], "\n")
}

// TestRedefinedAsYouType: the unsaved buffer, not the saved file, is
// compared with the base; the finding is at its line, with the rule as its
// code, the docs link and the operations it reaches.
func TestRedefinedAsYouType(t *testing.T) {
	c, uri := openOne(t, "api/orders.yaml", orders)
	if ds := c.waitDiagnostics(uri, 1, func([]diagnostic) bool { return true }); len(ds) != 0 {
		t.Fatalf("the unchanged file shows %v", codes(ds))
	}
	changed := strings.Replace(orders, "type: number", "type: integer", 1)
	c.edit(uri, 2, changed)
	ds := c.waitDiagnostics(uri, 2, has("field-redefined"))
	i := slices.IndexFunc(ds, func(d diagnostic) bool { return d.Code == "field-redefined" })
	d := ds[i]
	if want := lineOf(t, changed, "price:"); d.Range.Start.Line != want {
		t.Errorf("field-redefined at line %d, want %d (price:)", d.Range.Start.Line, want)
	}
	if d.CodeDescription == nil || d.CodeDescription.Href != "https://example.com/rules" || d.Severity != severityError || d.Source != "contractlint" {
		t.Errorf("diagnostic %+v: want the docs link, severity error, source contractlint", d)
	}
	if len(d.RelatedInformation) != 1 || d.RelatedInformation[0].Message != "reaches GET /v1/orders/{id}" ||
		d.RelatedInformation[0].Location.Range.Start.Line != lineOf(t, changed, "    get:") {
		t.Errorf("related information %+v: want the operation it reaches, at its line", d.RelatedInformation)
	}
	// Undoing the edit clears it.
	c.edit(uri, 3, orders)
	c.waitDiagnostics(uri, 3, lacks("field-redefined"))
}

// TestIncrementalChange: a ranged change (what editors send) edits the
// buffer in place.
func TestIncrementalChange(t *testing.T) {
	c, uri := openOne(t, "orders.yaml", orders)
	line := lineOf(t, orders, "type: number")
	col := strings.Index(strings.Split(orders, "\n")[line], "number")
	c.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"range": span{Start: position{line, col}, End: position{line, col + len("number")}},
			"text": "integer"}}})
	c.waitDiagnostics(uri, 2, has("field-redefined"))
}

// TestUnparsableBuffer: a buffer that does not parse gives one diagnostic
// at the error, and the server goes on serving the next edit.
func TestUnparsableBuffer(t *testing.T) {
	c, uri := openOne(t, "orders.yaml", orders)
	broken := strings.Replace(orders, "        price:\n", "        price: [\n", 1)
	c.edit(uri, 2, broken)
	ds := c.waitDiagnostics(uri, 2, func(ds []diagnostic) bool { return len(ds) > 0 })
	if len(ds) != 1 || ds[0].Code != "contract-unreadable" {
		t.Fatalf("a broken buffer shows %+v, want one contract-unreadable diagnostic", ds)
	}
	if ds[0].Range.Start.Line < lineOf(t, broken, "price: [") {
		t.Errorf("the parse error is shown at line %d, before the error (line %d)", ds[0].Range.Start.Line, lineOf(t, broken, "price: ["))
	}
	c.edit(uri, 3, strings.Replace(orders, "type: number", "type: integer", 1))
	c.waitDiagnostics(uri, 3, has("field-redefined"))
}

// TestBaseNotFound: a base the repository lacks is one message naming the
// git command that fetches it; the server still answers.
func TestBaseNotFound(t *testing.T) {
	r := newRepo(t, map[string]string{"orders.yaml": orders})
	c := start(t, r, testOptions(), map[string]any{"base": "origin/release"})
	m := c.waitShown(func(showMessageParams) bool { return true })
	if m.Type != messageError || !strings.Contains(m.Message, "git fetch origin origin/release") {
		t.Errorf("shown %+v, want an error naming `git fetch origin origin/release`", m)
	}
	if res := c.request("textDocument/hover", hoverParams{TextDocument: textDocumentIdentifier{URI: r.uri("orders.yaml")}}); res.Error != nil {
		t.Errorf("hover after a missing base: %v", res.Error)
	}
	c.mu.Lock()
	n := len(c.shown)
	c.mu.Unlock()
	if n != 1 {
		t.Errorf("%d messages shown, want 1", n)
	}
}

// TestLifecycle: requests before initialize are refused, an unknown
// request is answered with MethodNotFound, and shutdown then exit ends
// the server cleanly.
func TestLifecycle(t *testing.T) {
	r := newRepo(t, map[string]string{"orders.yaml": orders})
	c := start(t, r, testOptions(), nil)
	if res := c.request("workspace/symbol", map[string]any{"query": "x"}); res.Error == nil || res.Error.Code != codeMethodNotFound {
		t.Errorf("workspace/symbol: %+v, want MethodNotFound", res.Error)
	}
	if res := c.request("shutdown", nil); res.Error != nil || string(res.Result) != "null" {
		t.Errorf("shutdown: result %s, error %v; want null", res.Result, res.Error)
	}
	c.notify("exit", nil)
	if err := <-c.done; err != nil {
		t.Errorf("after shutdown and exit, Serve returned %v", err)
	}
	c.done <- nil // for the cleanup
}

func TestNotInitialized(t *testing.T) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go Serve(t.Context(), sr, sw, testOptions())
	conn := newConn(cr, cw)
	conn.write(&message{ID: json.RawMessage("1"), Method: "textDocument/hover", Params: json.RawMessage(`{}`)})
	m, err := conn.read()
	if err != nil || m.Error == nil || m.Error.Code != codeNotInitialized {
		t.Errorf("hover before initialize: %+v %v, want ServerNotInitialized", m, err)
	}
	cw.Close()
}

// TestHover shows the flagging rule's own documentation.
func TestHover(t *testing.T) {
	c, uri := openOne(t, "orders.yaml", orders)
	changed := strings.Replace(orders, "type: number", "type: integer", 1)
	c.edit(uri, 2, changed)
	c.waitDiagnostics(uri, 2, has("field-redefined"))
	res := c.request("textDocument/hover", hoverParams{TextDocument: textDocumentIdentifier{URI: uri},
		Position: position{Line: lineOf(t, changed, "price:"), Character: 10}})
	var h hover
	if err := json.Unmarshal(res.Result, &h); err != nil {
		t.Fatalf("hover: %s %v", res.Result, err)
	}
	reg := testOptions()
	ro, _, _ := reg.Configure("", "")
	rule, _ := ro.Pipeline.Registry.Get("field-redefined")
	for _, want := range []string{"**field-redefined**", rule.Doc.Title, rule.Doc.Text, "Bad:", "Good:"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	res = c.request("textDocument/hover", hoverParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: position{Line: 0}})
	if string(res.Result) != "null" {
		t.Errorf("hover on an unflagged line: %s, want null", res.Result)
	}
}

// actions asks for the code actions at a diagnostic.
func (c *client) actions(uri string, d diagnostic) []codeAction {
	c.t.Helper()
	res := c.request("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{URI: uri}, Range: d.Range,
		Context: struct {
			Diagnostics []diagnostic `json:"diagnostics"`
		}{[]diagnostic{d}}})
	var as []codeAction
	if err := json.Unmarshal(res.Result, &as); err != nil {
		c.t.Fatalf("codeAction: %s %v", res.Result, err)
	}
	return as
}

func find(ds []diagnostic, code string) diagnostic {
	for _, d := range ds {
		if d.Code == code {
			return d
		}
	}
	return diagnostic{}
}

func pick(t *testing.T, as []codeAction, prefix string) codeAction {
	t.Helper()
	for _, a := range as {
		if strings.HasPrefix(a.Title, prefix) {
			return a
		}
	}
	t.Fatalf("no action %q among %+v", prefix, as)
	return codeAction{}
}

// TestReserveAction: deleting a proto field offers to reserve its number
// and name, and applying the edit clears both diagnostics.
func TestReserveAction(t *testing.T) {
	c, uri := openOne(t, "shop.proto", shop)
	deleted := strings.Replace(shop, "  string note = 2;\n", "", 1)
	c.edit(uri, 2, deleted)
	ds := c.waitDiagnostics(uri, 2, has("proto-field-removed-unreserved-name"))
	d := find(ds, "proto-field-removed-unreserved-name")
	if d.Range.Start.Line != lineOf(t, deleted, "message Order") {
		t.Errorf("the deletion is shown at line %d, want the message (line %d)", d.Range.Start.Line, lineOf(t, deleted, "message Order"))
	}
	a := pick(t, c.actions(uri, d), "Reserve note's number 2")
	fixed := applyEdits(t, deleted, a.Edit.Changes[uri])
	if !strings.Contains(fixed, "message Order {\n  reserved 2;\n  reserved \"note\";\n  string id = 1;") {
		t.Fatalf("the action wrote:\n%s", fixed)
	}
	c.edit(uri, 3, fixed)
	c.waitDiagnostics(uri, 3, func(ds []diagnostic) bool {
		return lacks("proto-field-removed-unreserved-number")(ds) && lacks("proto-field-removed-unreserved-name")(ds)
	})
}

// TestExpandAction: a redefined field is offered the expand step, which
// leaves nothing redefined.
func TestExpandAction(t *testing.T) {
	c, uri := openOne(t, "orders.yaml", orders)
	changed := strings.Replace(orders, "type: number\n          description: Ticket price in dollars.",
		"type: integer\n          description: Ticket price in cents.", 1)
	c.edit(uri, 2, changed)
	ds := c.waitDiagnostics(uri, 2, has("field-redefined"))
	a := pick(t, c.actions(uri, find(ds, "field-redefined")), "Expand: keep price as it was, add price_cents")
	fixed := applyEdits(t, changed, a.Edit.Changes[uri])
	if !strings.Contains(fixed, "        price:\n          type: number\n          description: Ticket price in dollars.\n"+
		"        price_cents:\n          type: integer\n          description: Ticket price in cents.\n") {
		t.Fatalf("the action wrote:\n%s", fixed)
	}
	c.edit(uri, 3, fixed)
	c.waitDiagnostics(uri, 3, lacks("field-redefined"))
}

const charges = `openapi: 3.0.3
info: {title: Charges, version: "1"}
paths:
  /v1/charges:
    get:
      responses:
        '200': {description: the charges}
`

// TestKeyAction: a new POST without an Idempotency-Key is offered the
// header parameter, which clears the finding.
func TestKeyAction(t *testing.T) {
	c, uri := openOne(t, "charges.yaml", charges)
	changed := charges + "    post:\n      responses:\n        '201': {description: charged}\n"
	c.edit(uri, 2, changed)
	// The API has no key convention: the finding is the warning saying how
	// to adopt one, and the action adopts it.
	ds := c.waitDiagnostics(uri, 2, has(rules.KeyNotAdoptedID))
	a := pick(t, c.actions(uri, find(ds, rules.KeyNotAdoptedID)), "Add a required Idempotency-Key header")
	fixed := applyEdits(t, changed, a.Edit.Changes[uri])
	if !strings.Contains(fixed, "    post:\n      parameters:\n        - name: Idempotency-Key\n          in: header\n          required: true\n") {
		t.Fatalf("the action wrote:\n%s", fixed)
	}
	c.edit(uri, 3, fixed)
	c.waitDiagnostics(uri, 3, lacks(rules.KeyNotAdoptedID))
}

// TestAcceptAction: accepting a finding writes a scoped ignore with a
// reason to fill in. Left as written, the placeholder is refused at its
// line; once the author writes a reason, the pipeline honours the ignore.
func TestAcceptAction(t *testing.T) {
	c, uri := openOne(t, "shop.proto", shop)
	deleted := strings.Replace(shop, "  string note = 2;\n", "", 1)
	c.edit(uri, 2, deleted)
	ds := c.waitDiagnostics(uri, 2, has("proto-field-removed-unreserved-name"))
	a := pick(t, c.actions(uri, find(ds, "proto-field-removed-unreserved-name")), "Accept proto-field-removed-unreserved-name")
	fixed := applyEdits(t, deleted, a.Edit.Changes[uri])
	if !strings.Contains(fixed, "// contractlint:ignore proto-field-removed-unreserved-name element=note "+reasonPlaceholder+"\nmessage Order {") {
		t.Fatalf("the action wrote:\n%s", fixed)
	}
	c.edit(uri, 3, fixed)
	c.waitDiagnostics(uri, 3, func(ds []diagnostic) bool {
		return slices.ContainsFunc(ds, func(d diagnostic) bool {
			return d.Code == "contract-unreadable" && strings.Contains(d.Message, "needs a reason, not the placeholder")
		}) && placeholderMarked(fixed)(ds)
	})
	written := strings.Replace(fixed, reasonPlaceholder, "notes moved to the audit log", 1)
	c.edit(uri, 4, written)
	c.waitDiagnostics(uri, 4, func(ds []diagnostic) bool {
		return lacks("proto-field-removed-unreserved-name")(ds) && has("proto-field-removed-unreserved-number")(ds)
	})
}

// placeholderMarked reports whether ds holds, on each line of text that
// carries the Accept action's placeholder, an error saying to replace it.
func placeholderMarked(text string) func([]diagnostic) bool {
	return func(ds []diagnostic) bool {
		for i, l := range strings.Split(text, "\n") {
			if !strings.Contains(l, reasonPlaceholder) {
				continue
			}
			if !slices.ContainsFunc(ds, func(d diagnostic) bool {
				return d.Range.Start.Line == i && d.Severity == severityError && d.Message == "replace the reason: a placeholder accepts nothing"
			}) {
				return false
			}
		}
		return true
	}
}

// TestAcceptActionSnippet: a client that takes snippet edits gets the
// Accept action's reason as a tab stop to type over, in both contract
// formats; what it inserts, the tab stop left as it is, is the plain
// edit's text, so the placeholder is still refused and marked until
// replaced. window/showMessageRequest cannot ask for text (its answers are
// buttons), so the reason is asked for where it is written.
func TestAcceptActionSnippet(t *testing.T) {
	caps := map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{"snippetEditSupport": true}}}
	for _, tc := range []struct{ name, text, before, after, rule string }{
		{"shop.proto", shop, "  string note = 2;\n", "", "proto-field-removed-unreserved-name"},
		{"api/orders.yaml", orders, "        price:\n          type: number\n          description: Ticket price in dollars.\n", "", "response-property-removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t, map[string]string{tc.name: tc.text})
			c := startWith(t, r, testOptions(), nil, caps)
			uri := r.uri(tc.name)
			c.open(uri, tc.text)
			changed := strings.Replace(tc.text, tc.before, tc.after, 1)
			c.edit(uri, 2, changed)
			ds := c.waitDiagnostics(uri, 2, has(tc.rule))
			a := pick(t, c.actions(uri, find(ds, tc.rule)), "Accept "+tc.rule)
			if len(a.Edit.Changes) != 0 || len(a.Edit.DocumentChanges) != 1 || a.Edit.DocumentChanges[0].TextDocument.URI != uri {
				t.Fatalf("the action's edit = %+v, want one snippet edit of %s", a.Edit, uri)
			}
			var edits []textEdit
			for _, e := range a.Edit.DocumentChanges[0].Edits {
				if e.Snippet.Kind != "snippet" || !strings.Contains(e.Snippet.Value, "${1:"+reasonPlaceholder+"}") {
					t.Fatalf("snippet %+v: want the reason as tab stop 1", e.Snippet)
				}
				edits = append(edits, textEdit{Range: e.Range, NewText: unsnippet(e.Snippet.Value)})
			}
			fixed := applyEdits(t, changed, edits)
			if !strings.Contains(fixed, reasonPlaceholder) {
				t.Fatalf("the snippet, left as it is, wrote:\n%s", fixed)
			}
			c.edit(uri, 3, fixed)
			c.waitDiagnostics(uri, 3, placeholderMarked(fixed))
		})
	}
}

// unsnippet is what a client inserts for a snippet whose tab stops the
// user leaves as they are: their default text, unescaped.
func unsnippet(v string) string {
	v = strings.NewReplacer("${1:", "").Replace(v)
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case v[i] == '}':
			// the tab stop's end (escaped braces were taken above)
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// TestRefChange: editing a $ref'd file shows the findings it causes, in
// that file, through the root that reaches it, and re-judges the open root.
func TestRefChange(t *testing.T) {
	root := strings.Replace(orders, "$ref: '#/components/schemas/Order'", "$ref: 'schemas.yaml#/Order'", 1)
	root = root[:strings.Index(root, "components:")]
	schemas := "Order:\n  type: object\n  properties:\n    id: {type: string}\n    price:\n      type: number\n"
	r := newRepo(t, map[string]string{"api/orders.yaml": root, "api/schemas.yaml": schemas})
	c := start(t, r, testOptions(), nil)
	ruri, suri := r.uri("api/orders.yaml"), r.uri("api/schemas.yaml")
	c.open(ruri, root)
	c.waitDiagnostics(ruri, 1, func([]diagnostic) bool { return true })
	c.open(suri, schemas)
	changed := strings.Replace(schemas, "type: number", "type: integer", 1)
	c.edit(suri, 2, changed)
	ds := c.waitDiagnostics(suri, 0, has("field-redefined"))
	d := find(ds, "field-redefined")
	if d.Range.Start.Line != lineOf(t, changed, "price:") {
		t.Errorf("field-redefined at line %d, want %d", d.Range.Start.Line, lineOf(t, changed, "price:"))
	}
	// A root that is not open reaches it too: closing the root keeps the
	// finding, judged through the work tree's contracts.
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": ruri}})
	c.edit(suri, 3, changed+"\n")
	c.waitDiagnostics(suri, 3, has("field-redefined"))
}

// TestMalformedMessage: a body that is not JSON is answered with a parse
// error, and the next request is served.
func TestMalformedMessage(t *testing.T) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go Serve(t.Context(), sr, sw, testOptions())
	defer cw.Close()
	conn := newConn(cr, cw)
	go io.WriteString(cw, "Content-Length: 5\r\n\r\n{oops")
	m, err := conn.read()
	if err != nil || m.Error == nil || m.Error.Code != codeParseError {
		t.Fatalf("a malformed body: %+v %v, want a parse error", m, err)
	}
	conn.write(&message{ID: json.RawMessage("2"), Method: "shutdown"})
	if m, err = conn.read(); err != nil || m.Error == nil || m.Error.Code != codeNotInitialized || string(m.ID) != "2" {
		t.Errorf("the request after it: %+v %v, want its own answer", m, err)
	}
}

// TestUpperCaseExtensions: a contract is known by its extension whatever
// its case, as review selects it: an edited API.YAML and T.PROTO show their
// findings, and a change to COMMON.PROTO, which no glob selects, is judged
// through ORDER.PROTO, the root that imports it.
func TestUpperCaseExtensions(t *testing.T) {
	common := "syntax = \"proto3\";\npackage shop.v1;\nmessage Money {\n  int64 units = 1;\n  string currency = 2;\n}\n"
	root := "syntax = \"proto3\";\npackage shop.v1;\nimport \"api/COMMON.PROTO\";\nmessage Order {\n  Money price = 1;\n}\n"
	r := newRepo(t, map[string]string{"api/API.YAML": orders, "api/T.PROTO": shop, "api/COMMON.PROTO": common, "api/ORDER.PROTO": root})
	o := testOptions()
	configure := o.Configure
	o.Configure = func(dir, base string) (review.Options, chain.Chain, error) {
		ro, steps, err := configure(dir, base)
		ro.Globs = []string{"**/*.yaml", "api/T.proto", "api/ORDER.PROTO"}
		return ro, steps, err
	}
	c := start(t, r, o, nil)
	yuri, puri, ruri, curi := r.uri("api/API.YAML"), r.uri("api/T.PROTO"), r.uri("api/ORDER.PROTO"), r.uri("api/COMMON.PROTO")
	c.open(yuri, orders)
	c.edit(yuri, 2, strings.Replace(orders, "type: number", "type: integer", 1))
	c.waitDiagnostics(yuri, 2, has("field-redefined"))
	c.open(puri, shop)
	c.edit(puri, 2, strings.Replace(shop, "  string note = 2;\n", "", 1))
	c.waitDiagnostics(puri, 2, has("proto-field-removed-unreserved-name"))
	c.open(ruri, root)
	c.open(curi, common)
	c.edit(curi, 2, strings.Replace(common, "string currency", "bytes currency", 1))
	c.waitDiagnostics(curi, 2, has("proto-field-type-wire-json-incompatible"))
}

// TestStaleComparisonCancelled: an edit that arrives while the comparison
// of an older version runs cancels it, and the newest text is what is
// compared next; the older version's diagnostics are never published. The
// first comparison is held where its documents are loaded and diffed (the
// pipeline's Compared hook) until the server has taken the next edit.
func TestStaleComparisonCancelled(t *testing.T) {
	r := newRepo(t, map[string]string{"orders.yaml": orders})
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	o := testOptions()
	configure := o.Configure
	o.Configure = func(dir, base string) (review.Options, chain.Chain, error) {
		ro, steps, err := configure(dir, base)
		ro.Pipeline.Compared = func(*rules.Input) {
			// The hook makes every run a whole one, the open's too: the
			// second run is version 2's.
			if calls.Add(1) == 2 {
				close(entered)
				<-release
			}
		}
		return ro, steps, err
	}
	c := start(t, r, o, nil)
	uri := r.uri("orders.yaml")
	c.open(uri, orders)
	c.waitDiagnostics(uri, 1, func([]diagnostic) bool { return true })
	c.edit(uri, 2, strings.Replace(orders, "type: number", "type: integer", 1))
	<-entered
	c.edit(uri, 3, strings.Replace(orders, "type: number", "type: string", 1))
	// A request answered after the edit: the server has taken it.
	c.request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": position{0, 0}})
	close(release)
	c.waitDiagnostics(uri, 3, has("field-redefined"))
	if got := c.published(uri); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("versions published %v, want [1 3]: the comparison of version 2 was not cancelled when version 3 came", got)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d comparisons reached the diff, want 3 (the open's, version 2's, cancelled, and version 3's)", n)
	}
}

// TestIdleEditComparedAtOnce: an edit made while nothing is being compared
// or due is compared at once; the debounce is for the keys that follow it
// while a comparison runs. With a debounce of an hour, the open and an
// edit after its diagnostics are each published.
func TestIdleEditComparedAtOnce(t *testing.T) {
	r := newRepo(t, map[string]string{"orders.yaml": orders})
	o := testOptions()
	o.Debounce = time.Hour
	c := start(t, r, o, nil)
	uri := r.uri("orders.yaml")
	c.open(uri, orders)
	c.waitDiagnostics(uri, 1, func([]diagnostic) bool { return true })
	c.edit(uri, 2, strings.Replace(orders, "type: number", "type: integer", 1))
	c.waitDiagnostics(uri, 2, has("field-redefined"))
}
