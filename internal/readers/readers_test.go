package readers_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/rules"
)

func parseFile(t *testing.T, name string) ([]readers.Entry, []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	es, err := readers.Parse(name, data, func(s string) { warns = append(warns, s) })
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return es, warns
}

// reads lists "consumer METHOD path field" for every entry naming a field.
func reads(es []readers.Entry) []string {
	var out []string
	for _, e := range es {
		if e.Field != "" {
			op := e.Message
			if op == "" {
				op = e.Method + " " + e.Path
			}
			out = append(out, e.Consumer+" "+op+" "+e.Field)
		}
	}
	slices.Sort(out)
	return out
}

func TestPact(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"v2.json", []string{
			"tixdrop-ios-2025 GET /v1/orders/42 currency",
			"tixdrop-ios-2025 GET /v1/orders/42 id",
			"tixdrop-ios-2025 GET /v1/orders/42 items",
			"tixdrop-ios-2025 GET /v1/orders/42 items.price",
			"tixdrop-ios-2025 GET /v1/orders/42 items.sku",
			"tixdrop-ios-2025 GET /v1/orders/42 price",
		}},
		{"v3.json", []string{
			"web GET /v1/orders first name",
			"web GET /v1/orders id",
			"web GET /v1/orders price_cents",
		}},
		{"v4.json", []string{
			"android GET /api/v1/orders/7 id",
			"android GET /api/v1/orders/7 items.sku",
			"android GET /api/v1/orders/7 price_cents",
			"android GET /v1/orders/latest total",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			es, warns := parseFile(t, tc.file)
			if got := reads(es); !slices.Equal(got, tc.want) {
				t.Errorf("reads:\n got %q\nwant %q", got, tc.want)
			}
			if len(warns) > 0 {
				t.Errorf("unexpected warnings %q", warns)
			}
			for _, e := range es {
				if !e.LastSeen.IsZero() || e.File != tc.file || !strings.HasPrefix(e.Where, "interaction ") {
					t.Errorf("entry %+v: a Pact entry reads now and names its file and interaction", e)
				}
			}
		})
	}
}

func TestUsage(t *testing.T) {
	for _, file := range []string{"usage.csv", "usage.json"} {
		t.Run(file, func(t *testing.T) {
			es, _ := parseFile(t, file)
			var ios, billing *readers.Entry
			for i := range es {
				switch es[i].Consumer {
				case "tixdrop-ios-2025":
					ios = &es[i]
				case "billing":
					billing = &es[i]
				}
			}
			if ios == nil || ios.Method != "GET" || ios.Path != "/v1/orders/{id}" || ios.Field != "price" ||
				ios.Reads != 1204 || !ios.LastSeen.Equal(time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("ios entry = %+v", ios)
			}
			if billing == nil || billing.Message != "tixdrop.orders.v1.OrderReply" || billing.Method != "" {
				t.Errorf("billing entry = %+v", billing)
			}
		})
	}
}

