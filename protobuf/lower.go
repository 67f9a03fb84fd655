package protobuf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/contractlint/contractlint/rules"
)

// fileOptions are the file options that change generated code, with their
// field numbers in FileOptions (for source locations).
var fileOptions = []struct {
	name string
	num  int32
	get  func(*descriptorpb.FileOptions) string
}{
	{"java_package", 1, func(o *descriptorpb.FileOptions) string { return o.GetJavaPackage() }},
	{"java_outer_classname", 8, func(o *descriptorpb.FileOptions) string { return o.GetJavaOuterClassname() }},
	{"optimize_for", 9, func(o *descriptorpb.FileOptions) string { return o.GetOptimizeFor().String() }},
	{"java_multiple_files", 10, func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetJavaMultipleFiles()) }},
	{"go_package", 11, func(o *descriptorpb.FileOptions) string { return o.GetGoPackage() }},
	{"cc_generic_services", 16, func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetCcGenericServices()) }},
	{"java_generic_services", 17, func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetJavaGenericServices()) }},
	{"py_generic_services", 18, func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetPyGenericServices()) }},
	{"cc_enable_arenas", 31, func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetCcEnableArenas()) }},
	{"objc_class_prefix", 36, func(o *descriptorpb.FileOptions) string { return o.GetObjcClassPrefix() }},
	{"csharp_namespace", 37, func(o *descriptorpb.FileOptions) string { return o.GetCsharpNamespace() }},
	{"swift_prefix", 39, func(o *descriptorpb.FileOptions) string { return o.GetSwiftPrefix() }},
	{"php_class_prefix", 40, func(o *descriptorpb.FileOptions) string { return o.GetPhpClassPrefix() }},
	{"php_namespace", 41, func(o *descriptorpb.FileOptions) string { return o.GetPhpNamespace() }},
	{"php_metadata_namespace", 44, func(o *descriptorpb.FileOptions) string { return o.GetPhpMetadataNamespace() }},
	{"ruby_package", 45, func(o *descriptorpb.FileOptions) string { return o.GetRubyPackage() }},
}

// FileOptionNames lists the file options the diff compares.
func FileOptionNames() []string {
	out := make([]string, len(fileOptions))
	for i, o := range fileOptions {
		out[i] = o.name
	}
	return out
}

// lowerer copies what the rules need out of compiled descriptors.
type lowerer struct {
	t      *Tree
	fd     protoreflect.FileDescriptor
	locs   protoreflect.SourceLocations
	file   string // display name
	syntax string
	fopts  *descriptorpb.FileOptions
}

func lower(files linker.Files, locate func(string) string) *Tree {
	t := newTree()
	for _, fd := range files {
		if fd == nil {
			continue
		}
		l := &lowerer{t: t, fd: fd, locs: fd.SourceLocations(), file: locate(fd.Path()), syntax: syntaxOf(fd)}
		l.fopts, _ = fd.Options().(*descriptorpb.FileOptions)
		l.lowerFile()
	}
	return t
}

func syntaxOf(fd protoreflect.FileDescriptor) string {
	switch fd.Syntax() {
	case protoreflect.Proto2:
		return "proto2"
	case protoreflect.Proto3:
		return "proto3"
	}
	return "editions"
}

func (l *lowerer) at(p protoreflect.SourcePath) rules.Location {
	sl := l.locs.ByPath(p)
	if sl.Path == nil {
		return rules.Location{File: l.file}
	}
	return rules.Location{File: l.file, Line: sl.StartLine + 1, Column: sl.StartColumn + 1}
}

func (l *lowerer) elem(d protoreflect.Descriptor) Elem {
	sl := l.locs.ByDescriptor(d)
	e := Elem{Name: string(d.FullName()), File: l.fd.Path(), Loc: rules.Location{File: l.file}}
	if sl.Path != nil {
		e.Loc.Line, e.Loc.Column = sl.StartLine+1, sl.StartColumn+1
		e.Comment = strings.TrimSpace(sl.LeadingComments)
	}
	return e
}

