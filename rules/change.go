package rules

import "fmt"

// Format is a contract format; rules declare the formats they apply to.
type Format uint8

const (
	OpenAPI Format = 1 << iota
	Proto
)

func (f Format) String() string {
	switch f {
	case OpenAPI:
		return "openapi"
	case Proto:
		return "proto"
	case OpenAPI | Proto:
		return "openapi,proto"
	}
	return ""
}

// Kind says whether an element appeared, disappeared or changed.
type Kind uint8

const (
	Added Kind = iota + 1
	Removed
	Modified
)

// Subject names what kind of element a change is about. Both formats share
// the subjects they have in common (a field is a field), so one rule covers both.
type Subject uint8

const (
	SubjectPath Subject = iota + 1
	SubjectOperation
	SubjectParameter
	SubjectRequestBody
	SubjectMediaType
	SubjectResponse
	SubjectHeader
	SubjectSchema // the constraints of one schema (type, bounds, enum, ...)
	SubjectField  // a named property (OpenAPI) or message field (proto)
	SubjectEnumValue
	SubjectSecurity
	SubjectScope
	SubjectDiscriminator
	SubjectFile
	SubjectPackage
	SubjectMessage
	SubjectEnum
	SubjectService
	SubjectRPC
	SubjectOneof
	SubjectReserved
	SubjectFileOption
	SubjectExtension
	// SubjectContract is a whole contract file as review sees it in git (a
	// deleted OpenAPI document or .proto file), not a file of a proto tree.
	SubjectContract
	// SubjectLock is contractlint.lock, the record of proto field numbers
	// ever used, as a pull request changes it.
	SubjectLock
)

// Direction says who writes the data a change is in: clients send requests and
// read responses, so the same change breaks someone in one direction only.
type Direction uint8

const (
	Request Direction = 1 << iota
	Response
)

// Has reports whether d includes any of x.
func (d Direction) Has(x Direction) bool { return d&x != 0 }

// Aspect names the property of an element that a Modified change is about.
type Aspect string

const (
	AspectType            Aspect = "type"
	AspectFormat          Aspect = "format"
	AspectRequired        Aspect = "required"
	AspectNullable        Aspect = "nullable"
	AspectEnum            Aspect = "enum" // the schema became (or stopped being) an enum
	AspectMaxLength       Aspect = "maxLength"
	AspectMinLength       Aspect = "minLength"
	AspectMaximum         Aspect = "maximum"
	AspectMinimum         Aspect = "minimum"
	AspectMaxItems        Aspect = "maxItems"
	AspectMinItems        Aspect = "minItems"
	AspectMaxProperties   Aspect = "maxProperties"
	AspectMinProperties   Aspect = "minProperties"
	AspectMultipleOf      Aspect = "multipleOf"
	AspectPattern         Aspect = "pattern"
	AspectAdditionalProps Aspect = "additionalProperties"
	AspectUniqueItems     Aspect = "uniqueItems"
	AspectReadOnly        Aspect = "readOnly"
	AspectIn              Aspect = "in"
	AspectName            Aspect = "name"
	AspectOperationID     Aspect = "operationId"
	AspectComposition     Aspect = "composition"
	AspectPropertyName    Aspect = "discriminator.propertyName"
	AspectMapping         Aspect = "discriminator.mapping"
	AspectNumber          Aspect = "number"
	AspectJSONName        Aspect = "json_name"
	AspectCardinality     Aspect = "cardinality"
	AspectDefault         Aspect = "default"
	AspectPacked          Aspect = "packed"
	AspectOneof           Aspect = "oneof"
	AspectMapEntry        Aspect = "map_entry"
	AspectClientStreaming Aspect = "client_streaming"
	AspectServerStreaming Aspect = "server_streaming"
	AspectRequestType     Aspect = "request_type"
	AspectResponseType    Aspect = "response_type"
	AspectIdempotency     Aspect = "idempotency_level"
	AspectHTTPBinding     Aspect = "google.api.http"
	AspectHTTPBody        Aspect = "google.api.http body"
	AspectSyntax          Aspect = "syntax"
	AspectOption          Aspect = "option"
	AspectJSONFormat      Aspect = "json_format"
	// AspectAllowedValue and AspectRefusedValue mark a SubjectEnumValue
	// change that is a value of a validation rule's `in` or `not_in` list
	// (protovalidate, PGV), not of a proto enum: a list a server checks
	// requests against, as an OpenAPI enum.
	AspectAllowedValue Aspect = "in value"
	AspectRefusedValue Aspect = "not_in value"
	// AspectFile: a proto element moved to another file of the same package.
	AspectFile           Aspect = "file"
	AspectExtensionRange Aspect = "extension_range"
	// OpenAPI, JSON Schema 2020-12 and extensions.
	AspectMinContains Aspect = "minContains"
	AspectMaxContains Aspect = "maxContains"
	AspectConst       Aspect = "const"
	// AspectBoolean: a schema became (or stopped being) the boolean schema
	// false, which no value matches; Old/New are "false" or "schema".
	AspectBoolean   Aspect = "boolean schema"
	AspectWriteOnly Aspect = "writeOnly"
	// AspectStability is x-stability-level (draft, alpha, beta, stable).
	AspectStability Aspect = "x-stability-level"
)

