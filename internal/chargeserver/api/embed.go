// Package api holds the charge server's contracts. openapi.yaml is the source
// of truth: the server serves it and the tests validate every response
// against it, so the code cannot drift from the contract.
package api

import _ "embed"

// openAPI is the document's bytes; OpenAPI returns a copy so no caller can
// change what the server serves.
//
//go:embed openapi.yaml
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 document.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

// Proto returns the Protocol Buffers contract.
func Proto() []byte { return append([]byte(nil), proto...) }

//go:embed charges.proto
var proto []byte