func (l *lowerer) lowerFile() {
	f := &File{Name: l.fd.Path(), Loc: rules.Location{File: l.file}, Package: string(l.fd.Package()),
		Syntax: l.syntax, Options: map[string]string{}, OptionLoc: map[string]rules.Location{}}
	f.PackageLoc = l.at(protoreflect.SourcePath{2})
	f.SyntaxLoc = l.at(protoreflect.SourcePath{12})
	if f.SyntaxLoc.Line == 0 {
		f.SyntaxLoc = l.at(protoreflect.SourcePath{14}) // edition
	}
	for _, o := range fileOptions {
		f.Options[o.name] = o.get(l.fopts)
		if loc := l.at(protoreflect.SourcePath{8, o.num}); loc.Line != 0 {
			f.OptionLoc[o.name] = loc
		}
	}
	l.t.Files[f.Name] = f
	l.messages(l.fd.Messages())
	l.enums(l.fd.Enums())
	l.extensions(l.fd.Extensions())
	for i := 0; i < l.fd.Services().Len(); i++ {
		l.service(l.fd.Services().Get(i))
	}
}

func (l *lowerer) messages(ms protoreflect.MessageDescriptors) {
	for i := 0; i < ms.Len(); i++ {
		l.message(ms.Get(i))
	}
}

func (l *lowerer) enums(es protoreflect.EnumDescriptors) {
	for i := 0; i < es.Len(); i++ {
		l.enum(es.Get(i))
	}
}

func (l *lowerer) extensions(xs protoreflect.ExtensionDescriptors) {
	for i := 0; i < xs.Len(); i++ {
		x := l.field(xs.Get(i))
		l.t.Extensions[extKey(x.Extendee, x.Number)] = x
	}
}

func extKey(extendee string, n int32) string { return fmt.Sprintf("%s/%d", extendee, n) }

func (l *lowerer) message(md protoreflect.MessageDescriptor) {
	opts, _ := md.Options().(*descriptorpb.MessageOptions)
	m := &Message{Elem: l.elem(md), MapEntry: md.IsMapEntry(), MessageSet: opts.GetMessageSetWireFormat(),
		NoAccessor: opts.GetNoStandardDescriptorAccessor(), JSONFormat: coreFeature(md, "json_format"),
		JSONFormatLoc: l.featureLoc(md, 7, 12, 6),
		// MessageOptions: message_set_wire_format = 1, no_standard_descriptor_accessor = 2.
		MessageSetLoc: l.featureLoc(md, 7, 1), NoAccessorLoc: l.featureLoc(md, 7, 2)}
	for i := 0; i < md.Fields().Len(); i++ {
		m.Fields = append(m.Fields, l.field(md.Fields().Get(i)))
	}
	for i := 0; i < md.Oneofs().Len(); i++ {
		if od := md.Oneofs().Get(i); !od.IsSynthetic() {
			m.Oneofs = append(m.Oneofs, &Oneof{Elem: l.elem(od)})
		}
	}
	for i := 0; i < md.ReservedRanges().Len(); i++ {
		r := md.ReservedRanges().Get(i)
		m.ReservedRanges = append(m.ReservedRanges, [2]int32{int32(r[0]), int32(r[1]) - 1})
	}
	for i := 0; i < md.ReservedNames().Len(); i++ {
		m.ReservedNames = append(m.ReservedNames, string(md.ReservedNames().Get(i)))
	}
	m.Reservations = l.reservations(md, 9, 10, len(m.ReservedRanges), len(m.ReservedNames))
	for i := 0; i < md.ExtensionRanges().Len(); i++ {
		r := md.ExtensionRanges().Get(i)
		m.ExtRanges = append(m.ExtRanges, [2]int32{int32(r[0]), int32(r[1]) - 1})
	}
	l.t.Messages[m.Name] = m
	l.messages(md.Messages())
	l.enums(md.Enums())
	l.extensions(md.Extensions())
	l.placeMapEntries(md, m)
}

