package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Proto strictness sets, after buf's categories: FILE is the strictest
// (generated code must not change), WIRE the loosest (only the binary
// encoding matters).
const (
	lvFile  = LevelFile
	lvFP    = LevelFile | LevelPackage
	lvFPJ   = LevelFile | LevelPackage | LevelWireJSON
	lvAll   = LevelFile | LevelPackage | LevelWireJSON | LevelWire
	lvJ     = LevelWireJSON
	lvJW    = LevelWireJSON | LevelWire
	lvWire  = LevelWire
	lvPkg   = LevelPackage
	lvNoBuf = LevelFile | LevelPackage
)

// protoBreaking is the breaking catalogue for .proto contracts: every rule
// of buf's FILE, PACKAGE, WIRE_JSON and WIRE categories, each under its own
// ID, run at the levels buf runs it.
func protoBreaking() []*Rule {
	return slices.Concat(protoDeletions(), protoFieldRules(), protoTypeRules(), protoRPCRules(), protoHTTPRules(), protoFileRules())
}

// changeMsg is the match most proto rules share: when picks the changes a
// rule reports, and msg formats the element's path, old value and new value.
func changeMsg(msg string, when func(c *Change) bool) func(c *Change) (string, bool) {
	return func(c *Change) (string, bool) {
		if !when(c) {
			return "", false
		}
		return fmt.Sprintf(msg, c.Path, c.Old.Text, c.New.Text), true
	}
}

// removedFromFile matches an element deleted from a file that still exists,
// or moved to another file: generated code that imports it by file breaks.
func removedFromFile(c *Change, s Subject) (string, bool) {
	switch {
	case c.Is(Removed, s) && !c.Proto.FileRemoved:
		return fmt.Sprintf("removed from %s", c.OldLoc.File), true
	case c.Is(Modified, s) && c.Aspect == AspectFile:
		return fmt.Sprintf("moved from %s to %s", c.Old.Text, c.New.Text), true
	}
	return "", false
}

// deletion is what a deletion rule's family leaves to each member, keyed so
// that its strings cannot swap unnoticed.
type deletion struct {
	ID, Buf string
	// What names the element in the texts ("message").
	What    string
	Subject Subject
	Bad     string
	Good    string
}

func fileDeletion(d deletion) *Rule {
	what, s := d.What, d.Subject
	return onChange(&Rule{
		ID: d.ID, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFile, Buf: []string{d.Buf},
		Reads: []Entry{{Removed, s, ""}, {Modified, s, AspectFile}},
		Doc: Doc{
			Title: article(what) + " " + what + " was deleted from its file",
			Text: "Generated code is laid out per file: deleting a " + what + " from a file, or moving it to another file, " +
				"breaks every program that refers to it through the old file's generated package or header. " +
				"Keep the " + what + " where it is and mark it deprecated; remove it in a new major version.",
			Bad:  d.Bad,
			Good: d.Good,
		},
	}, func(c *Change) (string, bool) {
		how, ok := removedFromFile(c, s)
		return fmt.Sprintf("%s %s %s: code generated from the old file no longer has it; keep it and deprecate it", what, c.Path, how), ok
	})
}

func packageDeletion(d deletion) *Rule {
	what, s := d.What, d.Subject
	return inPackage(onChange(&Rule{
		ID: d.ID, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvPkg, Buf: []string{d.Buf},
		Reads: []Entry{{Removed, s, ""}},
		Doc: Doc{
			Title: article(what) + " " + what + " was deleted from its package",
			Text: "Clients refer to a " + what + " by its full name, package included. Deleting it from the package (moving it " +
				"between files of the same package is fine at this level) breaks every client that still uses it. " +
				"Deprecate it and remove it in a new package version.",
			Bad:  d.Bad,
			Good: d.Good,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s %s deleted from package: clients that use it no longer compile or resolve it; deprecate it instead", what, c.Path),
			c.Is(Removed, s)
	}))
}

func protoDeletions() []*Rule {
	return []*Rule{
		protoFileRemoved(),
		fileDeletion(deletion{ID: "proto-message-removed", Buf: "MESSAGE_NO_DELETE", What: "message", Subject: SubjectMessage,
			Bad: `message Order {}   // deleted`, Good: `message Order { option deprecated = true; }`}),
		fileDeletion(deletion{ID: "proto-enum-removed", Buf: "ENUM_NO_DELETE", What: "enum", Subject: SubjectEnum,
			Bad: `enum Status { ... }   // deleted`, Good: `enum Status { option deprecated = true; ... }`}),
		fileDeletion(deletion{ID: "proto-service-removed", Buf: "SERVICE_NO_DELETE", What: "service", Subject: SubjectService,
			Bad: `service Orders { ... }   // deleted`, Good: `service Orders { option deprecated = true; ... }`}),
		fileDeletion(deletion{ID: "proto-extension-removed", Buf: "EXTENSION_NO_DELETE", What: "extension", Subject: SubjectExtension,
			Bad: `extend Options { string label = 1000; }   // deleted`, Good: `extend Options { string label = 1000 [deprecated = true]; }`}),
		packageDeletion(deletion{ID: "proto-package-removed", Buf: "PACKAGE_NO_DELETE", What: "package", Subject: SubjectPackage,
			Bad: `// old: package shop.v1 in orders.proto
// new: no file declares shop.v1`,
			Good: `// new: keep shop.v1 until its clients moved to shop.v2`}),
		packageDeletion(deletion{ID: "proto-package-message-removed", Buf: "PACKAGE_MESSAGE_NO_DELETE", What: "message", Subject: SubjectMessage,
			Bad: `message Order {}   // deleted from shop.v1`, Good: `message Order { option deprecated = true; }`}),
		packageDeletion(deletion{ID: "proto-package-enum-removed", Buf: "PACKAGE_ENUM_NO_DELETE", What: "enum", Subject: SubjectEnum,
			Bad: `enum Status { ... }   // deleted from shop.v1`, Good: `enum Status { option deprecated = true; ... }`}),
		packageDeletion(deletion{ID: "proto-package-service-removed", Buf: "PACKAGE_SERVICE_NO_DELETE", What: "service", Subject: SubjectService,
			Bad: `service Orders { ... }   // deleted from shop.v1`, Good: `service Orders { option deprecated = true; ... }`}),
		packageDeletion(deletion{ID: "proto-package-extension-removed", Buf: "PACKAGE_EXTENSION_NO_DELETE", What: "extension", Subject: SubjectExtension,
			Bad: `extend Options { string label = 1000; }   // deleted`, Good: `extend Options { string label = 1000 [deprecated = true]; }`}),
		protoRPCRemoved(),
		protoOneofRemoved(),
		protoExtensionRangeRemoved(),
		protoEnumValueRemoved(),
		protoEnumValueRemovedUnreservedName(),
		protoEnumValueRemovedUnreservedNumber(),
		protoFieldRemoved(),
		protoFieldRemovedUnreservedName(),
		protoFieldRemovedUnreservedNumber(),
		protoReservedMessageRemoved(),
		protoReservedEnumRemoved(),
	}
}

func protoFileRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-file-removed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFile, Buf: []string{"FILE_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectFile, ""}},
		Doc: Doc{
			Title: "A .proto file was deleted",
			Text:  "Other files and generated code import a .proto file by its path. Deleting it breaks every importer and every program built from it. Keep the file, deprecate what it declares, and delete it in a new major version.",
			Bad: `// old: api/v1/orders.proto exists
// new: the file is gone`,
			Good: "// new: api/v1/orders.proto kept, its messages marked deprecated",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("file %s deleted: everything importing it breaks; keep it and deprecate its contents", c.Path), c.Is(Removed, SubjectFile)
	})
}

func protoRPCRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-rpc-removed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"RPC_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectRPC, ""}},
		Doc: Doc{
			Title: "An rpc was deleted",
			Text:  "Clients call an rpc by service and method name; once it is deleted their calls fail with UNIMPLEMENTED. Mark the rpc deprecated and delete it when nobody calls it.",
			Bad: `service Orders {
  rpc Cancel(CancelRequest) returns (Order);   // deleted
}`,
			Good: `service Orders {
  rpc Cancel(CancelRequest) returns (Order) { option deprecated = true; }
}`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("rpc %s deleted: clients calling it now get UNIMPLEMENTED; deprecate it first", c.Path), c.Is(Removed, SubjectRPC)
	})
}

func protoOneofRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-oneof-removed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"ONEOF_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectOneof, ""}},
		Doc: Doc{
			Title: "A oneof was deleted",
			Text:  "Generated code exposes a oneof as a case enum and accessors; deleting the oneof (even keeping its fields) removes them and changes which fields exclude each other. Keep the oneof.",
			Bad:   "message Payment { oneof method { Card card = 1; Bank bank = 2; } }   ->   fields outside the oneof",
			Good:  "message Payment { oneof method { Card card = 1; Bank bank = 2; } }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("oneof %s deleted: generated case accessors disappear and its fields no longer exclude each other", c.Path), c.Is(Removed, SubjectOneof)
	})
}

func protoExtensionRangeRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-extension-range-removed", Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"EXTENSION_MESSAGE_NO_DELETE"},
		Reads: []Entry{{Modified, SubjectMessage, AspectExtensionRange}},
		Doc: Doc{
			Title: "An extension range was deleted from a message",
			Text:  "Other files may extend a message inside its extension ranges. Deleting or narrowing a range makes those extensions invalid and fails their compilation. Keep the range.",
			Bad:   "message Options { extensions 100 to 199; }   ->   message Options {}",
			Good:  "message Options { extensions 100 to 199; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("extension range %s of %s deleted: extensions declared in it no longer compile", c.Old.Text, c.Path),
			c.Is(Modified, SubjectMessage) && c.Aspect == AspectExtensionRange
	})
}

func protoEnumValueRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-enum-value-removed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"ENUM_VALUE_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectEnumValue, ""}},
		Doc: Doc{
			Title: "An enum value was deleted",
			Text:  "Generated code names every enum value; deleting one breaks the code that uses the constant, and readers see its number as unknown. Keep the value and deprecate it.",
			Bad:   "enum Status { STATUS_UNSPECIFIED = 0; STATUS_OPEN = 1; }   ->   STATUS_OPEN deleted",
			Good:  "enum Status { STATUS_UNSPECIFIED = 0; STATUS_OPEN = 1 [deprecated = true]; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("enum value %s (%s) deleted: code using it breaks and readers see %s as unknown; deprecate it instead", c.Path, c.Old.Text, c.Old.Text),
			protoEnumValue(c, Removed)
	})
}

func protoEnumValueRemovedUnreservedName() *Rule {
	return onChange(&Rule{
		ID: "proto-enum-value-removed-unreserved-name", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJ, Buf: []string{"ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED"},
		Reads: []Entry{{Removed, SubjectEnumValue, ""}},
		Doc: Doc{
			Title: "An enum value was deleted without reserving its name",
			Text:  "JSON carries enum values by name. If the name of a deleted value is not reserved, a later value may take it, and JSON data written before means something else. Reserve the name when deleting the value.",
			Bad:   "enum Status { STATUS_UNSPECIFIED = 0; }   // STATUS_OPEN = 1 deleted",
			Good:  "enum Status { STATUS_UNSPECIFIED = 0; reserved 1; reserved \"STATUS_OPEN\"; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("enum value %s deleted without `reserved \"%s\";`: the name can be reused and old JSON data would change meaning", c.Path, c.Name),
			protoEnumValue(c, Removed) && !c.Proto.NameReserved
	})
}

func protoEnumValueRemovedUnreservedNumber() *Rule {
	return onChange(&Rule{
		ID: "proto-enum-value-removed-unreserved-number", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJW, Buf: []string{"ENUM_VALUE_NO_DELETE_UNLESS_NUMBER_RESERVED"},
		Reads: []Entry{{Removed, SubjectEnumValue, ""}},
		Doc: Doc{
			Title: "An enum value was deleted without reserving its number",
			Text:  "The binary encoding carries enum values by number. If the number of a deleted value is not reserved, a later value may take it, and stored or in-flight data means something else. Reserve the number when deleting the value.",
			Bad:   "enum Status { STATUS_UNSPECIFIED = 0; }   // STATUS_OPEN = 1 deleted",
			Good:  "enum Status { STATUS_UNSPECIFIED = 0; reserved 1; reserved \"STATUS_OPEN\"; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("enum value %s deleted without `reserved %s;`: the number can be reused and old data would change meaning", c.Path, c.Old.Text),
			protoEnumValue(c, Removed) && !c.Proto.NumberReserved
	})
}

func protoFieldRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-field-removed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectField, ""}},
		Doc: Doc{
			Title: "A field was deleted",
			Text:  "Deleting a field removes its accessors from generated code and silently drops the data old writers still send. Deprecate the field and stop using it; delete it, with its number and name reserved, in a new major version.",
			Bad:   "message Order { string note = 4; }   ->   field 4 deleted",
			Good:  "message Order { string note = 4 [deprecated = true]; }",
		},
	}, func(c *Change) (string, bool) {
		if !c.Is(Removed, SubjectField) || c.OldField == nil {
			return "", false
		}
		return fmt.Sprintf("field %s (number %d) deleted: its accessors disappear and old writers' data is dropped; deprecate it instead", c.Path, c.OldField.Number), true
	})
}

