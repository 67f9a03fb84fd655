package protobuf

import (
	"fmt"
	"strings"

	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/contractlint/contractlint/rules"
)

// fileOptions are the file options that change generated code.
var fileOptions = []struct {
	name string
	get  func(*descriptorpb.FileOptions) string
}{
	{"java_package", func(o *descriptorpb.FileOptions) string { return o.GetJavaPackage() }},
	{"java_outer_classname", func(o *descriptorpb.FileOptions) string { return o.GetJavaOuterClassname() }},
	{"optimize_for", func(o *descriptorpb.FileOptions) string { return o.GetOptimizeFor().String() }},
	{"java_multiple_files", func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetJavaMultipleFiles()) }},
	{"go_package", func(o *descriptorpb.FileOptions) string { return o.GetGoPackage() }},
	{"cc_generic_services", func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetCcGenericServices()) }},
	{"java_generic_services", func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetJavaGenericServices()) }},
	{"py_generic_services", func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetPyGenericServices()) }},
	{"cc_enable_arenas", func(o *descriptorpb.FileOptions) string { return fmt.Sprint(o.GetCcEnableArenas()) }},
	{"objc_class_prefix", func(o *descriptorpb.FileOptions) string { return o.GetObjcClassPrefix() }},
	{"csharp_namespace", func(o *descriptorpb.FileOptions) string { return o.GetCsharpNamespace() }},
	{"swift_prefix", func(o *descriptorpb.FileOptions) string { return o.GetSwiftPrefix() }},
	{"php_class_prefix", func(o *descriptorpb.FileOptions) string { return o.GetPhpClassPrefix() }},
	{"php_namespace", func(o *descriptorpb.FileOptions) string { return o.GetPhpNamespace() }},
	{"php_metadata_namespace", func(o *descriptorpb.FileOptions) string { return o.GetPhpMetadataNamespace() }},
	{"ruby_package", func(o *descriptorpb.FileOptions) string { return o.GetRubyPackage() }},
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
	at     *places
	syntax string
	fopts  *descriptorpb.FileOptions
	// fixed holds the core features of a proto2 or proto3 file, which its
	// syntax fixes for every declaration in it: resolving one parses the
	// edition's defaults from text each time.
	fixed map[protoreflect.Name]string
}

// feature is d's core feature name.
func (l *lowerer) feature(d protoreflect.Descriptor, name protoreflect.Name) string {
	if l.syntax == "editions" {
		return coreFeature(d, name)
	}
	v, ok := l.fixed[name]
	if !ok {
		v = coreFeature(d, name)
		l.fixed[name] = v
	}
	return v
}

func lower(files linker.Files, locate func(string) string) *Tree {
	t := newTree()
	for _, fd := range files {
		if fd == nil {
			continue
		}
		l := &lowerer{t: t, fd: fd, at: newPlaces(fd, locate(fd.Path())), syntax: syntaxOf(fd),
			fixed: map[protoreflect.Name]string{}}
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

func (l *lowerer) elem(d protoreflect.Descriptor) Elem {
	e := Elem{Name: string(d.FullName()), File: l.fd.Path()}
	e.Loc, e.Comment = l.at.elem(d)
	return e
}

func (l *lowerer) lowerFile() {
	f := &File{Name: l.fd.Path(), Loc: l.at.at(nil), Package: string(l.fd.Package()),
		Syntax: l.syntax, Options: map[string]string{}, OptionLoc: map[string]rules.Location{}}
	f.PackageLoc = l.at.filePart("package")
	f.SyntaxLoc = l.at.filePart("syntax")
	if f.SyntaxLoc.Line == 0 {
		f.SyntaxLoc = l.at.filePart("edition")
	}
	for _, o := range fileOptions {
		f.Options[o.name] = o.get(l.fopts)
		if loc, ok := l.at.option(nil, o.name); ok {
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
		NoAccessor: opts.GetNoStandardDescriptorAccessor(), JSONFormat: l.feature(md, "json_format"),
		JSONFormatLoc: l.optionLoc(md, "features.json_format"),
		MessageSetLoc: l.optionLoc(md, "message_set_wire_format"), NoAccessorLoc: l.optionLoc(md, "no_standard_descriptor_accessor")}
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
	m.Reservations = l.reservations(md, len(m.ReservedRanges), len(m.ReservedNames))
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
		f.UTF8 = l.feature(fd, "utf8_validation")
		f.JavaUTF8 = javaUTF8(fd, l.fopts, f.UTF8)
		if l.fopts != nil && l.fopts.JavaStringCheckUtf8 != nil {
			f.JavaUTF8Loc, _ = l.at.option(nil, "java_string_check_utf8")
			f.JavaUTF8Loc.File = l.at.file
		}
		f.CType = cppStringType(fd, opts)
	case protoreflect.BytesKind:
		f.CType = cppStringType(fd, opts)
	}
	if fd.IsExtension() {
		f.Extendee = string(fd.ContainingMessage().FullName())
	}
	f.Trailing = l.at.trailing(fd)
	f.Behavior, f.Unit, f.ValidateRequired = fieldExtensions(opts)
	f.Validate = validateConstraints(opts)
	return f
}

// validateConstraints reads the bounds of a field's protovalidate or
// protoc-gen-validate rules: both write them in a message per kind of
// value (string, int32, double, ...) with the same field names.
func validateConstraints(opts *descriptorpb.FieldOptions) Constraints {
	var c Constraints
	if opts == nil {
		return c
	}
	opts.ProtoReflect().Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if (x.FullName() != "buf.validate.field" && x.FullName() != "validate.rules") || x.Kind() != protoreflect.MessageKind {
			return true
		}
		c.readKinds(v.Message())
		return false
	})
	return c
}

