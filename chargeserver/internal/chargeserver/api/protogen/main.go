// Command protogen regenerates the Go code of charges.proto without protoc:
// it compiles the file with protocompile (the compiler contractlint itself
// uses), hands the descriptors to the protoc-gen-go and
// protoc-gen-connect-go pinned as tools in go.mod (run with `go tool`, so
// the versions are go.sum's and nothing is fetched once the module cache
// has them) as the CodeGeneratorRequest protoc would send, and writes the
// files they answer with. Run it with `go generate` in the api directory.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

// module is stripped from the generated files' import paths, so their
// names are relative to the module root.
const module = "github.com/contractlint/contractlint/chargeserver"

const source = "charges.proto"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	files, err := descriptors(source)
	if err != nil {
		return err
	}
	for _, plugin := range []string{"protoc-gen-go", "protoc-gen-connect-go"} {
		req := &pluginpb.CodeGeneratorRequest{
			FileToGenerate: []string{source},
			Parameter:      proto.String("module=" + module),
			ProtoFile:      files,
		}
		if err := generate(root, plugin, req); err != nil {
			return err
		}
	}
	return nil
}

// descriptors compiles name, with its comments, and returns it after every
// file it imports, as a CodeGeneratorRequest lists them.
func descriptors(name string) ([]*descriptorpb.FileDescriptorProto, error) {
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	linked, err := c.Compile(context.Background(), name)
	if err != nil {
		return nil, err
	}
	var out []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imports := f.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		out = append(out, protodesc.ToFileDescriptorProto(f))
	}
	for _, f := range linked {
		add(f)
	}
	return out, nil
}

// generate runs one plugin on req and writes the files it answers with
// under root.
func generate(root, plugin string, req *pluginpb.CodeGeneratorRequest) error {
	in, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "tool", plugin)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", plugin, err, stderr.Bytes())
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return fmt.Errorf("%s: reading its answer: %v", plugin, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%s: %s", plugin, resp.GetError())
	}
	for _, f := range resp.File {
		name := filepath.FromSlash(f.GetName())
		if !filepath.IsLocal(name) || f.GetInsertionPoint() != "" {
			return fmt.Errorf("%s: unexpected output file %q", plugin, f.GetName())
		}
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", f.GetName())
	}
	return nil
}

// moduleRoot is the directory of go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
