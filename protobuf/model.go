// Package protobuf compiles .proto files with protocompile, lowers them at
// once into a compact model (the compiler's descriptors are dropped), and
// computes the typed diff and the lint view of one version.
package protobuf

import (
	"slices"

	"github.com/contractlint/contractlint/rules"
)

// Tree is one version of a set of .proto files, lowered. Only the files the
// caller listed are here; their imports are only referenced by full name.
type Tree struct {
	Files    map[string]*File // by import name (the path relative to its import root)
	Messages map[string]*Message
	Enums    map[string]*Enum
	Services map[string]*Service
	// Extensions by extendee full name and number: "pkg.Msg/100".
	Extensions map[string]*Field
}

// File holds what a file declares about itself.
type File struct {
	Name       string
	Loc        rules.Location
	Package    string
	PackageLoc rules.Location
	Syntax     string // proto2, proto3 or editions
	SyntaxLoc  rules.Location
	// Options holds the file options that change generated code, by name
	// (go_package, java_package, ...), with their declaration lines.
	Options   map[string]string
	OptionLoc map[string]rules.Location
}

// Elem is what every named declaration has.
type Elem struct {
	Name    string // full name
	File    string // import name of the declaring file
	Loc     rules.Location
	Comment string // leading comment, trimmed
}

// Message is a message with its fields in number order.
type Message struct {
	Elem
	Fields         []*Field
	Oneofs         []*Oneof
	ReservedRanges [][2]int32 // inclusive
	ReservedNames  []string
	Reservations
	ExtRanges  [][2]int32 // inclusive
	MapEntry   bool
	MessageSet bool
	NoAccessor bool // no_standard_descriptor_accessor
	JSONFormat string
	// JSONFormatLoc is the message's own features.json_format line, if written;
	// MessageSetLoc and NoAccessorLoc its option lines.
	JSONFormatLoc, MessageSetLoc, NoAccessorLoc rules.Location
}

// Reservations locate each reserved range and name, index for index, so
// releasing one is reported where it was written.
type Reservations struct {
	RangeLocs, NameLocs []rules.Location
}

// Oneof is a real (not synthetic) oneof.
type Oneof struct {
	Elem
}

// Cardinalities of a field.
const (
	CardOptional = "optional" // explicit presence
	CardImplicit = "implicit" // proto3 singular without presence
	CardRequired = "required"
	CardRepeated = "repeated"
	CardMap      = "map"
)

// Field is a message field or an extension.
type Field struct {
	Elem
	Short    string // the field's own name
	Number   int32
	JSONName string
	// Type is the scalar name (int32, string, ...) or the full name of the
	// message or enum; Kind is the scalar name, "message", "group" or "enum".
	Type       string
	Kind       string
	Card       string
	Oneof      string // the real oneof's short name
	Default    string
	HasDefault bool
	Packed     bool
	Deprecated bool
	CType      string // C++ string type of a string or bytes field (ctype or string_type)
	JSType     string
	UTF8       string // a string field's resolved utf8_validation: VERIFY or NONE
	JavaUTF8   string // a string field's Java UTF-8 check: VERIFY, else its UTF8
	// JavaUTF8Loc is the file's java_string_check_utf8 line when the file
	// writes it: where a change of it shows, for every string field.
	JavaUTF8Loc rules.Location
	Extendee    string // full name of the extended message, for extensions
	// MapKey and MapValue describe a map field's entry; MapKind is the
	// value's Kind.
	MapKey, MapValue, MapKind string
	// Trailing is the comment after the field on its line; with Comment it
	// is where a field states its unit ("// Price in cents.").
	Trailing string
	// Behavior lists (google.api.field_behavior) values: OPTIONAL, REQUIRED...
	Behavior []string
	// Unit is the value of a custom option whose name says unit, if any.
	Unit string
	// ValidateRequired marks a field a validation rule requires:
	// (buf.validate.field).required or protoc-gen-validate's
	// (validate.rules).message.required.
	ValidateRequired bool
	// Validate holds the field's protovalidate ((buf.validate.field)) or
	// protoc-gen-validate ((validate.rules)) bounds on its value.
	Validate Constraints
}

// Constraints are the bounds a validation rule puts on a field's value:
// a string's length (in characters, and in bytes: a bytes field's lengths
// are in bytes) and pattern, a number's range, the values it allows (in),
// refuses (not_in) or fixes (const); nil or "" when unset. `len` and
// `len_bytes` set both ends of their unit.
type Constraints struct {
	MinLen, MaxLen     *rules.Limit
	MinBytes, MaxBytes *rules.Limit
	Pattern            string
	Min, Max           *rules.Limit // gt/gte, lt/lte: Exclusive for gt and lt
	In, NotIn          []string     // scalar values as text; an enum's by number
	Const              string
}

// Required reports whether the contract requires clients to set f: only an
// explicit signal does (proto2 `required` or editions LEGACY_REQUIRED,
// (google.api.field_behavior) = REQUIRED, a validation rule). A plain
// proto3 field is optional on the wire, whatever its name.
func (f *Field) Required() bool {
	return f.Card == CardRequired || f.ValidateRequired || slices.Contains(f.Behavior, "REQUIRED")
}

// Enum is an enum with its values in declaration order.
type Enum struct {
	Elem
	Values         []*EnumValue
	ReservedRanges [][2]int32
	ReservedNames  []string
	Reservations
	Closed     bool
	JSONFormat string
	// ClosedLoc and JSONFormatLoc are the enum's own features.enum_type and
	// features.json_format lines, if written.
	ClosedLoc, JSONFormatLoc rules.Location
}

// EnumValue is one enum value.
type EnumValue struct {
	Elem
	Short  string
	Number int32
}

// Service is a service with its rpcs.
type Service struct {
	Elem
	RPCs []*RPC
}

// RPC is one method of a service.
type RPC struct {
	Elem
	Short           string
	Input, Output   string
	ClientStreaming bool
	ServerStreaming bool
	Idempotency     string // IDEMPOTENCY_UNKNOWN, NO_SIDE_EFFECTS, IDEMPOTENT
	// IdempotencyLoc is the rpc's idempotency_level option line, if written.
	IdempotencyLoc rules.Location
	// HTTPMethod is the verb of the rpc's (google.api.http) binding: GET,
	// POST, ...; "" when it has none.
	HTTPMethod string
	// HTTP are the rpc's (google.api.http) bindings, the rule's own first,
	// then its additional_bindings: the routes HTTP clients call it by.
	HTTP []HTTPBinding
}

// HTTPBinding is one HTTP route of an rpc (grpc-gateway, transcoding).
type HTTPBinding struct {
	Method string // GET, POST, ... or a custom kind, upper-case
	Path   string // the path template, as written
	Body   string // the request field bound to the body: "*", a field name, or ""
}

// Route is the binding's method and path template: what an HTTP client calls.
func (b HTTPBinding) Route() string { return b.Method + " " + b.Path }