// readKinds reads the rules of each kind a FieldRules message sets. A
// repeated field's rules for its items (repeated.items, itself a
// FieldRules) bound each value it holds, and are read as its own, as an
// OpenAPI array's items schema is compared.
func (c *Constraints) readKinds(fr protoreflect.Message) {
	fr.Range(func(k protoreflect.FieldDescriptor, kv protoreflect.Value) bool {
		if k.Kind() != protoreflect.MessageKind || k.IsList() || k.IsMap() {
			return true
		}
		bytes := k.Name() == "bytes"
		kv.Message().Range(func(r protoreflect.FieldDescriptor, rv protoreflect.Value) bool {
			if k.Name() == "repeated" && r.Name() == "items" && r.Kind() == protoreflect.MessageKind {
				c.readKinds(rv.Message())
				return true
			}
			c.set(bytesLengthName(string(r.Name()), bytes), r, rv)
			return true
		})
		return true
	})
}

// bytesLengthName names a bytes field's length rules (len, min_len, max_len,
// counted in bytes) as a string's rules in bytes are named.
func bytesLengthName(name string, bytes bool) string {
	if !bytes {
		return name
	}
	switch name {
	case "len":
		return "len_bytes"
	case "min_len":
		return "min_bytes"
	case "max_len":
		return "max_bytes"
	}
	return name
}

// set records one rule of a kind's rules message, by its name.
func (c *Constraints) set(name string, r protoreflect.FieldDescriptor, v protoreflect.Value) {
	if r.Kind() == protoreflect.MessageKind || r.Kind() == protoreflect.GroupKind {
		return // a duration's or timestamp's bound: not compared
	}
	switch {
	case name == "pattern" && r.Kind() == protoreflect.StringKind:
		c.Pattern = v.String()
		return
	case name == "in" && r.IsList():
		c.In = listText(v.List())
		return
	case name == "not_in" && r.IsList():
		c.NotIn = listText(v.List())
		return
	case name == "const" && !r.IsList():
		c.Const = fmt.Sprint(v.Interface())
		return
	}
	n, ok := number(r, v)
	if !ok {
		return
	}
	switch name {
	case "len", "min_len", "max_len":
		lengthRule(strings.TrimSuffix(name, "_len"), n, &c.MinLen, &c.MaxLen)
	case "len_bytes", "min_bytes", "max_bytes":
		lengthRule(strings.TrimSuffix(name, "_bytes"), n, &c.MinBytes, &c.MaxBytes)
	case "gt", "gte":
		c.Min = &rules.Limit{Value: n, Exclusive: name == "gt"}
	case "lt", "lte":
		c.Max = &rules.Limit{Value: n, Exclusive: name == "lt"}
	}
}

// lengthRule sets the ends of a length bound a rule names: min, max, or
// both for len, which fixes the length.
func lengthRule(end string, n float64, lo, hi **rules.Limit) {
	if end != "max" {
		*lo = &rules.Limit{Value: n}
	}
	if end != "min" {
		*hi = &rules.Limit{Value: n}
	}
}

// listText is a rule's list of scalar values as text, in its order.
func listText(l protoreflect.List) []string {
	out := make([]string, l.Len())
	for i := range out {
		out[i] = fmt.Sprint(l.Get(i).Interface())
	}
	return out
}

// number is a scalar rule value as a float64; false for a list or message.
func number(r protoreflect.FieldDescriptor, v protoreflect.Value) (float64, bool) {
	if r.IsList() || r.IsMap() {
		return 0, false
	}
	switch r.Kind() {
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind,
		protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
		return float64(v.Int()), true
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return float64(v.Uint()), true
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return v.Float(), true
	}
	return 0, false
}

// fieldExtensions reads the custom field options that carry meaning:
// (google.api.field_behavior), any string or enum option named *unit*, and
// whether a validation rule requires the field.
func fieldExtensions(opts *descriptorpb.FieldOptions) (behavior []string, unit string, required bool) {
	if opts == nil {
		return nil, "", false
	}
	opts.ProtoReflect().Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case x.FullName() == "google.api.field_behavior" && x.IsList():
			for i := 0; i < v.List().Len(); i++ {
				behavior = append(behavior, enumLabel(x, v.List().Get(i)))
			}
		case (x.FullName() == "buf.validate.field" || x.FullName() == "validate.rules") && x.Kind() == protoreflect.MessageKind:
			required = validateRequired(v.Message())
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
	return behavior, unit, required
}

