// Package api holds the charge server's contracts. openapi.yaml is the source
// of truth: the server serves it and the tests validate every response
// against it, so the code cannot drift from the contract.
package api

import (
	"bytes"
	_ "embed"
	"slices"
	"strings"
)

// openAPI is the document's bytes; OpenAPI returns a copy so no caller can
// change what the server serves.
//
//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 document.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

// DefaultCurrencies are the currencies openapi.yaml lists, the server's
// default --currencies.
var DefaultCurrencies = []string{"AUD", "CAD", "CHF", "EUR", "GBP", "JPY", "NZD", "SEK", "USD"}

// exampleCurrency is the currency of the document's examples.
const exampleCurrency = "GBP"

// OpenAPIFor is the document for a server that accepts currencies (each
// three capital letters, as the server's configuration requires): their
// enum in place of the default one, and the examples in the first of them
// when they leave out the examples' currency. A client, or replay, reading
// the served document then sends a currency the server accepts.
func OpenAPIFor(currencies []string) []byte {
	doc := OpenAPI()
	if slices.Equal(currencies, DefaultCurrencies) {
		return doc
	}
	doc = bytes.Replace(doc, []byte("enum: ["+strings.Join(DefaultCurrencies, ", ")+"]"),
		[]byte("enum: ["+strings.Join(currencies, ", ")+"]"), 1)
	if !slices.Contains(currencies, exampleCurrency) {
		for _, prefix := range []string{"currency: ", "example: "} {
			doc = bytes.ReplaceAll(doc, []byte(prefix+exampleCurrency), []byte(prefix+currencies[0]))
		}
	}
	return doc
}

// Proto returns the Protocol Buffers contract.
func Proto() []byte { return append([]byte(nil), proto...) }

//go:embed charges.proto
var proto []byte
