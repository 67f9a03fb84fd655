package lsp

import (
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// ordersJSON is orders (server_test.go) minified: one line.
const ordersJSON = `{"openapi":"3.0.3","info":{"title":"Orders","version":"1"},"paths":{"/v1/orders/{id}":{"get":{"operationId":"getOrder","responses":{"200":{"description":"the order","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Order"}}}}}}}},"components":{"schemas":{"Order":{"type":"object","properties":{"id":{"type":"string"},"price":{"type":"number"}}}}}}`

// ordersFlow is orders with paths and the schema written in flow style
// over several lines (a path with a parameter is quoted there: braces
// are flow indicators).
const ordersFlow = `openapi: 3.0.3
info: {title: Orders, version: "1"}
paths: {
  '/v1/orders/{id}': {get: {operationId: getOrder,
    responses: {'200': {description: the order}}}}}
components: {schemas: {Order: {type: object,
  properties: {id: {type: string},
    price: {type: number}}}}}
`

// TestPlacesEveryLayout: a removed element's enclosing place and the
// operations a finding reaches are placed in JSON, minified or not, and in
// flow-style YAML, as in block YAML.
func TestPlacesEveryLayout(t *testing.T) {
	cases := []struct {
		name, text string
		// where price and the operation are: line (0-based) and, for
		// the one-line JSON, the character
		price, get position
	}{
		{"block", orders, position{lineOf(t, orders, "        price:"), 8}, position{lineOf(t, orders, "    get:"), 4}},
		{"minified json", ordersJSON, position{0, strings.Index(ordersJSON, `"price"`)}, position{0, strings.Index(ordersJSON, `"get"`)}},
		{"flow yaml", ordersFlow, position{7, 4}, position{3, 22}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &rules.Finding{Format: rules.OpenAPI, Path: "#/components/schemas/Order/properties/price/maximum", Removed: true}
			if got := enclosing(c.text, f).Start; got != c.price {
				t.Errorf("enclosing place %+v, want price's %+v", got, c.price)
			}
			if line, matched := pointerLine(c.text, f.Path); matched != 5 || line != c.price.Line {
				t.Errorf("pointer line %d (%d segments), want %d (5)", line, matched, c.price.Line)
			}
			at := span{Start: position{99, 0}}
			if got := newPlaces(c.text).operationSpan(rules.OpenAPI, "GET /v1/orders/{id}", at).Start; got != c.get {
				t.Errorf("operation placed at %+v, want %+v", got, c.get)
			}
		})
	}
}