// placeMapEntries puts a map field's entry message, and its key and value,
// at the `map<...>` field's line: the compiler synthesizes them without one.
func (l *lowerer) placeMapEntries(md protoreflect.MessageDescriptor, m *Message) {
	for i, f := range m.Fields {
		fd := md.Fields().Get(i)
		if !fd.IsMap() {
			continue
		}
		e := l.t.Messages[string(fd.Message().FullName())]
		if e == nil {
			continue
		}
		e.Loc = f.Loc
		for _, x := range e.Fields {
			x.Loc = f.Loc
		}
	}
}

func (l *lowerer) field(fd protoreflect.FieldDescriptor) *Field {
	opts, _ := fd.Options().(*descriptorpb.FieldOptions)
	f := &Field{Elem: l.elem(fd), Short: string(fd.Name()), Number: int32(fd.Number()),
		JSONName: fd.JSONName(), Kind: fd.Kind().String(), Packed: fd.IsPacked(),
		Deprecated: opts.GetDeprecated(), JSType: opts.GetJstype().String()}
	f.Type = typeName(fd)
	switch {
	case fd.IsMap():
		f.Card = CardMap
		f.MapKey, f.MapValue = typeName(fd.MapKey()), typeName(fd.MapValue())
		f.MapKind = fd.MapValue().Kind().String()
		f.Type = "map<" + f.MapKey + ", " + f.MapValue + ">"
	case fd.Cardinality() == protoreflect.Repeated:
		f.Card = CardRepeated
	case fd.Cardinality() == protoreflect.Required:
		f.Card = CardRequired
	case fd.HasPresence():
		f.Card = CardOptional
	default:
		f.Card = CardImplicit
	}
	if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
		f.Oneof = string(od.Name())
	}
	if fd.HasDefault() {
		f.HasDefault = true
		if fd.Kind() == protoreflect.EnumKind {
			f.Default = string(fd.DefaultEnumValue().Name())
		} else {
			f.Default = fmt.Sprint(fd.Default().Interface())
		}
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		f.UTF8 = coreFeature(fd, "utf8_validation")
		f.JavaUTF8 = javaUTF8(fd, l.fopts, f.UTF8)
		if l.fopts != nil && l.fopts.JavaStringCheckUtf8 != nil {
			f.JavaUTF8Loc = l.at(protoreflect.SourcePath{8, 27}) // FileOptions.java_string_check_utf8
		}
		f.CType = cppStringType(fd, opts)
	case protoreflect.BytesKind:
		f.CType = cppStringType(fd, opts)
	}
	if fd.IsExtension() {
		f.Extendee = string(fd.ContainingMessage().FullName())
	}
	if sl := l.locs.ByDescriptor(fd); sl.Path != nil {
		f.Trailing = strings.TrimSpace(sl.TrailingComments)
	}
	f.Behavior, f.Unit = fieldExtensions(opts)
	return f
}

// fieldExtensions reads the custom field options that carry meaning:
// (google.api.field_behavior) and any string or enum option named *unit*.
func fieldExtensions(opts *descriptorpb.FieldOptions) (behavior []string, unit string) {
	if opts == nil {
		return nil, ""
	}
	opts.ProtoReflect().Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case x.FullName() == "google.api.field_behavior" && x.IsList():
			for i := 0; i < v.List().Len(); i++ {
				behavior = append(behavior, enumLabel(x, v.List().Get(i)))
			}
		case x.IsExtension() && strings.Contains(strings.ToLower(string(x.Name())), "unit"):
			switch x.Kind() {
			case protoreflect.StringKind:
				unit = v.String()
			case protoreflect.EnumKind:
				unit = enumLabel(x, v)
			}
		}
		return true
	})
	return behavior, unit
}

// enumLabel is an option's enum value by name, or by number when the
// value has no name in its enum.
func enumLabel(x protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if n := enumName(x, v); n != "" {
		return n
	}
	return fmt.Sprint(v.Enum())
}