// Constraining lists the JSON Schema 2020-12 keywords that, added to a
// schema, reject values it accepted (and, removed, let through values
// readers never saw). A change to one has the keyword as its Aspect and
// "set" or "" as Old and New.
var Constraining = []Aspect{"contains", "dependentRequired", "dependentSchemas", "if", "then", "else",
	"propertyNames", "patternProperties", "unevaluatedItems", "prefixItems", "contentEncoding",
	"contentMediaType", "contentSchema", "unevaluatedProperties"}

// Value is one side of a change. Text is always set when the side has a
// value; which typed part is set as well depends on the aspect.
type Value struct {
	// Text is the side as words, for messages, fingerprints, custom rules'
	// old and new, and `debug diff`. A rule never parses it: what it judges
	// by is typed (the parts below, and Change.Required, In, Webhook).
	Text string
	// Limit is a numeric keyword's value (AspectMaxLength ...
	// AspectMaxContains, AspectMultipleOf); nil when the side states none.
	Limit *Limit
	// Types are an OpenAPI schema's JSON types (AspectType), sorted, null
	// left out (AspectNullable says that); nil for a schema of any type.
	Types []string
	// Bool is a boolean aspect's value: AspectNullable, AspectUniqueItems,
	// AspectReadOnly, AspectWriteOnly, a proto boolean AspectOption; for
	// AspectBoolean, whether the side is the schema false.
	Bool bool
}

// Limit is one side of a numeric keyword (maxLength, maximum, multipleOf,
// ...), typed: Value.Limit of a change to one. Exclusive marks a maximum or minimum that excludes its own
// value (exclusiveMaximum, in either OpenAPI version's spelling).
type Limit struct {
	Value     float64
	Exclusive bool
}

// String is the limit as messages show it: "10", "10 (exclusive)", or ""
// for no limit.
func (l *Limit) String() string {
	if l == nil {
		return ""
	}
	s := fmt.Sprint(l.Value)
	if l.Exclusive {
		s += " (exclusive)"
	}
	return s
}

// Field is the meaning-bearing facts of a property or message field, kept on
// field changes so evolution rules compare meanings without seeing documents.
type Field struct {
	Name        string
	Type        string // OpenAPI: JSON type; proto: scalar name or full type name
	Format      string
	Array       bool
	Map         bool
	Nullable    bool
	Required    bool
	Deprecated  bool
	Unit        string // x-unit / x-units as written; proto: a custom *unit* option
	Description string
	MultipleOf  float64
	Example     float64
	HasExample  bool
	// HasDefault: the schema declares a default (OpenAPI), so a reader
	// that is not sent the field still has a value.
	HasDefault bool
	Enum       []string
	Number     int32 // proto field number
	// EnumNumbers are, for a proto enum field, the numbers of the values
	// Enum names, index for index; nil when the enum is not in the tree.
	EnumNumbers []int32
	JSONName    string
	// Title is the schema's title (OpenAPI); it may name the unit too.
	Title string
	// Pattern is the schema's pattern (OpenAPI), and StringExample a string
	// example: money sent as text ("40.00") shows its scale there.
	Pattern       string
	StringExample string
	// Behavior lists proto (google.api.field_behavior) values.
	Behavior []string
	// Shape is, for a proto message field, its message's encoding: every
	// field's number, wire type and JSON name, nested messages by theirs.
	// Two messages of one Shape read each other's bytes and JSON; "" when
	// the message is not in the tree.
	Shape string
	// Key is a proto map's key type (Map is set and Type is the value type);
	// for proto, Format holds the kind of a non-scalar Type: enum, message, group.
	Key string
	Loc Location
	// Path identifies the field for lint findings and ignores: a JSON
	// pointer to the property (OpenAPI) or the field's full name (proto).
	Path string
}