func protoFieldRemovedUnreservedName() *Rule {
	return onChange(&Rule{
		ID: "proto-field-removed-unreserved-name", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJ, Buf: []string{"FIELD_NO_DELETE_UNLESS_NAME_RESERVED"},
		Reads: []Entry{{Removed, SubjectField, ""}},
		Doc: Doc{
			Title: "A field was deleted without reserving its name",
			Text:  "JSON carries fields by name. If the deleted field's name is not reserved, a later field may take it and JSON written before would be read into it. Reserve the name when deleting the field.",
			Bad:   "message Order { }   // string note = 4 deleted",
			Good:  "message Order { reserved 4; reserved \"note\"; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("field %s deleted without `reserved \"%s\";`: the name can be reused and old JSON would be read into the new field", c.Path, c.Name),
			c.Is(Removed, SubjectField) && !c.Proto.NameReserved
	})
}

func protoFieldRemovedUnreservedNumber() *Rule {
	return onChange(&Rule{
		ID: "proto-field-removed-unreserved-number", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJW, Buf: []string{"FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED"},
		Reads: []Entry{{Removed, SubjectField, ""}},
		Doc: Doc{
			Title: "A field was deleted without reserving its number",
			Text:  "The binary encoding carries fields by number. If the deleted field's number is not reserved, a later field may take it and data written before would be read into it. Reserve the number when deleting the field.",
			Bad:   "message Order { }   // string note = 4 deleted",
			Good:  "message Order { reserved 4; reserved \"note\"; }",
		},
	}, func(c *Change) (string, bool) {
		if !c.Is(Removed, SubjectField) || c.OldField == nil {
			return "", false
		}
		return fmt.Sprintf("field %s deleted without `reserved %d;`: the number can be reused and old data would be read into the new field", c.Path, c.OldField.Number),
			!c.Proto.NumberReserved
	})
}

func protoReservedMessageRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-reserved-message-removed", Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvAll, Buf: []string{"RESERVED_MESSAGE_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectReserved, AspectName}, {Removed, SubjectReserved, AspectNumber}},
		Doc: Doc{
			Title: "A message's reserved number or name was released",
			Text:  "Reserved numbers and names keep deleted fields from coming back with another meaning. Releasing a reservation lets the next change reuse it, and old data is then read into the wrong field. Keep every reservation.",
			Bad:   "message Order { reserved 4; }   ->   message Order { }",
			Good:  "message Order { reserved 4; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("reservation %s of message %s deleted: a new field could take it and misread old data; keep it", c.Old.Text, c.Path),
			c.Is(Removed, SubjectReserved) && c.Name == "message"
	})
}

func protoReservedEnumRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-reserved-enum-removed", Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvAll, Buf: []string{"RESERVED_ENUM_NO_DELETE"},
		Reads: []Entry{{Removed, SubjectReserved, AspectName}},
		Doc: Doc{
			Title: "An enum's reserved number or name was released",
			Text:  "Reserved enum numbers and names keep deleted values from coming back with another meaning. Releasing one lets a new value take it, and old data changes meaning. Keep every reservation.",
			Bad:   "enum Status { reserved 2; }   ->   enum Status { }",
			Good:  "enum Status { reserved 2; }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("reservation %s of enum %s deleted: a new value could take it and change what old data means; keep it", c.Old.Text, c.Path),
			c.Is(Removed, SubjectReserved) && c.Name == "enum"
	})
}

// modified matches a proto change of one subject and aspect.
func modified(c *Change, s Subject, a Aspect) bool {
	return c.Is(Modified, s) && c.Aspect == a
}

// modifiedOf matches the changes of one subject and aspect.
func modifiedOf(s Subject, a Aspect) func(c *Change) bool {
	return func(c *Change) bool { return modified(c, s, a) }
}

// jsonWeakened matches a message or enum whose json_format went from
// ALLOW to LEGACY_BEST_EFFORT; the other way only promises more.
func jsonWeakened(s Subject) func(c *Change) bool {
	return func(c *Change) bool {
		return modified(c, s, AspectJSONFormat) && c.Old.Text == "ALLOW" && c.New.Text == "LEGACY_BEST_EFFORT"
	}
}

// fieldOption matches a change of one field option.
func fieldOption(name string) func(c *Change) bool {
	return func(c *Change) bool { return modified(c, SubjectField, AspectOption) && c.Name == name }
}

func protoFieldRules() []*Rule {
	return []*Rule{
		protoFieldNameChanged(),
		protoFieldJSONNameChanged(),
		protoFieldDefaultChanged(),
		protoFieldOneofChanged(),
		protoFieldOneofWireIncompatible(),
		protoFieldPackedChanged(),
		protoFieldCtypeChanged(),
		protoFieldJstypeChanged(),
		protoFieldUTF8ValidationChanged(),
		protoFieldJavaUTF8ValidationChanged(),
	}
}

func protoFieldNameChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-name-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ, Buf: []string{"FIELD_SAME_NAME"},
		Reads: []Entry{{Modified, SubjectField, AspectName}},
		// A rename changes the JSON name with it (unless json_name
		// keeps it), which this message already says.
		Supersedes: []string{"proto-field-json-name-changed"},
		Doc: Doc{
			Title: "A field was renamed",
			Text:  "The binary wire does not care, but JSON clients and generated code use the name: a rename drops the field for JSON readers and breaks code using the accessors. Add a new field instead, or keep the name.",
			Bad:   "string note = 4;   ->   string comment = 4;",
			Good:  "string note = 4;",
		},
	}, func(c *Change) (string, bool) {
		if !modified(c, SubjectField, AspectName) || c.NewField == nil {
			return "", false
		}
		return fmt.Sprintf("field %d renamed from %q to %q: JSON clients and generated code use the name", c.NewField.Number, c.Old.Text, c.New.Text), true
	})
}

func protoFieldJSONNameChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-json-name-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ, Buf: []string{"FIELD_SAME_JSON_NAME"},
		Reads: []Entry{{Modified, SubjectField, AspectJSONName}},
		Doc: Doc{
			Title: "A field's JSON name changed",
			Text:  "JSON clients read and write a field under its JSON name (json_name, or the camelCase of its name). Changing it makes them lose the field both ways. Keep the JSON name.",
			Bad:   "string note = 4 [json_name = \"note\"];   ->   [json_name = \"remark\"]",
			Good:  "string note = 4 [json_name = \"note\"];",
		},
	}, changeMsg("JSON name of field %s changed from %q to %q: JSON clients no longer find it", modifiedOf(SubjectField, AspectJSONName)))
}

func protoFieldDefaultChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-default-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvAll, Buf: []string{"FIELD_SAME_DEFAULT"},
		Reads: []Entry{{Modified, SubjectField, AspectDefault}},
		Doc: Doc{
			Title: "A field's default value changed",
			Text:  "Readers fill an absent proto2 field with the default compiled into them, so old and new readers see different values for the same bytes. Keep the default.",
			Bad:   "optional int32 retries = 1 [default = 3];   ->   [default = 5]",
			Good:  "optional int32 retries = 1 [default = 3];",
		},
	}, changeMsg("default of field %s changed from %q to %q: old and new readers disagree on absent values", modifiedOf(SubjectField, AspectDefault)))
}

func protoFieldOneofChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-oneof-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_ONEOF"},
		Reads: []Entry{{Modified, SubjectField, AspectOneof}},
		Doc: Doc{
			Title: "A field moved into, out of or between oneofs",
			Text:  "Setting one member of a oneof clears the others. Moving a field across a oneof boundary changes which data survives a round trip through an old reader. Keep the field where it was.",
			Bad:   "message P { oneof m { Card card = 1; } Bank bank = 2; }   ->   bank moved into the oneof",
			Good:  "message P { oneof m { Card card = 1; } Bank bank = 2; }",
		},
	}, changeMsg("field %s moved from oneof %q to %q: which fields exclude each other changes", modifiedOf(SubjectField, AspectOneof)))
}

func protoFieldOneofWireIncompatible() *Rule {
	return onChange(&Rule{
		ID: "proto-field-oneof-wire-incompatible", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJW,
		Reads: []Entry{{Modified, SubjectField, AspectOneof}},
		Doc: Doc{
			Title: "A field moved across a oneof boundary in a way the encodings cannot absorb",
			Text: "Setting one member of a oneof clears the others, so a field moved into, out of or between oneofs changes which data survives a round trip through an old reader. " +
				"A field moved alone into a oneof the message did not have is the exception: nothing else can clear it, and its bytes and JSON are what they were, so the wire levels accept it (file and package still report it, for generated code). Keep the field where it was.",
			Bad:  "message P { oneof m { Card card = 1; } Bank bank = 2; }   ->   bank moved into m",
			Good: "message P { oneof m { Card card = 1; } oneof b { Bank bank = 2; } }",
		},
	}, changeMsg("field %s moved from oneof %q to %q: which fields exclude each other changes", func(c *Change) bool {
		return modified(c, SubjectField, AspectOneof) && !c.Proto.WireSame
	}))
}

func protoFieldPackedChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-packed-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvNoBuf, Buf: nil,
		Reads: []Entry{{Modified, SubjectField, AspectPacked}},
		Doc: Doc{
			Title: "A repeated field's packed encoding changed",
			Text:  "Current parsers read packed and unpacked encodings alike, but older or hand-written readers may not, and the generated code's size and speed change. Keep the encoding.",
			Bad:   "repeated int32 ids = 1 [packed = false];   ->   repeated int32 ids = 1;",
			Good:  "repeated int32 ids = 1 [packed = false];",
		},
	}, changeMsg("packed encoding of field %s changed from %s to %s: readers that expect one encoding fail on the other", modifiedOf(SubjectField, AspectPacked)))
}

func protoFieldCtypeChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-ctype-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_CPP_STRING_TYPE"},
		Reads: []Entry{{Modified, SubjectField, AspectOption}},
		Doc: Doc{
			Title: "A field's C++ string type changed",
			Text:  "ctype (or the (pb.cpp).string_type feature in editions) decides which C++ type the accessors use; changing it breaks C++ code that calls them (STRING_PIECE to STRING excepted: those accessors never existed in open source C++). The value compared is the resolved one, so moving a field between a proto2, a proto3 and an editions file counts. Keep it.",
			Bad:   "string name = 1 [ctype = CORD];   ->   string name = 1;",
			Good:  "string name = 1 [ctype = CORD];",
		},
	}, changeMsg("C++ string type of field %s changed from %s to %s: C++ accessors change type", func(c *Change) bool {
		// STRING_PIECE accessors were never generated for open
		// source C++: moving to STRING breaks no code.
		return fieldOption("ctype")(c) && !(c.Old.Text == "STRING_PIECE" && c.New.Text == "STRING")
	}))
}

func protoFieldJstypeChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-jstype-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_JSTYPE"},
		Reads: []Entry{{Modified, SubjectField, AspectOption}},
		Doc: Doc{
			Title: "A field's JavaScript type changed",
			Text:  "jstype decides whether JavaScript code sees a 64-bit integer as a string or a number; changing it breaks the code that reads the field. Keep it.",
			Bad:   "int64 id = 1 [jstype = JS_STRING];   ->   int64 id = 1;",
			Good:  "int64 id = 1 [jstype = JS_STRING];",
		},
	}, changeMsg("jstype of field %s changed from %s to %s: JavaScript code sees another type", fieldOption("jstype")))
}

func protoFieldUTF8ValidationChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-utf8-validation-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_UTF8_VALIDATION"},
		Reads: []Entry{{Modified, SubjectField, AspectOption}},
		// Java parsers apply the field's own validation: the Java
		// check at the same field changed with it.
		Supersedes: []string{"proto-field-java-utf8-validation-changed"},
		Doc: Doc{
			Title: "A string field's UTF-8 validation changed",
			Text:  "Whether a parser rejects invalid UTF-8 in a string field follows the file's syntax or the utf8_validation feature. Turning validation on makes messages that parsed before fail; turning it off lets invalid text into code that trusted it. Keep it.",
			Bad:   "syntax = \"proto2\"; ... string name = 1;   ->   syntax = \"proto3\"; ... (now verified)",
			Good:  "keep the syntax, or set features.utf8_validation to the old behaviour",
		},
	}, changeMsg("UTF-8 validation of field %s changed from %s to %s: parsing accepts or rejects different data", fieldOption("utf8_validation")))
}

func protoFieldJavaUTF8ValidationChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-java-utf8-validation-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_JAVA_UTF8_VALIDATION"},
		Reads: []Entry{{Modified, SubjectField, AspectOption}},
		Doc: Doc{
			Title: "A string field's Java UTF-8 check changed",
			Text:  "java_string_check_utf8 (the (pb.java).utf8_validation feature in editions) makes Java parsers reject invalid UTF-8 in string fields. Changing it, or moving the field to a file where it resolves otherwise, changes which messages Java clients accept. Keep it.",
			Bad:   "option java_string_check_utf8 = true;   ->   removed",
			Good:  "option java_string_check_utf8 = true;",
		},
	}, changeMsg("Java UTF-8 check of field %s changed from %s to %s: Java parsers accept different data", fieldOption("java_string_check_utf8")))
}

// protoTypeRuleIDs are the rules about a field's type and cardinality.
// Where the change is a new meaning, field-redefined reports it in the words
// it uses for OpenAPI and supersedes them (its finding carries their buf
// rules); where it is not (int32 -> int64 at the file level), they speak.
var protoTypeRuleIDs = []string{
	"proto-field-type-changed", "proto-field-type-wire-json-incompatible", "proto-field-type-wire-incompatible",
	"proto-field-cardinality-changed", "proto-field-cardinality-wire-json-incompatible", "proto-field-cardinality-wire-incompatible",
}

// fieldTypeChanged and cardinalityChanged match the field changes the type
// and cardinality rules judge.
func fieldTypeChanged(c *Change) bool {
	return modified(c, SubjectField, AspectType) && c.OldField != nil && c.NewField != nil
}

func cardinalityChanged(c *Change) bool {
	return modified(c, SubjectField, AspectCardinality) && c.NewField != nil
}

func protoTypeRules() []*Rule {
	return []*Rule{
		protoFieldTypeChanged(),
		protoFieldTypeWireJSONIncompatible(),
		protoFieldTypeWireIncompatible(),
		protoFieldCardinalityChanged(),
		protoFieldCardinalityWireJSONIncompatible(),
		protoFieldCardinalityWireIncompatible(),
		protoMessageRequiredFieldsChanged(),
		protoMessageJSONFormatChanged(),
		protoMessageDescriptorAccessorRemoved(),
		protoMessageSetWireFormatChanged(),
		protoEnumTypeChanged(),
		protoEnumJSONFormatChanged(),
		protoEnumValueNameChanged(),
	}
}

func protoFieldTypeChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-type-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_TYPE"},
		Reads: []Entry{{Modified, SubjectField, AspectType}},
		Doc: Doc{
			Title: "A field's type changed",
			Text:  "Generated accessors take and return the field's type; any type change, even one the wire tolerates, breaks the code that uses them. Add a new field with the new type.",
			Bad:   "int32 quantity = 2;   ->   int64 quantity = 2;",
			Good: `int32 quantity = 2;
int64 quantity_64 = 5;`,
		},
	}, changeMsg("type of field %s changed from %s to %s: generated code changes", fieldTypeChanged))
}

func protoFieldTypeWireJSONIncompatible() *Rule {
	return onChange(&Rule{
		ID: "proto-field-type-wire-json-incompatible", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJ, Buf: []string{"FIELD_WIRE_JSON_COMPATIBLE_TYPE"},
		Reads: []Entry{{Modified, SubjectField, AspectType}},
		Doc: Doc{
			Title: "A field's type changed in a way the binary or JSON encoding cannot absorb",
			Text:  "Readers decode a field with the type they were built with. A change is safe for binary and JSON clients only when both encodings stay readable: int32 to int64 keeps the wire but turns a JSON number into a string, and swapping enums changes the names JSON carries. Add a new field instead.",
			Bad:   "int32 quantity = 2;   ->   int64 quantity = 2;",
			Good: `int32 quantity = 2;
int64 quantity_64 = 5;`,
		},
	}, changeMsg("type of field %s changed from %s to %s: binary or JSON clients misread it", func(c *Change) bool {
		return fieldTypeChanged(c) && !(wireCompatibleType(c.OldField, c.NewField) && jsonCompatibleType(c.OldField, c.NewField))
	}))
}

