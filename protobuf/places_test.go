package protobuf

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/rules"
)

// commentsFile puts comments everywhere protoc has a rule for: file
// header, detached and leading groups, trailing on the line and on the
// line below, block comments with and without '*' margins, a comment
// between two declarations on one line, before a closing brace, on groups,
// map fields, oneofs, extensions, enum values and rpcs with bodies.
const commentsFile = `// Copyright header, detached from syntax.

// Leading syntax.
syntax = "proto2"; // trailing syntax

/* detached block */

// Leading package.
package cmt;

import "google/protobuf/descriptor.proto";

option java_package = "com.example.cmt"; // why
option go_package = "example.com/cmt";
option java_string_check_utf8 = true;

// detached one

// detached two
// Leading M,
// two lines.
message M { // trailing M
  option message_set_wire_format = false;
	option no_standard_descriptor_accessor = true;
  // leading a
  optional int32 a = 1; // trailing a
  optional string b = 2;
  // trailing b, on the next line

  /* leading c */ optional int64 c = 3; /* trailing c */
  optional int32 d = 4; /* ambiguous */ optional int32 e = 5;
  /**
   * Javadoc style
   *   indented
   */
  repeated string f = 6;
  // leading g group
  optional group G = 7 { // trailing G
    // leading g inner
    optional int32 x = 1;
  }
  // leading map
  map<string, int32> m = 8; // trailing map
  // leading oneof
  oneof pick { // trailing oneof
    // leading p
    int32 p = 9;
    string q = 10; // trailing q
  }
  reserved 20 to 25, 30;
  reserved "old", "older";
  extensions 100 to 199;
  // leading nested
  message N { optional int32 k = 1; /* ambiguous before the brace */ }
  optional int32 z = 11;
  // before the closing brace
}

// leading ext
extend M {
  // leading x1
  optional string x1 = 100; // trailing x1
}

extend google.protobuf.FieldOptions {
  optional string unit = 50001;
}

// leading enum
enum E {
  option allow_alias = true;
  // leading zero
  E_ZERO = 0; // trailing zero
  E_ONE = 1;
  E_UNO = 1;
  reserved 5 to 9;
  reserved "E_OLD";
}

// leading service
service S { // trailing S
  // leading Get
  rpc Get(M) returns (M) { // trailing Get
    option idempotency_level = NO_SIDE_EFFECTS;
  }
  /* leading Put */
  rpc Put(M) returns (M); // trailing Put
}
`

// editionsFile covers features set by option statements, one set in an
// aggregate (which has no place of its own), and identifier reserved names.
const editionsFile = "// leading edition\r\nedition = \"2023\";\r\n\r\npackage ed;\r\n\r\n" +
	"option features.field_presence = IMPLICIT;\r\n\r\n" +
	"// leading Msg\r\n// second line\r\nmessage Msg {\r\n  option features.json_format = LEGACY_BEST_EFFORT;\r\n" +
	"  string s = 1; // trailing s\r\n  reserved old_name;\r\n  reserved 4;\r\n}\r\n\r\n" +
	"enum Closed {\r\n  option features.enum_type = CLOSED;\r\n  CLOSED_ZERO = 0;\r\n}\r\n\r\n" +
	"message Agg {\r\n  option features = { json_format: LEGACY_BEST_EFFORT };\r\n}\r\n"

// TestPlacesMatchSourceInfo holds places to the SourceCodeInfo protocompile
// generates for the same files: every declaration's position and leading
// comment, every field's trailing comment, the options and reservations
// the lowering locates.
func TestPlacesMatchSourceInfo(t *testing.T) {
	files := map[string]string{"cmt.proto": commentsFile, "ed.proto": editionsFile}
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The repository's own fixtures, as one more set of real-looking files.
	fixtures := protoFiles(t, filepath.Join("..", "testdata"))
	if len(fixtures) == 0 {
		t.Fatal("no .proto fixtures found under testdata")
	}
	checkPlaces(t, dir, slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}))
	for _, f := range fixtures {
		checkPlaces(t, filepath.Dir(f), []string{filepath.Base(f)})
	}
}

