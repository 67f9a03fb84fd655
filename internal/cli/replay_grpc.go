package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/internal/replay"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/rules"
)

// runReplayRPC replays a .proto contract against a gRPC or Connect server
// (grpc://HOST:PORT, connect://HOST:PORT).
func runReplayRPC(cmd *cobra.Command, e *Env, rf *replayOptions, o pipeline.Options, u *url.URL) error {
	if !rf.remote && !probe.IsLoopback(u.Hostname()) {
		return usageErr("refusing to replay against %s: %s is not a loopback address and replay sends real requests; "+
			"pass --allow-remote to send them anyway", u.Redacted(), u.Hostname())
	}
	if _, _, err := probe.RPCBase(u); err != nil || (u.Path != "" && u.Path != "/") {
		return usageErr("replay: %q is not grpc://HOST:PORT (or grpcs, connect, connects) with no path", u.Redacted())
	}
	if rf.timeout <= 0 || rf.maxRequests < 1 || rf.maxTime <= 0 || rf.rate < 0 {
		return usageErr("replay: --timeout, --max-requests and --max-time must be positive, --rate not negative")
	}
	cfg := &replay.Config{Base: u, MaxRequests: rf.maxRequests, MaxTime: rf.maxTime, Rate: rf.rate,
		Client: probe.NewRPCClient(rf.timeout, 2)}
	var err error
	if cfg.Header, err = parseHeaders(rf.headers); err != nil {
		return err
	}
	side, err := openSide(e, rf.contract)
	if err != nil {
		return err
	}
	if pipeline.FormatOf(side) != rules.Proto {
		return usageErr("%s: replay against %s needs a .proto contract", rf.contract, u.Scheme)
	}
	files, err := compileContract(cmd.Context(), side, o)
	if err != nil {
		return inputErr(err)
	}
	var fx replay.Fixtures
	if rf.fixtures != "" {
		if fx, err = readRPCFixtures(e, rf.fixtures, o); err != nil {
			return err
		}
	}
	plan, err := replay.NewRPCPlan(files, replay.Options{Fixtures: fx, SideEffects: rf.sideEffects})
	if err != nil {
		return usageErr("replay: %v", err)
	}
	info := rf.progress(e)
	fmt.Fprintf(info, "replay: %s against %s: %d calls planned (at most %d, for at most %s, %s)\n",
		report.Clean(rf.contract), report.Clean(u.Redacted()), len(plan.Calls), cfg.MaxRequests, cfg.MaxTime, rateText(cfg.Rate))
	plan.Write(info, report.Clean)
	rep := replay.RunRPC(cmd.Context(), plan, cfg, placeIn(side), o.Registry)
	if rep.Unreachable != nil {
		return usageErr("replay: %s did not answer: %v", u.Redacted(), rep.Unreachable)
	}
	fmt.Fprintf(info, "replay: sent %d of %d calls\n", rep.Sent, len(plan.Calls))
	return rf.emit(e, &report.Report{Findings: rep.Findings}, o)
}

// compileContract compiles the side's .proto files, with their comments and
// places, reading every file through the side's source and read limits.
func compileContract(ctx context.Context, side pipeline.Side, o pipeline.Options) ([]protoreflect.FileDescriptor, error) {
	src := o.Limits.Guard(side.Src, side.Display)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: append([]string{"."}, side.ProtoPaths...),
			Accessor: func(name string) (io.ReadCloser, error) {
				b, err := src.ReadFile(name)
				if err != nil {
					return nil, err
				}
				return io.NopCloser(bytes.NewReader(b)), nil
			},
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
		Reporter:       reporter.NewReporter(nil, nil),
	}
	linked, err := c.Compile(ctx, side.Files...)
	if err != nil {
		return nil, err
	}
	out := make([]protoreflect.FileDescriptor, len(linked))
	for i, f := range linked {
		out[i] = f
	}
	return out, nil
}

// placeIn places a descriptor at its file:line:column as the side shows it.
func placeIn(side pipeline.Side) func(protoreflect.Descriptor) rules.Location {
	display := side.Display
	if display == nil {
		display = func(s string) string { return s }
	}
	return func(d protoreflect.Descriptor) rules.Location {
		f := d.ParentFile()
		loc := f.SourceLocations().ByDescriptor(d)
		return rules.Location{File: display(f.Path()), Line: loc.StartLine + 1, Column: loc.StartColumn + 1}
	}
}

// readRPCFixtures reads --fixtures for a proto contract: method names
// ("CreateCharge" or "pkg.Service/CreateCharge") to {body}.
func readRPCFixtures(e *Env, name string, o pipeline.Options) (replay.Fixtures, error) {
	side, err := openSide(e, name)
	if err != nil {
		return nil, usageErr("--fixtures: %v", err)
	}
	b, err := o.Limits.Guard(side.Src, side.Display).ReadFile(side.Files[0])
	if err != nil {
		return nil, inputErr(err)
	}
	fx, err := replay.ParseFixtures(name, b)
	if err != nil {
		return nil, inputErr(err)
	}
	return fx, nil
}