func protoFieldTypeWireIncompatible() *Rule {
	return onChange(&Rule{
		ID: "proto-field-type-wire-incompatible", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvWire, Buf: []string{"FIELD_WIRE_COMPATIBLE_TYPE"},
		Reads: []Entry{{Modified, SubjectField, AspectType}},
		Doc: Doc{
			Title: "A field's type changed in a way the binary encoding cannot absorb",
			Text:  "Some type changes keep the wire (int32/int64/uint32/uint64/bool; sint32/sint64; fixed32/sfixed32; fixed64/sfixed64; string to bytes, not back, since old bytes need not be UTF-8; a message and bytes; an enum moved or copied with every old value on its number). Any other change makes old readers fail or misread the field. Add a new field instead.",
			Bad:   "int32 quantity = 2;   ->   string quantity = 2;",
			Good: `int32 quantity = 2;
string quantity_text = 5;`,
		},
	}, changeMsg("type of field %s changed from %s to %s: old readers cannot decode it", func(c *Change) bool { return fieldTypeChanged(c) && !wireCompatibleType(c.OldField, c.NewField) }))
}

func protoFieldCardinalityChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-field-cardinality-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FIELD_SAME_CARDINALITY"},
		Reads: []Entry{{Modified, SubjectField, AspectCardinality}},
		Doc: Doc{
			Title: "A field's cardinality changed",
			Text:  "Optional, required, repeated, map and implicit-presence fields have different accessors and presence semantics. Changing between them breaks generated code and, for required, parsing. Add a new field instead.",
			Bad:   "string tag = 3;   ->   repeated string tag = 3;",
			Good: `string tag = 3;
repeated string tags = 6;`,
		},
	}, changeMsg("cardinality of field %s changed from %s to %s: accessors and presence change", cardinalityChanged))
}

func protoFieldCardinalityWireJSONIncompatible() *Rule {
	return onChange(&Rule{
		ID: "proto-field-cardinality-wire-json-incompatible", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvJ, Buf: []string{"FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY"},
		Reads: []Entry{{Modified, SubjectField, AspectCardinality}},
		Doc: Doc{
			Title: "A field's cardinality changed in a way binary or JSON clients cannot absorb",
			Text:  "Switching between optional and implicit presence keeps both encodings; making a field repeated or a map turns a JSON value into an array or object, and required changes what parses. Add a new field instead.",
			Bad:   "string tag = 3;   ->   repeated string tag = 3;",
			Good: `string tag = 3;
repeated string tags = 6;`,
		},
	}, changeMsg("cardinality of field %s changed from %s to %s: JSON or binary clients misread it", func(c *Change) bool { return cardinalityChanged(c) && !(singular(c.Old.Text) && singular(c.New.Text)) }))
}

func protoFieldCardinalityWireIncompatible() *Rule {
	return onChange(&Rule{
		ID: "proto-field-cardinality-wire-incompatible", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvWire, Buf: []string{"FIELD_WIRE_COMPATIBLE_CARDINALITY"},
		Reads: []Entry{{Modified, SubjectField, AspectCardinality}},
		Doc: Doc{
			Title: "A field's cardinality changed in a way the binary encoding cannot absorb",
			Text:  "Binary readers tolerate optional versus implicit presence, and a map versus a repeated entry message. Other changes (singular to repeated, which runtimes read differently, or to or from required) make old readers fail or misread. Add a new field instead.",
			Bad:   "int32 count = 3;   ->   repeated int32 count = 3;",
			Good: `int32 count = 3;
repeated int32 counts = 6;`,
		},
	}, changeMsg("cardinality of field %s changed from %s to %s: old readers cannot decode it", func(c *Change) bool { return cardinalityChanged(c) && !wireCompatibleCard(c.Old.Text, c.New.Text) }))
}

func protoMessageRequiredFieldsChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-message-required-fields-changed", Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvAll, Buf: []string{"MESSAGE_SAME_REQUIRED_FIELDS"},
		Reads: []Entry{{Modified, SubjectMessage, AspectRequired}},
		Doc: Doc{
			Title: "A message's required fields changed",
			Text:  "A proto2 parser rejects a message that lacks a required field. Adding one rejects what old writers send; removing one makes old readers reject what new writers send. Never change the set of required fields. Each field is reported on its own: one made required at its line, one no longer required at its message.",
			Bad:   "message Order { required string id = 1; }   ->   + required string region = 2;",
			Good:  "message Order { required string id = 1; optional string region = 2; }",
		},
	}, func(c *Change) (string, bool) {
		if !modified(c, SubjectMessage, AspectRequired) {
			return "", false
		}
		if c.Required {
			return fmt.Sprintf("field %s of %s is now required: old writers that leave it out are rejected by new readers", c.New.Text, c.Path), true
		}
		return fmt.Sprintf("field %s of %s is no longer required: old readers reject new messages without it", c.Old.Text, c.Path), true
	})
}

func protoMessageJSONFormatChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-message-json-format-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ, Buf: []string{"MESSAGE_SAME_JSON_FORMAT"},
		Reads: []Entry{{Modified, SubjectMessage, AspectJSONFormat}},
		Doc: Doc{
			Title: "A message's JSON format support changed",
			Text:  "The json_format feature (fixed by syntax before editions) says whether a message must map cleanly to JSON. Moving from ALLOW to LEGACY_BEST_EFFORT (a message moved into a proto2 file, say) lets JSON mappings conflict for JSON clients; the other way only promises more and is not reported. Keep it.",
			Bad:   "syntax = \"proto3\";   ->   edition with features.json_format = LEGACY_BEST_EFFORT",
			Good:  "keep json_format = ALLOW",
		},
	}, changeMsg("JSON format of message %s changed from %s to %s: JSON clients may no longer map it", jsonWeakened(SubjectMessage)))
}