// A usage row without a field records calls of an operation or rpc.
func TestOperationRows(t *testing.T) {
	data := "consumer,operation,field,reads,last_seen\n" +
		"ios,GET /v1/orders/{id},,12,2026-02-01\n" +
		"billing,/tixdrop.orders.v1.Orders/GetOrder,,3,2026-02-02\n" +
		"batch,tixdrop.orders.v1.Orders.ListOrders,,0,2024-09-30\n"
	es, err := readers.Parse("usage.csv", []byte(data), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || es[0].Method != "GET" || es[0].Field != "" || es[0].Reads != 12 ||
		es[1].RPC != "tixdrop.orders.v1.Orders.GetOrder" || es[2].RPC != "tixdrop.orders.v1.Orders.ListOrders" || es[2].Message != "" {
		t.Fatalf("entries = %+v", es)
	}
	set := &readers.Set{Entries: es, Window: readers.DefaultWindow, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	proto := &rules.Contract{Format: rules.Proto, Operations: []*rules.Operation{
		{ID: "tixdrop.orders.v1.Orders.GetOrder"}, {ID: "tixdrop.orders.v1.Orders.ListOrders"}}}
	ev, err := set.Bind(rules.Proto, proto)
	if err != nil {
		t.Fatal(err)
	}
	if calls := ev.Calls("tixdrop.orders.v1.Orders.GetOrder"); len(calls) != 1 || calls[0].Consumer != "billing" || calls[0].Reads != 3 {
		t.Errorf("GetOrder calls = %+v", calls)
	}
	if calls := ev.Calls("tixdrop.orders.v1.Orders.ListOrders"); len(calls) != 0 || !ev.Knows("tixdrop.orders.v1.Orders.ListOrders") {
		t.Errorf("ListOrders: calls %+v, known %v; want known with no calls", calls, ev.Knows("tixdrop.orders.v1.Orders.ListOrders"))
	}
	other := &rules.Contract{Format: rules.Proto, Operations: []*rules.Operation{{ID: "tixdrop.orders.v1.Orders.ListOrders"}}}
	if _, err := set.Bind(rules.Proto, other); err == nil || !strings.Contains(err.Error(), "rpc tixdrop.orders.v1.Orders.GetOrder is not in the contract") {
		t.Errorf("an rpc the contract lacks: err = %v", err)
	}
}

func TestBadEvidence(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"bad.json", "{\n  \"consumer\": {\"name\": \"x\"},\n  oops\n}", "bad.json:3:3: not JSON"},
		{"old.json", `{"consumer":{"name":"x"},"interactions":[],"metadata":{"pactSpecification":{"version":"1.1.0"}}}`,
			`old.json: unknown Pact specification version "1.1.0"`},
		{"nover.json", `{"consumer":{"name":"x"},"interactions":[]}`, "nover.json: not a Pact file: metadata.pactSpecification.version is missing"},
		{"norequest.json", `{"consumer":{"name":"x"},"interactions":[{"description":"d","response":{}}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`,
			`norequest.json: interaction 1 ("d"): request has no method or path`},
		{"usage.csv", "consumer,operation,field,reads\n", `usage.csv:1: usage file: header lacks column "last_seen"`},
		{"usage.csv", "consumer,operation,field,reads,last_seen\nweb,orders,price,1,2026-01-01\n", `usage.csv:2: operation "orders": want`},
		{"usage.csv", "consumer,operation,field,reads,last_seen\nweb,GET /x,price,many,2026-01-01\n", `usage.csv:2: reads "many"`},
		{"usage.csv", "consumer,operation,field,reads,last_seen\nweb,GET /x,price,1,yesterday\n", `usage.csv:2: last_seen "yesterday"`},
		{"usage.json", `[{"consumer":"","operation":"GET /x","field":"","reads":1,"last_seen":"2026-01-01"}]`, "usage.json: entry 1: consumer is empty"},
		{"usage.csv", "consumer,operation,field,reads,last_seen\nweb,/pkg.Svc/,,1,2026-01-01\n", `usage.csv:2: operation "/pkg.Svc/": want`},
		{"usage.csv", "consumer,operation,field,reads,last_seen\nweb,/orders/list,,1,2026-01-01\n", `usage.csv:2: operation "/orders/list": want`},
		{"scalar.json", `42`, "scalar.json: expected a Pact file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readers.Parse(tc.name, []byte(tc.data), func(string) {})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want it to contain %q", err, tc.want)
			}
		})
	}
}

func contract() *rules.Contract {
	c := &rules.Contract{Format: rules.OpenAPI}
	for _, id := range []string{"GET /v1/orders", "GET /v1/orders/{id}", "GET /v1/orders/latest"} {
		c.Operations = append(c.Operations, &rules.Operation{ID: id})
	}
	return c
}