// TestPlacesMatchSourceInfoGoogleapis does the same over every file of a
// real tree, in batches of directories; the default run over every tenth
// file in name order (about 680 of 6,757, from every corner of the tree,
// with what they import), the full run (see corpus.Full) over all.
func TestPlacesMatchSourceInfoGoogleapis(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles all of googleapis twice over")
	}
	root := t.TempDir()
	names := corpus.Untar(t, "googleapis-2026-08-22.tar.gz", root)
	if !corpus.Full() {
		slices.Sort(names)
		var sample []string
		for i := 0; i < len(names); i += 10 {
			sample = append(sample, names[i])
		}
		names = sample
	}
	for _, batch := range batchesOf(names, 800) {
		checkPlaces(t, root, batch)
	}
}

func batchesOf(names []string, size int) [][]string {
	var out [][]string
	for len(names) > size {
		out, names = append(out, names[:size]), names[size:]
	}
	return append(out, names)
}

// protoFiles lists the .proto files under dir that compile on their own.
func protoFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".proto") {
			return err
		}
		c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{filepath.Dir(p)}})}
		if _, err := c.Compile(context.Background(), filepath.Base(p)); err == nil {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkPlaces compiles names (relative to dir) keeping both the syntax
// tree and SourceCodeInfo, and compares what each tells.
func checkPlaces(t *testing.T, dir string, names []string) {
	t.Helper()
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{dir}}),
		SourceInfoMode: protocompile.SourceInfoStandard,
		RetainASTs:     true,
	}
	compiled, err := c.Compile(context.Background(), names...)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	for _, fd := range compiled {
		got, want := placesSay(fd), sourceInfoSays(fd)
		if len(want) == 0 {
			t.Fatalf("%s: no declarations walked", fd.Path())
		}
		for i := range max(len(got), len(want)) {
			g, w := at(got, i), at(want, i)
			if g != w {
				t.Errorf("%s:\n got  %s\n want %s", fd.Path(), g, w)
				break
			}
		}
	}
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return "(nothing)"
}

// teller is what the lowering asks of a file's positions and comments.
type teller struct {
	elem     func(protoreflect.Descriptor) (rules.Location, string)
	trailing func(protoreflect.FieldDescriptor) string
	option   func(d protoreflect.Descriptor, name string) rules.Location
	reserved func(protoreflect.Descriptor) (ranges, names []rules.Location)
	part     func(string) rules.Location
}

func placesSay(fd linker.File) []string {
	p := newPlaces(fd, fd.Path())
	return tell(fd, teller{elem: p.elem, trailing: p.trailing, reserved: p.reserved, part: p.filePart,
		option: func(d protoreflect.Descriptor, name string) rules.Location {
			loc, _ := p.option(d, name)
			return loc
		}})
}

// sourceInfoSays answers from SourceCodeInfo, by descriptor and path.
func sourceInfoSays(fd linker.File) []string {
	locs := fd.SourceLocations()
	loc := func(sl protoreflect.SourceLocation) rules.Location {
		if sl.Path == nil {
			return rules.Location{File: fd.Path()}
		}
		return rules.Location{File: fd.Path(), Line: sl.StartLine + 1, Column: sl.StartColumn + 1}
	}
	byPath := func(d protoreflect.Descriptor, sub ...int32) protoreflect.SourceLocation {
		var own protoreflect.SourcePath
		if d != nil {
			if own = locs.ByDescriptor(d).Path; own == nil {
				return protoreflect.SourceLocation{}
			}
		}
		return locs.ByPath(append(slices.Clone(own), sub...))
	}
	return tell(fd, teller{
		elem: func(d protoreflect.Descriptor) (rules.Location, string) {
			sl := locs.ByDescriptor(d)
			return loc(sl), strings.TrimSpace(sl.LeadingComments)
		},
		trailing: func(f protoreflect.FieldDescriptor) string {
			return strings.TrimSpace(locs.ByDescriptor(f).TrailingComments)
		},
		option: func(d protoreflect.Descriptor, name string) rules.Location {
			sl := byPath(d, optionPath(d, name)...)
			if sl.Path == nil {
				return rules.Location{}
			}
			return loc(sl)
		},
		reserved: func(d protoreflect.Descriptor) (ranges, names []rules.Location) {
			rangeTag, nameTag := int32(9), int32(10)
			if _, enum := d.(protoreflect.EnumDescriptor); enum {
				rangeTag, nameTag = 4, 5
			}
			for i := int32(0); ; i++ {
				sl := byPath(d, rangeTag, i)
				if sl.Path == nil {
					break
				}
				ranges = append(ranges, loc(sl))
			}
			for i := int32(0); ; i++ {
				sl := byPath(d, nameTag, i)
				if sl.Path == nil {
					break
				}
				names = append(names, loc(sl))
			}
			return ranges, names
		},
		part: func(part string) rules.Location {
			return loc(locs.ByPath(protoreflect.SourcePath{map[string]int32{"package": 2, "syntax": 12, "edition": 14}[part]}))
		},
	})
}