func protoMessageDescriptorAccessorRemoved() *Rule {
	return onChange(&Rule{
		ID: "proto-message-descriptor-accessor-removed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"MESSAGE_NO_REMOVE_STANDARD_DESCRIPTOR_ACCESSOR"},
		Reads: []Entry{{Modified, SubjectMessage, AspectOption}},
		Doc: Doc{
			Title: "A message's standard descriptor accessor was removed",
			Text:  "no_standard_descriptor_accessor = true removes the descriptor() accessor from generated code; code that reflects on the message through it breaks. Leave the option unset.",
			Bad:   "message Order { option no_standard_descriptor_accessor = true; }",
			Good:  "message Order { }",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("message %s no longer has a standard descriptor accessor: code calling it breaks", c.Path),
			modified(c, SubjectMessage, AspectOption) && c.Name == "no_standard_descriptor_accessor" && c.New.Bool
	})
}

func protoMessageSetWireFormatChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-message-set-wire-format-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvNoBuf, Buf: []string{"MESSAGE_SAME_MESSAGE_SET_WIRE_FORMAT"},
		Reads: []Entry{{Modified, SubjectMessage, AspectOption}},
		Doc: Doc{
			Title: "A message switched to or from the message-set wire format",
			Text:  "message_set_wire_format encodes the message in a different layout altogether; old readers cannot read the other layout. buf keeps this rule outside its categories as deprecated; we run it with FILE and PACKAGE. Keep the format.",
			Bad:   "message Bag { option message_set_wire_format = true; extensions 4 to max; }   ->   option removed",
			Good:  "message Bag { option message_set_wire_format = true; extensions 4 to max; }",
		},
	}, changeMsg("message-set wire format of %s changed from %s to %s: old readers cannot parse the new layout", func(c *Change) bool {
		return modified(c, SubjectMessage, AspectOption) && c.Name == "message_set_wire_format"
	}))
}

func protoEnumTypeChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-enum-type-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"ENUM_SAME_TYPE"},
		Reads: []Entry{{Modified, SubjectEnum, AspectType}},
		Doc: Doc{
			Title: "An enum changed between open and closed",
			Text:  "A closed enum (proto2) stores unknown numbers as unknown fields; an open one (proto3) keeps them in the field. Switching changes what readers see for values they do not know, and generated code. Keep the enum type.",
			Bad:   "syntax = \"proto2\"; enum Status {...}   ->   syntax = \"proto3\"",
			Good:  "keep the enum in a proto2 file, or set features.enum_type = CLOSED",
		},
	}, changeMsg("enum %s changed from %s to %s: unknown values are handled differently", modifiedOf(SubjectEnum, AspectType)))
}

func protoEnumJSONFormatChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-enum-json-format-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ, Buf: []string{"ENUM_SAME_JSON_FORMAT"},
		Reads: []Entry{{Modified, SubjectEnum, AspectJSONFormat}},
		Doc: Doc{
			Title: "An enum's JSON format support changed",
			Text:  "As for messages, json_format says whether the enum's names must map cleanly to JSON; weakening it lets JSON names conflict for JSON clients. Keep it.",
			Bad:   "syntax = \"proto3\";   ->   edition with features.json_format = LEGACY_BEST_EFFORT",
			Good:  "keep json_format = ALLOW",
		},
	}, changeMsg("JSON format of enum %s changed from %s to %s: JSON clients may no longer map its names", jsonWeakened(SubjectEnum)))
}