func TestBind(t *testing.T) {
	var es []readers.Entry
	for _, f := range []string{"v2.json", "v3.json", "v4.json", "usage.csv"} {
		e, _ := parseFile(t, f)
		es = append(es, e...)
	}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	set := &readers.Set{Entries: es, Window: readers.DefaultWindow, Now: now}
	ev, err := set.Bind(rules.OpenAPI, contract())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ev.Since(), now.Add(-30*24*time.Hour); !got.Equal(want) {
		t.Errorf("Since = %v; want %v", got, want)
	}
	consumers := func(op, field string) []string {
		var out []string
		for _, r := range ev.Readers(op, field) {
			out = append(out, r.Consumer)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		op, field string
		want      []string
	}{
		// Pact v2 (concrete path: price and, as a tail, items.price) and
		// the usage file (a template); Pact v4 under a base path.
		{"GET /v1/orders/{id}", "price", []string{"tixdrop-ios-2025", "tixdrop-ios-2025", "tixdrop-ios-2025"}},
		{"GET /v1/orders/{id}", "$.price", []string{"tixdrop-ios-2025", "tixdrop-ios-2025"}},
		{"GET /v1/orders/{id}", "price_cents", []string{"android"}},
		// A tail matches nested reads; an anchored path does not.
		{"GET /v1/orders/{id}", "sku", []string{"android", "tixdrop-ios-2025"}},
		{"GET /v1/orders/{id}", "$.sku", nil},
		{"GET /v1/orders/{id}", "$.items.price", []string{"tixdrop-ios-2025"}},
		// The literal template wins over {id}.
		{"GET /v1/orders/latest", "total", []string{"android"}},
		{"GET /v1/orders", "price_cents", []string{"web"}},
	} {
		if got := consumers(tc.op, tc.field); !slices.Equal(got, tc.want) {
			t.Errorf("Readers(%s, %s) = %q; want %q", tc.op, tc.field, got, tc.want)
		}
	}
	if !ev.Knows("GET /v1/orders/latest") || ev.Knows("DELETE /v1/orders/{id}") || ev.Knows("tixdrop.orders.v1.OrderReply") {
		t.Error("Knows: want the operations the evidence covers, and only those")
	}
}

func TestBindUnmatched(t *testing.T) {
	es, _ := parseFile(t, "usage.csv")
	set := &readers.Set{Entries: es, Window: readers.DefaultWindow}
	c := &rules.Contract{Format: rules.OpenAPI, Operations: []*rules.Operation{{ID: "GET /v2/things"}}}
	_, err := set.Bind(rules.OpenAPI, c)
	if err == nil || !strings.Contains(err.Error(), "usage.csv: line 2: GET /v1/orders/{id} matches no operation of the contract") {
		t.Fatalf("error = %v", err)
	}
	p := &rules.Contract{Format: rules.Proto, Messages: []*rules.Message{{Name: "tixdrop.orders.v1.Other"}}}
	if _, err := set.Bind(rules.Proto, p); err == nil || !strings.Contains(err.Error(), "message tixdrop.orders.v1.OrderReply is not in the contract") {
		t.Fatalf("proto error = %v", err)
	}
	p.Messages = append(p.Messages, &rules.Message{Name: "tixdrop.orders.v1.OrderReply"})
	ev, err := set.Bind(rules.Proto, p)
	if err != nil || len(ev.Readers("tixdrop.orders.v1.OrderReply", "price")) != 1 {
		t.Fatalf("proto bind = %v, %v", ev, err)
	}
	var none *readers.Set
	if ev, err := none.Bind(rules.OpenAPI, c); ev != nil || err != nil {
		t.Fatalf("nil set bound to %v, %v; want nil evidence", ev, err)
	}
}

func TestLoadDirectory(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"a/usage.csv": "consumer,operation,field,reads,last_seen\nweb,GET /v1/orders,id,3,2026-01-01\n",
		"notes.txt":   "not evidence",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var warns []string
	set, err := readers.Load(dir, []string{dir}, time.Hour, time.Now(), 1<<20, func(s string) { warns = append(warns, s) })
	if err != nil || len(set.Entries) != 1 {
		t.Fatalf("Load = %v, %v", set, err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "notes.txt: not a .json, .jsonl, .har, .log or .csv file") {
		t.Errorf("warnings = %q", warns)
	}
	if _, err := readers.Load(dir, []string{filepath.Join(dir, "missing.json")}, time.Hour, time.Now(), 1<<20, func(string) {}); err == nil {
		t.Error("a missing readers file must be an error")
	}
	// Evidence comes with the same untrusted change as the contracts: the
	// file-size limit holds for it too.
	_, err = readers.Load(dir, []string{dir}, time.Hour, time.Now(), 8, func(string) {})
	if err == nil || !strings.Contains(err.Error(), "larger than the limit of 8 bytes on one file (raise it with --max-file-size)") {
		t.Errorf("an evidence file over the size limit: err = %v", err)
	}
}

func TestParseWindow(t *testing.T) {
	for s, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "4w": 28 * 24 * time.Hour, "720h": 720 * time.Hour, "1.5d": 36 * time.Hour} {
		if got, err := readers.ParseWindow(s); err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "soon", "-3d", "d"} {
		if _, err := readers.ParseWindow(s); err == nil {
			t.Errorf("ParseWindow(%q) accepted", s)
		}
	}
}
