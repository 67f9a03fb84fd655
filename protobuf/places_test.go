package protobuf

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
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
	checkPlaces(t, protocompile.SourceAccessorFromMap(files), slices.Sorted(maps.Keys(files)))
	// The repository's own fixtures that compile on their own, as one more
	// set of real-looking files: each compiled once, and compared when it
	// compiles.
	compared := 0
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".proto") {
			return err
		}
		if compiled, err := compileKeeping(onDisk(filepath.Dir(p)), filepath.Base(p)); err == nil {
			comparePlaces(t, compiled)
			compared++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if compared == 0 {
		t.Fatal("no .proto fixtures found under testdata")
	}
}

// TestPlacesMatchSourceInfoGoogleapis does the same over the files of a
// real tree, held in memory (writing its 6,757 files to disk cost more than
// reading them); the full run (see corpus.Full) over all of them, the
// default run over a sample (see placesSample) with what they import.
func TestPlacesMatchSourceInfoGoogleapis(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles all of googleapis twice over")
	}
	tree := map[string]string{}
	for name, b := range corpus.Protos(t, "googleapis-2026-08-22.tar.gz") {
		tree[name] = string(b)
	}
	names := slices.Sorted(maps.Keys(tree))
	if !corpus.Full() {
		names = placesSample(t, names, tree)
		t.Logf("a sample of %d files of %d (CI=true or CONTRACTLINT_FULL=1 checks all)", len(names), len(tree))
	}
	for _, batch := range batchesOf(names, 800) {
		checkPlaces(t, protocompile.SourceAccessorFromMap(tree), batch)
	}
}

// placeKinds are the statements whose places the comparison tells
// (declarations, reservations, comments), each as a text that a file
// holding one holds.
var placeKinds = []string{
	"\nmessage ", "\nenum ", "\n  message ", "\n  enum ", "\nservice ", " rpc ", " oneof ", "\nextend ",
	"map<", "repeated ", " optional ", `reserved "`, "reserved 1", "; //", "/*", "option (",
}

// placesSample takes one file of every ten in name order (from every
// corner of the tree, as many as a tenth of it), the one that imports the
// least text: compiling a file compiles all it imports, and a tenth taken
// by position imported 16 MB (one of Google Ads' services alone 2.5 MB)
// where this one imports 2 MB. Then, for each of placeKinds and each file
// option the lowering locates that the tree holds, the first file holding
// it, if the sample has none: every kind of statement whose place is told
// is in it.
func placesSample(t *testing.T, names []string, tree map[string]string) []string {
	imports := importsOf(tree)
	var sample []string
	for chunk := range slices.Chunk(names, 10) {
		sample = append(sample, slices.MinFunc(chunk, func(a, b string) int {
			return cmp.Compare(importedSize(tree, imports, a), importedSize(tree, imports, b))
		}))
	}
	add := func(kind string) bool {
		holds := func(n string) bool { return strings.Contains(tree[n], kind) }
		if slices.ContainsFunc(sample, holds) {
			return true
		}
		i := slices.IndexFunc(names, holds)
		if i >= 0 {
			sample = append(sample, names[i])
		}
		return i >= 0
	}
	for _, kind := range placeKinds {
		if !add(kind) {
			t.Fatalf("no file of the tree holds %q: the sample's kinds are stale", kind)
		}
	}
	for _, name := range FileOptionNames() {
		add("\noption " + name + " ")
	}
	return sample
}

// importedSize is the size of name's text and of all it imports, directly
// or not, in tree.
func importedSize(tree map[string]string, imports map[string][]string, name string) int {
	seen, size := map[string]bool{}, 0
	for next := []string{name}; len(next) > 0; {
		n := next[len(next)-1]
		next = next[:len(next)-1]
		text, ok := tree[n]
		if seen[n] || !ok {
			continue
		}
		seen[n] = true
		size += len(text)
		next = append(next, imports[n]...)
	}
	return size
}

// importsOf lists what each file of tree imports, read from the lines that
// start with "import" (a regular expression over the 69 MB of googleapis
// took seconds). It only weighs the sample: an import missed makes a file
// look cheaper, never a comparison wrong.
func importsOf(tree map[string]string) map[string][]string {
	out := map[string][]string{}
	for name, text := range tree {
		for line := range strings.Lines(text) {
			rest, ok := strings.CutPrefix(line, "import ")
			if !ok {
				continue
			}
			if q := strings.Split(rest, `"`); len(q) >= 3 {
				out[name] = append(out[name], q[1])
			}
		}
	}
	return out
}

func batchesOf(names []string, size int) [][]string {
	var out [][]string
	for len(names) > size {
		out, names = append(out, names[:size]), names[size:]
	}
	return append(out, names)
}

// onDisk reads the imports of a compilation from dir.
func onDisk(dir string) func(string) (io.ReadCloser, error) {
	return func(name string) (io.ReadCloser, error) { return os.Open(filepath.Join(dir, name)) }
}

// compileKeeping compiles names, read through access, keeping both the
// syntax tree and SourceCodeInfo.
func compileKeeping(access func(string) (io.ReadCloser, error), names ...string) (linker.Files, error) {
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: access}),
		SourceInfoMode: protocompile.SourceInfoStandard,
		RetainASTs:     true,
	}
	return c.Compile(context.Background(), names...)
}

// checkPlaces compiles names (read through access) keeping both the
// syntax tree and SourceCodeInfo, and compares what each tells.
func checkPlaces(t *testing.T, access func(string) (io.ReadCloser, error), names []string) {
	t.Helper()
	compiled, err := compileKeeping(access, names...)
	if err != nil {
		t.Fatal(err)
	}
	comparePlaces(t, compiled)
}

// comparePlaces compares what the places and SourceCodeInfo tell of each
// compiled file.
func comparePlaces(t *testing.T, compiled linker.Files) {
	t.Helper()
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