func protoEnumValueNameChanged() *Rule {
	return onChange(&Rule{
		ID: "proto-enum-value-name-changed", Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFPJ, Buf: []string{"ENUM_VALUE_SAME_NAME"},
		Reads: []Entry{{Modified, SubjectEnumValue, AspectName}},
		Doc: Doc{
			Title: "An enum value was renamed",
			Text:  "JSON carries enum values by name and generated code names the constants, so renaming a value breaks JSON clients and code alike even though the number is kept. Add an alias (allow_alias) instead.",
			Bad:   "STATUS_OPEN = 1;   ->   STATUS_ACTIVE = 1;",
			Good: `option allow_alias = true;
STATUS_OPEN = 1 [deprecated = true];
STATUS_ACTIVE = 1;`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("enum %s: value %d renamed from %s to %s: JSON clients and code using the old name break", c.Proto.Parent, c.Proto.Number, c.Old.Text, c.New.Text),
			modified(c, SubjectEnumValue, AspectName)
	})
}

func protoRPCRules() []*Rule {
	rpc := func(id, buf, title, doc, bad, good, what string, a Aspect) *Rule {
		return onChange(&Rule{
			ID: id, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvAll, Buf: []string{buf},
			Reads: []Entry{{Modified, SubjectRPC, a}},
			Doc: Doc{
				Title: title,
				Text:  doc,
				Bad:   bad,
				Good:  good,
			},
		}, changeMsg(what+" of rpc %s changed from %s to %s: existing callers break", modifiedOf(SubjectRPC, a)))
	}
	return []*Rule{
		rpc("proto-rpc-request-type-changed", "RPC_SAME_REQUEST_TYPE", "An rpc's request type changed",
			"Callers send the request message they were built with; the server now parses those bytes as another message. Add a new rpc instead.",
			"rpc Get(GetRequest) returns (Order);   ->   rpc Get(GetOrderRequest) returns (Order);",
			"rpc Get(GetRequest) returns (Order);\nrpc GetOrder(GetOrderRequest) returns (Order);", "request type", AspectRequestType),
		rpc("proto-rpc-response-type-changed", "RPC_SAME_RESPONSE_TYPE", "An rpc's response type changed",
			"Callers parse the response as the message they were built with; a new response type is misread. Add a new rpc instead.",
			"rpc Get(GetRequest) returns (Order);   ->   rpc Get(GetRequest) returns (OrderView);",
			"rpc Get(GetRequest) returns (Order);\nrpc GetView(GetRequest) returns (OrderView);", "response type", AspectResponseType),
		rpc("proto-rpc-client-streaming-changed", "RPC_SAME_CLIENT_STREAMING", "An rpc's client streaming changed",
			"Streaming changes the call's shape in every gRPC runtime: existing stubs call the wrong kind of method and fail. Add a new rpc instead.",
			"rpc Upload(Chunk) returns (Ack);   ->   rpc Upload(stream Chunk) returns (Ack);",
			"rpc Upload(Chunk) returns (Ack);\nrpc UploadStream(stream Chunk) returns (Ack);", "client streaming", AspectClientStreaming),
		rpc("proto-rpc-server-streaming-changed", "RPC_SAME_SERVER_STREAMING", "An rpc's server streaming changed",
			"Streaming changes the call's shape in every gRPC runtime: existing stubs expect one response or a stream and fail on the other. Add a new rpc instead.",
			"rpc List(ListRequest) returns (Orders);   ->   returns (stream Order);",
			"rpc List(ListRequest) returns (Orders);\nrpc Watch(ListRequest) returns (stream Order);", "server streaming", AspectServerStreaming),
		rpc("proto-rpc-idempotency-level-changed", "RPC_SAME_IDEMPOTENCY_LEVEL", "An rpc's idempotency level changed",
			"Clients and proxies decide whether to retry (or use GET) from idempotency_level. Weakening it makes retries unsafe; changing it at all changes how calls are sent. Keep it.",
			"rpc Get(GetRequest) returns (Order) { option idempotency_level = NO_SIDE_EFFECTS; }   ->   option removed",
			"rpc Get(GetRequest) returns (Order) { option idempotency_level = NO_SIDE_EFFECTS; }", "idempotency level", AspectIdempotency),
	}
}

// fileOptionRules are the rules for generated-code file options, each ID
// written out so that grep finds it, each named after buf's check.
var fileOptionRules = []struct{ id, option, buf, lang string }{
	{"proto-file-cc-enable-arenas-changed", "cc_enable_arenas", "FILE_SAME_CC_ENABLE_ARENAS", "C++"},
	{"proto-file-cc-generic-services-changed", "cc_generic_services", "FILE_SAME_CC_GENERIC_SERVICES", "C++"},
	{"proto-file-csharp-namespace-changed", "csharp_namespace", "FILE_SAME_CSHARP_NAMESPACE", "C#"},
	{"proto-file-go-package-changed", "go_package", "FILE_SAME_GO_PACKAGE", "Go"},
	{"proto-file-java-generic-services-changed", "java_generic_services", "FILE_SAME_JAVA_GENERIC_SERVICES", "Java"},
	{"proto-file-java-multiple-files-changed", "java_multiple_files", "FILE_SAME_JAVA_MULTIPLE_FILES", "Java"},
	{"proto-file-java-outer-classname-changed", "java_outer_classname", "FILE_SAME_JAVA_OUTER_CLASSNAME", "Java"},
	{"proto-file-java-package-changed", "java_package", "FILE_SAME_JAVA_PACKAGE", "Java"},
	{"proto-file-objc-class-prefix-changed", "objc_class_prefix", "FILE_SAME_OBJC_CLASS_PREFIX", "Objective-C"},
	{"proto-file-optimize-for-changed", "optimize_for", "FILE_SAME_OPTIMIZE_FOR", "C++ and Java"},
	{"proto-file-php-class-prefix-changed", "php_class_prefix", "FILE_SAME_PHP_CLASS_PREFIX", "PHP"},
	{"proto-file-php-metadata-namespace-changed", "php_metadata_namespace", "FILE_SAME_PHP_METADATA_NAMESPACE", "PHP"},
	{"proto-file-php-namespace-changed", "php_namespace", "FILE_SAME_PHP_NAMESPACE", "PHP"},
	{"proto-file-py-generic-services-changed", "py_generic_services", "FILE_SAME_PY_GENERIC_SERVICES", "Python"},
	{"proto-file-ruby-package-changed", "ruby_package", "FILE_SAME_RUBY_PACKAGE", "Ruby"},
	{"proto-file-swift-prefix-changed", "swift_prefix", "FILE_SAME_SWIFT_PREFIX", "Swift"},
}

func protoFileRules() []*Rule {
	out := []*Rule{
		onChange(&Rule{
			ID: "proto-file-package-changed", Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvAll, Buf: []string{"FILE_SAME_PACKAGE"},
			Reads: []Entry{{Modified, SubjectPackage, AspectName}},
			Doc: Doc{
				Title: "A file's package changed",
				Text:  "The package is part of every full name in the file: message type URLs, rpc paths (/pkg.Service/Method) and generated import paths all change, so every client breaks. Create a new file in the new package instead.",
				Bad:   "package shop.v1;   ->   package store.v1;",
				Good:  "package shop.v1;   // and a new file for store.v1",
			},
		}, changeMsg("package of %s changed from %q to %q: every full name and rpc path in it changes", modifiedOf(SubjectPackage, AspectName))),
		onChange(&Rule{
			ID: "proto-file-syntax-changed", Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{"FILE_SAME_SYNTAX"},
			Reads: []Entry{{Modified, SubjectFile, AspectSyntax}},
			Doc: Doc{
				Title: "A file's syntax or edition changed",
				Text:  "Syntax decides field presence, enum openness, UTF-8 validation and packed defaults; changing it changes generated code and how data is read. Keep the syntax, or migrate to editions with features that preserve the old behaviour.",
				Bad:   "syntax = \"proto2\";   ->   syntax = \"proto3\";",
				Good:  "syntax = \"proto2\";",
			},
		}, changeMsg("syntax of %s changed from %s to %s: presence, enums and validation change", modifiedOf(SubjectFile, AspectSyntax))),
	}
	for _, o := range fileOptionRules {
		// Each is about its own line of the file (the file is their
		// element): an option changed beside another is another edit.
		out = append(out, onChange(&Rule{
			ID: o.id, Apart: true, Pack: Breaking, Formats: Proto, Severity: Error, Levels: lvFP, Buf: []string{o.buf},
			Reads: []Entry{{Modified, SubjectFileOption, AspectOption}},
			Doc: Doc{
				Title: "The file option " + o.option + " changed",
				Text:  "The " + o.option + " option shapes the " + o.lang + " code generated from the file; changing it moves or renames that code, and every " + o.lang + " program built against it stops compiling. Keep the option's value.",
				Bad:   "option " + o.option + " = <old value>;   ->   option " + o.option + " = <new value>;",
				Good:  "option " + o.option + " = <old value>;   // unchanged",
			},
		}, changeMsg("option "+o.option+" of %s changed from %q to %q: generated "+o.lang+" code moves or changes", func(c *Change) bool { return modified(c, SubjectFileOption, AspectOption) && c.Name == o.option })))
	}
	return out
}

// article is "An" before a word that starts with a vowel ("An enum"), else "A".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "An"
	}
	return "A"
}