// Change is one difference between two contract versions. The diff is computed
// once; rules are filters and messages over these values.
type Change struct {
	Kind    Kind
	Subject Subject
	Aspect  Aspect
	// Name is the element's own name: a property, parameter, status, value.
	Name string
	// Path identifies the element for messages and ignores: a JSON pointer
	// into the document (OpenAPI) or a full name (proto).
	Path string
	// Old and New are the two sides of the change: for a Modified change
	// the aspect's old and new values, for an addition or removal what the
	// element held (Vocabulary says which, per kind of change).
	Old, New Value
	// Required is whether the element is required: for an added parameter,
	// request body, header or field, by the new version; for a removed one,
	// by the old; for AspectRequired, whether it became required.
	Required bool
	// In is a parameter's location (path, query, header, cookie): where an
	// added one is sent, or a removed one was.
	In string
	// Webhook marks a removed 3.1 webhook (SubjectOperation): the API no
	// longer calls the client, which breaks no call the client makes.
	Webhook bool
	// Dir says who writes the data the element is in.
	Dir    Direction
	OldLoc Location
	NewLoc Location
	// Operations lists the operations (or rpcs) that reach the element.
	Operations []string
	Format     Format
	// OldField and NewField describe a field on both sides (SubjectField).
	OldField, NewField *Field
	// Deprecated marks a removed OpenAPI operation (or a path whose every
	// operation) the old version already deprecated; Sunset is the x-sunset
	// date it announced, as written ("" when none).
	Deprecated bool
	Sunset     string
	// ToldApartBy is, for a oneOf member added, the property it requires
	// with values no other member accepts: no body that matched another
	// member can match it, so it overlaps none; or, for members told apart
	// as wholes, the keyword that does it ("const", "enum", "type",
	// "additionalProperties").
	ToldApartBy string
	// Anchor is, for an OpenAPI removal, the element of the new file that
	// held the removed one (a property's schema, a parameter's operation):
	// the line a pull request shows, as a proto removal's NewLoc is.
	Anchor Location
	// Undecided says, for a oneOf/anyOf member removed, why the diff could
	// not tell whether the new schema still admits every value the member
	// did (a pattern, a format, a not it does not compare); "" when it
	// could: the member's values are refused. For a scope added, why the
	// name is outside the contract (OpenAPI 3.0 lists none for an http or
	// apiKey scheme), so whether old tokens lack it cannot be told.
	Undecided string
	// Proto is what a change to a proto element carries beyond its places.
	Proto ProtoElement
}

// ProtoElement holds the facts proto's rules judge removals and renames by.
type ProtoElement struct {
	// NumberReserved and NameReserved tell, for a removed field or enum
	// value, whether the new version reserves its number and its name.
	NumberReserved, NameReserved bool
	// FileRemoved marks the removal of an element whose whole file was
	// deleted, so file-level rules report the file once, not each element.
	FileRemoved bool
	// PackageLoc is where package-level rules show a removed element when
	// it differs from NewLoc: its nearest enclosing message that survives
	// in another file of the package.
	PackageLoc Location
	// Parent and Number are, for an enum value whose names changed, the
	// enum's full name and the value's number, which messages name.
	Parent string
	Number int32
	// WireSame marks a change that leaves both the binary and the JSON
	// encoding as they were: a field moved alone into a oneof the old
	// message did not have, which encodes as the field always did.
	WireSame bool
}

// Is reports whether c is a change of kind k to subject s.
func (c *Change) Is(k Kind, s Subject) bool { return c.Kind == k && c.Subject == s }

// MeaningChanged reports whether c is the change field-redefined judges: a
// field whose meaning-bearing facts (type, format, unit, scale, enum,
// shape) differ between the sides, with both sides' facts in OldField and
// NewField. A narrower change to a field (required-ness, a number) has an
// Aspect and is not one.
func (c *Change) MeaningChanged() bool {
	return c.Is(Modified, SubjectField) && c.Aspect == "" && c.OldField != nil && c.NewField != nil
}

// Where is the location a finding about c points at: the new side, or the
// old side for a removal. A proto removal points at the element that held
// the deleted one in the new file (the message that lost a field), as buf
// does, so a pull request can show it on a line it has.
func (c *Change) Where() (Location, bool) {
	if c.NewLoc.IsZero() || c.Kind == Removed && c.Format != Proto {
		return c.OldLoc, true
	}
	return c.NewLoc, false
}

// Finding builds a finding for rule r about c, carrying both locations.
func (c *Change) Finding(r *Rule, msg string) Finding {
	where, removed := c.Where()
	if c.Kind == Removed && !removed && c.OldLoc.Line > 0 {
		msg += fmt.Sprintf(" (it was at %s)", c.OldLoc)
	}
	f := Finding{Rule: r.ID, Severity: r.Severity, Message: msg, Where: where,
		Removed: removed, Operations: c.Operations, Format: c.Format, Path: c.Path, Fingerprint: changeFingerprint(r.ID, c)}
	if removed && c.Anchor.Line > 0 {
		anchor := c.Anchor
		f.Anchor = &anchor
	}
	if !removed && !c.OldLoc.IsZero() && c.OldLoc != where {
		old := c.OldLoc
		f.Old = &old
	}
	return f
}