// httpMethod is the verb of an rpc's (google.api.http) rule: the one of
// get, put, post, delete, patch that is set, or custom.kind.
func httpMethod(opts *descriptorpb.MethodOptions) string {
	method := ""
	if opts == nil {
		return ""
	}
	opts.ProtoReflect().Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if x.FullName() != "google.api.http" || x.Kind() != protoreflect.MessageKind {
			return true
		}
		v.Message().Range(func(k protoreflect.FieldDescriptor, kv protoreflect.Value) bool {
			switch k.Name() {
			case "get", "put", "post", "delete", "patch":
				method = strings.ToUpper(string(k.Name()))
			case "custom":
				method = strings.ToUpper(kv.Message().Get(k.Message().Fields().ByName("kind")).String())
			}
			return method == ""
		})
		return false
	})
	return method
}

func typeName(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(fd.Message().FullName())
	case protoreflect.EnumKind:
		return string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}

func (l *lowerer) enum(ed protoreflect.EnumDescriptor) {
	e := &Enum{Elem: l.elem(ed), Closed: ed.IsClosed(), JSONFormat: coreFeature(ed, "json_format"),
		ClosedLoc: l.featureLoc(ed, 3, 7, 2), JSONFormatLoc: l.featureLoc(ed, 3, 7, 6)}
	for i := 0; i < ed.Values().Len(); i++ {
		v := ed.Values().Get(i)
		e.Values = append(e.Values, &EnumValue{Elem: l.elem(v), Short: string(v.Name()), Number: int32(v.Number())})
	}
	for i := 0; i < ed.ReservedRanges().Len(); i++ {
		r := ed.ReservedRanges().Get(i)
		e.ReservedRanges = append(e.ReservedRanges, [2]int32{int32(r[0]), int32(r[1])})
	}
	for i := 0; i < ed.ReservedNames().Len(); i++ {
		e.ReservedNames = append(e.ReservedNames, string(ed.ReservedNames().Get(i)))
	}
	e.Reservations = l.reservations(ed, 4, 5, len(e.ReservedRanges), len(e.ReservedNames))
	l.t.Enums[e.Name] = e
}

// featureLoc is where d's own options set one feature or option: sub is the
// path below d's descriptor (its options field, then the option, or the
// features field and the feature of FeatureSet). Zero when not written there.
func (l *lowerer) featureLoc(d protoreflect.Descriptor, sub ...int32) rules.Location {
	own := l.locs.ByDescriptor(d)
	if own.Path == nil {
		return rules.Location{}
	}
	loc := l.at(append(slices.Clip(own.Path), sub...))
	if loc.Line == 0 {
		return rules.Location{}
	}
	return loc
}

// reservations locates the reserved ranges and names of d, whose
// descriptor holds them under the field numbers rangeTag and nameTag.
func (l *lowerer) reservations(d protoreflect.Descriptor, rangeTag, nameTag int32, nr, nn int) Reservations {
	var r Reservations
	if nr+nn == 0 {
		return r
	}
	own := l.locs.ByDescriptor(d)
	at := func(tag int32, i int) rules.Location {
		if own.Path == nil {
			return rules.Location{File: l.file}
		}
		if loc := l.at(append(slices.Clip(own.Path), tag, int32(i))); loc.Line > 0 {
			return loc
		}
		return rules.Location{File: l.file, Line: own.StartLine + 1, Column: own.StartColumn + 1}
	}
	for i := range nr {
		r.RangeLocs = append(r.RangeLocs, at(rangeTag, i))
	}
	for i := range nn {
		r.NameLocs = append(r.NameLocs, at(nameTag, i))
	}
	return r
}

func (l *lowerer) service(sd protoreflect.ServiceDescriptor) {
	s := &Service{Elem: l.elem(sd)}
	for i := 0; i < sd.Methods().Len(); i++ {
		md := sd.Methods().Get(i)
		opts, _ := md.Options().(*descriptorpb.MethodOptions)
		s.RPCs = append(s.RPCs, &RPC{Elem: l.elem(md), Short: string(md.Name()),
			Input: string(md.Input().FullName()), Output: string(md.Output().FullName()),
			ClientStreaming: md.IsStreamingClient(), ServerStreaming: md.IsStreamingServer(),
			Idempotency: opts.GetIdempotencyLevel().String(), HTTPMethod: httpMethod(opts),
			IdempotencyLoc: l.featureLoc(md, 4, 34)}) // MethodOptions.idempotency_level
	}
	l.t.Services[s.Name] = s
}
