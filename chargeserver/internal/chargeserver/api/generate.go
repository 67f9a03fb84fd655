package api

// The Go code for charges.proto (chargesv1, chargesv1connect) is generated
// by the pinned protoc-gen-go and protoc-gen-connect-go (tool directives in
// go.mod), driven by ./protogen without protoc or the network.
//
//go:generate go run ./protogen