// optionPath is the SourceCodeInfo path, below d's (the file's when d is
// nil), of the option statement name.
func optionPath(d protoreflect.Descriptor, name string) []int32 {
	var tag int32
	var opts protoreflect.MessageDescriptor
	switch d.(type) {
	case nil:
		tag, opts = 8, (&descriptorpb.FileOptions{}).ProtoReflect().Descriptor()
	case protoreflect.MessageDescriptor:
		tag, opts = 7, (&descriptorpb.MessageOptions{}).ProtoReflect().Descriptor()
	case protoreflect.EnumDescriptor:
		tag, opts = 3, (&descriptorpb.EnumOptions{}).ProtoReflect().Descriptor()
	case protoreflect.MethodDescriptor:
		tag, opts = 4, (&descriptorpb.MethodOptions{}).ProtoReflect().Descriptor()
	}
	path := []int32{tag}
	for part := range strings.SplitSeq(name, ".") {
		f := opts.Fields().ByName(protoreflect.Name(part))
		path = append(path, int32(f.Number()))
		opts = f.Message()
	}
	return path
}

// optionsAsked are the options whose statements the lowering locates.
var optionsAsked = map[string][]string{
	"file":    append(FileOptionNames(), "java_string_check_utf8"),
	"message": {"features.json_format", "message_set_wire_format", "no_standard_descriptor_accessor"},
	"enum":    {"features.enum_type", "features.json_format"},
	"method":  {"idempotency_level"},
}

// tell walks every declaration of fd and writes down what t says of it.
func tell(fd protoreflect.FileDescriptor, t teller) []string {
	var out []string
	say := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	elem := func(d protoreflect.Descriptor) {
		loc, comment := t.elem(d)
		say("%s at %+v comment %q", d.FullName(), loc, comment)
	}
	options := func(kind string, d protoreflect.Descriptor) {
		for _, name := range optionsAsked[kind] {
			say("%v option %s at %+v", nameOf(d), name, t.option(d, name))
		}
	}
	reserved := func(d protoreflect.Descriptor) {
		r, n := t.reserved(d)
		say("%s reserved ranges %+v names %+v", d.FullName(), r, n)
	}
	field := func(f protoreflect.FieldDescriptor) {
		elem(f)
		say("%s trailing %q", f.FullName(), t.trailing(f))
	}
	for _, part := range []string{"package", "syntax", "edition"} {
		say("%s at %+v", part, t.part(part))
	}
	options("file", nil)
	enum := func(e protoreflect.EnumDescriptor) {
		elem(e)
		options("enum", e)
		reserved(e)
		eachOf(e.Values(), func(v protoreflect.EnumValueDescriptor) { elem(v) })
	}
	var message func(protoreflect.MessageDescriptor)
	message = func(m protoreflect.MessageDescriptor) {
		elem(m)
		options("message", m)
		reserved(m)
		eachOf(m.Fields(), field)
		eachOf(m.Oneofs(), func(o protoreflect.OneofDescriptor) { elem(o) })
		eachOf(m.Extensions(), field)
		eachOf(m.Messages(), message)
		eachOf(m.Enums(), enum)
	}
	eachOf(fd.Messages(), message)
	eachOf(fd.Enums(), enum)
	eachOf(fd.Extensions(), field)
	eachOf(fd.Services(), func(s protoreflect.ServiceDescriptor) {
		elem(s)
		eachOf(s.Methods(), func(m protoreflect.MethodDescriptor) {
			elem(m)
			options("method", m)
		})
	})
	return out
}

// eachOf calls f with every descriptor of a protoreflect list.
func eachOf[T any](list interface {
	Len() int
	Get(int) T
}, f func(T)) {
	for i := range list.Len() {
		f(list.Get(i))
	}
}

func nameOf(d protoreflect.Descriptor) string {
	if d == nil {
		return "file"
	}
	return string(d.FullName())
}
