package rules

import (
	"fmt"
	"slices"
)

// protoKind is what a proto field holds: a scalar name, or enum, message
// or group for named types (Field.Format carries those).
func protoKind(f *Field) string {
	if f.Format != "" {
		return f.Format
	}
	return f.Type
}

// wireGroup names the sets of kinds a reader can decode from one another's
// bytes, as the protobuf language guide lists them.
var wireGroup = map[string]string{
	"int32": "varint", "int64": "varint", "uint32": "varint", "uint64": "varint", "bool": "varint", "enum": "varint",
	"sint32": "zigzag", "sint64": "zigzag",
	"fixed32": "fixed32", "sfixed32": "fixed32",
	"fixed64": "fixed64", "sfixed64": "fixed64",
	"string": "len", "bytes": "len",
	"float": "float", "double": "double", "group": "group",
}

// jsonGroup names how proto3 JSON writes a kind: 64-bit integers as strings,
// 32-bit ones as numbers, enums by name, bytes as base64.
var jsonGroup = map[string]string{
	"int32": "int32", "sint32": "int32", "sfixed32": "int32",
	"uint32": "uint32", "fixed32": "uint32",
	"int64": "int64", "sint64": "int64", "sfixed64": "int64",
	"uint64": "uint64", "fixed64": "uint64",
	"bool": "bool", "string": "string", "bytes": "bytes", "float": "float", "double": "double",
}

// wireCompatibleType reports whether an old reader decodes what a new writer
// sends (and back) for two field types.
func wireCompatibleType(o, n *Field) bool {
	ok, nk := protoKind(o), protoKind(n)
	if o.Key != n.Key {
		return false
	}
	switch {
	case ok == "message" && nk == "message":
		return sameMessage(o, n)
	case ok == "enum" && nk == "enum":
		// Binary readers see an enum's numbers, whatever it is called.
		return sameEnumNumbers(o, n)
	case ok == "message" || nk == "message":
		// A message and bytes holding its encoding share the wire.
		return (ok == "bytes" || nk == "bytes") && !o.Map && !n.Map
	case ok == "bytes" && nk == "string":
		// Old writers' bytes need not be UTF-8, which a string may
		// require: the other way round is safe.
		return false
	}
	return wireGroup[ok] != "" && wireGroup[ok] == wireGroup[nk]
}

// jsonCompatibleType reports whether proto3 JSON writes both types alike.
func jsonCompatibleType(o, n *Field) bool {
	ok, nk := protoKind(o), protoKind(n)
	if o.Key != n.Key {
		return false
	}
	if ok == "enum" && nk == "enum" {
		return o.Type == n.Type || sameEnumValues(o, n)
	}
	if ok == "message" && nk == "message" {
		return sameMessage(o, n)
	}
	if ok == "message" || ok == "enum" || nk == "message" || nk == "enum" {
		return o.Type == n.Type
	}
	return jsonGroup[ok] != "" && jsonGroup[ok] == jsonGroup[nk]
}

// sameMessage reports two message types encoded alike: the same type, or
// another whose fields have the same numbers, wire types and JSON names.
func sameMessage(o, n *Field) bool {
	return o.Type == n.Type || o.Shape != "" && o.Shape == n.Shape
}

// An enum field that changes to another enum type keeps its values when
// the new enum holds every old value (googleapis moves enums into the
// message that uses them, and may add values in the same change): by
// number for binary readers, by name on that number for JSON ones. Enums
// outside the tree (imports) are known by name only.

// sameEnumNumbers reports whether binary readers see the same values.
func sameEnumNumbers(o, n *Field) bool {
	return o.Type == n.Type || known(o, n) && subset(o.EnumNumbers, n.EnumNumbers)
}

// sameEnumValues reports whether JSON readers see the same values too.
func sameEnumValues(o, n *Field) bool {
	return o.Type == n.Type || known(o, n) && subset(enumPairs(o), enumPairs(n))
}

func known(o, n *Field) bool { return o.EnumNumbers != nil && n.EnumNumbers != nil }

func enumPairs(f *Field) []string {
	out := make([]string, len(f.Enum))
	for i, name := range f.Enum {
		out[i] = fmt.Sprintf("%s=%d", name, f.EnumNumbers[i])
	}
	return out
}

// subset reports whether every element of a is in b.
func subset[T comparable](a, b []T) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// singular cardinalities differ only in presence tracking, not on the wire.
func singular(card string) bool {
	return card == "optional" || card == "implicit"
}

// wireGroupOfCard names the cardinalities a binary reader decodes from
// one another's bytes: singular fields with or without presence; required
// alone (parsers reject its absence); repeated fields and maps, whose
// entries are repeated messages. A singular field becoming repeated is not
// among them: packed numbers and the last-one-wins rule differ by runtime.
var wireGroupOfCard = map[string]string{
	"optional": "singular", "implicit": "singular", "required": "required", "repeated": "list", "map": "list",
}

// wireCompatibleCard reports whether a cardinality change keeps the wire.
func wireCompatibleCard(oc, nc string) bool {
	return wireGroupOfCard[oc] != "" && wireGroupOfCard[oc] == wireGroupOfCard[nc]
}
