package protobuf

import (
	"github.com/bufbuild/protocompile/protoutil"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Editions features are read resolved: the value the element, its parents,
// its file or the edition's defaults give it. proto2 and proto3 files
// resolve to the values their syntax implies, so moving a message between
// a proto2, a proto3 and an editions file compares what readers and
// generated code actually do, not which options were written.

// featureSet describes google.protobuf.FeatureSet, whose fields are the
// core features.
var featureSet = (&descriptorpb.FeatureSet{}).ProtoReflect().Descriptor()

// coreFeature resolves a core feature of d to its enum value's name; "" when
// it cannot be resolved.
func coreFeature(d protoreflect.Descriptor, name protoreflect.Name) string {
	f := featureSet.Fields().ByName(name)
	if f == nil {
		return ""
	}
	v, err := protoutil.ResolveFeature(d, f)
	if err != nil {
		return ""
	}
	return enumName(f, v)
}

// langFeature resolves a language feature, (pb.cpp).string_type say, of d.
// The extension is found among the files d's file imports: a file that does
// not import it cannot set it, and gets the edition's default from ok=false.
func langFeature(d protoreflect.Descriptor, file string, ext protoreflect.FullName, name protoreflect.Name) (string, bool) {
	xd := findExtension(d.ParentFile(), file, ext)
	if xd == nil || xd.Message() == nil {
		return "", false
	}
	f := xd.Message().Fields().ByName(name)
	if f == nil {
		return "", false
	}
	v, err := protoutil.ResolveCustomFeature(d, dynamicpb.NewExtensionType(xd), f)
	if err != nil {
		return "", false
	}
	return enumName(f, v), true
}

func findExtension(fd protoreflect.FileDescriptor, file string, ext protoreflect.FullName) protoreflect.ExtensionDescriptor {
	imports := fd.Imports()
	for i := 0; i < imports.Len(); i++ {
		imp := imports.Get(i).FileDescriptor
		if imp.Path() != file {
			continue
		}
		if xd := imp.Extensions().ByName(ext.Name()); xd != nil && xd.FullName() == ext {
			return xd
		}
	}
	return nil
}

func enumName(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if f.Enum() == nil {
		return ""
	}
	if ev := f.Enum().Values().ByNumber(v.Enum()); ev != nil {
		return string(ev.Name())
	}
	return ""
}

// cppStringType is the C++ type of a string or bytes field's accessors:
// the ctype option where written (proto2, proto3, edition 2023), else the
// (pb.cpp).string_type feature, else STRING.
func cppStringType(fd protoreflect.FieldDescriptor, opts *descriptorpb.FieldOptions) string {
	if opts != nil && opts.Ctype != nil {
		return opts.GetCtype().String()
	}
	if v, ok := langFeature(fd, "google/protobuf/cpp_features.proto", "pb.cpp", "string_type"); ok {
		return v
	}
	return "STRING"
}

// javaUTF8 is whether Java parsers check UTF-8 in a string field: VERIFY
// when the file option java_string_check_utf8 (before editions) or the
// (pb.java).utf8_validation feature (with them) says so, else what the field's
// own utf8_validation resolves to, since Java parsers apply that too: a
// proto3 string is checked without any Java option (buf compares the same).
func javaUTF8(fd protoreflect.FieldDescriptor, fopts *descriptorpb.FileOptions, core string) string {
	if fopts.GetJavaStringCheckUtf8() {
		return "VERIFY"
	}
	if fd.ParentFile().Syntax() == protoreflect.Editions && (fopts == nil || fopts.JavaStringCheckUtf8 == nil) {
		if v, ok := langFeature(fd, "google/protobuf/java_features.proto", "pb.java", "utf8_validation"); ok && v == "VERIFY" {
			return v
		}
	}
	return core
}