// validateRequired reads a validation rule's `required = true`: at the top
// of buf.validate's FieldRules, or in the rules of one kind, as
// protoc-gen-validate writes it ((validate.rules).message.required).
func validateRequired(m protoreflect.Message) bool {
	found := false
	m.Range(func(k protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case k.Name() == "required" && k.Kind() == protoreflect.BoolKind:
			found = v.Bool()
		case k.Kind() == protoreflect.MessageKind && !k.IsList() && !k.IsMap():
			if r := k.Message().Fields().ByName("required"); r != nil && r.Kind() == protoreflect.BoolKind {
				found = v.Message().Get(r).Bool()
			}
		}
		return !found
	})
	return found
}

// enumLabel is an option's enum value by name, or by number when the
// value has no name in its enum.
func enumLabel(x protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if n := enumName(x, v); n != "" {
		return n
	}
	return fmt.Sprint(v.Enum())
}

// httpBindings reads an rpc's (google.api.http) rule: its own binding
// first, then its additional_bindings. A binding is the one of get, put,
// post, delete, patch that is set, or custom {kind, path}, with its body.
func httpBindings(opts *descriptorpb.MethodOptions) []HTTPBinding {
	if opts == nil {
		return nil
	}
	var out []HTTPBinding
	opts.ProtoReflect().Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if x.FullName() != "google.api.http" || x.Kind() != protoreflect.MessageKind {
			return true
		}
		out = appendBinding(out, v.Message())
		return false
	})
	return out
}

// appendBinding appends the binding of one HttpRule, then those of its
// additional_bindings (which, per google/api/http.proto, nest one level).
func appendBinding(out []HTTPBinding, rule protoreflect.Message) []HTTPBinding {
	var b HTTPBinding
	var more protoreflect.List
	rule.Range(func(k protoreflect.FieldDescriptor, kv protoreflect.Value) bool {
		switch k.Name() {
		case "get", "put", "post", "delete", "patch":
			b.Method, b.Path = strings.ToUpper(string(k.Name())), kv.String()
		case "custom":
			if k.Kind() == protoreflect.MessageKind {
				m := kv.Message()
				if kind, path := k.Message().Fields().ByName("kind"), k.Message().Fields().ByName("path"); kind != nil && path != nil {
					b.Method, b.Path = strings.ToUpper(m.Get(kind).String()), m.Get(path).String()
				}
			}
		case "body":
			b.Body = kv.String()
		case "additional_bindings":
			if k.IsList() && k.Kind() == protoreflect.MessageKind {
				more = kv.List()
			}
		}
		return true
	})
	if b.Method != "" {
		out = append(out, b)
	}
	for i := 0; more != nil && i < more.Len(); i++ {
		out = appendBinding(out, more.Get(i).Message())
	}
	return out
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
	e := &Enum{Elem: l.elem(ed), Closed: ed.IsClosed(), JSONFormat: l.feature(ed, "json_format"),
		ClosedLoc: l.optionLoc(ed, "features.enum_type"), JSONFormatLoc: l.optionLoc(ed, "features.json_format")}
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
	e.Reservations = l.reservations(ed, len(e.ReservedRanges), len(e.ReservedNames))
	l.t.Enums[e.Name] = e
}

// optionLoc is where d's own body sets the option or feature name (as
// written: "features.json_format"); zero when it does not.
func (l *lowerer) optionLoc(d protoreflect.Descriptor, name string) rules.Location {
	loc, _ := l.at.option(d, name)
	return loc
}

// reservations locates d's nr reserved ranges and nn reserved names; one
// without a place of its own is placed at d.
func (l *lowerer) reservations(d protoreflect.Descriptor, nr, nn int) Reservations {
	var r Reservations
	if nr+nn == 0 {
		return r
	}
	own, _ := l.at.elem(d)
	ranges, names := l.at.reserved(d)
	at := func(locs []rules.Location, i int) rules.Location {
		if i < len(locs) {
			return locs[i]
		}
		return own
	}
	for i := range nr {
		r.RangeLocs = append(r.RangeLocs, at(ranges, i))
	}
	for i := range nn {
		r.NameLocs = append(r.NameLocs, at(names, i))
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
			Idempotency: opts.GetIdempotencyLevel().String(), HTTP: httpBindings(opts),
			IdempotencyLoc: l.optionLoc(md, "idempotency_level")})
		if r := s.RPCs[len(s.RPCs)-1]; len(r.HTTP) > 0 {
			r.HTTPMethod = r.HTTP[0].Method
		}
	}
	l.t.Services[s.Name] = s
}
