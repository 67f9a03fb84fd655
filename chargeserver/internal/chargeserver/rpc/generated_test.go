package rpc

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
	chargesv1 "github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1"
)

// TestGeneratedCodeIsCurrent fails when charges.proto changed and
// `go generate ./chargeserver/internal/chargeserver/api` was not run: the descriptor
// compiled into chargesv1 must be the one the proto compiles to.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"charges.proto": string(api.Proto())}),
	})}
	files, err := c.Compile(context.Background(), "charges.proto")
	if err != nil {
		t.Fatal(err)
	}
	want := protodesc.ToFileDescriptorProto(files[0])
	got := protodesc.ToFileDescriptorProto(chargesv1.File_charges_proto)
	if !proto.Equal(got, want) {
		t.Fatalf("chargesv1 was generated from another charges.proto; run go generate ./chargeserver/internal/chargeserver/api")
	}
}
