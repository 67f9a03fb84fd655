package replay_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/chargetest"
	"github.com/contractlint/contractlint/internal/replay"
	"github.com/contractlint/contractlint/rules"
)

// compileProto compiles one .proto text, with its places.
func compileProto(t *testing.T, text string) []protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"charges.proto": text})}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), "charges.proto")
	if err != nil {
		t.Fatal(err)
	}
	return []protoreflect.FileDescriptor{files[0]}
}

func placed(d protoreflect.Descriptor) rules.Location {
	loc := d.ParentFile().SourceLocations().ByDescriptor(d)
	return rules.Location{File: d.ParentFile().Path(), Line: loc.StartLine + 1, Column: loc.StartColumn + 1}
}

// replayRPC plays files' clients against the charge server over scheme.
func replayRPC(t *testing.T, scheme string, files []protoreflect.FileDescriptor) []rules.Finding {
	t.Helper()
	base, _ := chargetest.Start(t, map[string]string{"sk_replay": "acct_replay"})
	u, _ := url.Parse(scheme + "://" + strings.TrimPrefix(base, "http://"))
	fx := replay.Fixtures{"CreateCharge": {Body: map[string]any{"amount_cents": 4000, "currency": "GBP", "card_token": "tok_visa", "description": "tea"}}}
	plan, err := replay.NewRPCPlan(files, replay.Options{Fixtures: fx, SideEffects: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := replay.RunRPC(context.Background(), plan, &replay.Config{Base: u, Header: auth, MaxRequests: 100, MaxTime: time.Minute}, placed, rules.Default())
	if rep.Unreachable != nil || rep.Sent != len(plan.Calls) {
		t.Fatalf("sent %d of %d: %v", rep.Sent, len(plan.Calls), rep.Unreachable)
	}
	return rep.Findings
}

// TestRPCReplay: the server's own charges.proto replays clean over gRPC;
// an older one that promised Charge.receipt_url gets it reported at its
// line, over Connect too.
func TestRPCReplay(t *testing.T) {
	if fs := replayRPC(t, "grpc", compileProto(t, string(api.Proto()))); len(fs) != 0 {
		t.Fatalf("the server's own contract: %v", fs)
	}
	old := strings.Replace(string(api.Proto()), "  string created_at = 6;\n", "  string created_at = 6;\n  string receipt_url = 7;\n", 1)
	line := strings.Count(old[:strings.Index(old, "string receipt_url")], "\n") + 1
	fs := replayRPC(t, "connect", compileProto(t, old))
	if len(fs) != 1 || fs[0].Rule != rules.ReplayResponseInvalid || fs[0].Where.Line != line || !strings.Contains(fs[0].Message, "Charge.receipt_url (field 7)") {
		t.Fatalf("got %v, want receipt_url at line %d", fs, line)
	}
}
