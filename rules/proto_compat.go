package rules

import (
	"cmp"
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
		return o.Type == n.Type
	case ok == "enum" && nk == "enum":
		// Binary readers see an enum's numbers, whatever it is called.
		return sameEnumNumbers(o, n)
	case ok == "message" || nk == "message":
		// A message and bytes holding its encoding share the wire.
		return (ok == "bytes" || nk == "bytes") && !o.Map && !n.Map
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
	if ok == "message" || ok == "enum" || nk == "message" || nk == "enum" {
		return o.Type == n.Type
	}
	return jsonGroup[ok] != "" && jsonGroup[ok] == jsonGroup[nk]
}

// sameEnumNumbers reports whether two enum fields' enums have the same
// value numbers: binary readers see the same values. Unknown enums (from
// imports outside the tree) compare by name only.
func sameEnumNumbers(o, n *Field) bool {
	if o.Type == n.Type {
		return true
	}
	if o.EnumNumbers == nil || n.EnumNumbers == nil {
		return false
	}
	return sameSet(o.EnumNumbers, n.EnumNumbers)
}

// sameEnumValues reports whether two enums have the same names on the same
// numbers: JSON readers, which carry names, see the same values too.
func sameEnumValues(o, n *Field) bool {
	if o.EnumNumbers == nil || n.EnumNumbers == nil || len(o.Enum) != len(n.Enum) {
		return false
	}
	pairs := func(f *Field) []string {
		out := make([]string, len(f.Enum))
		for i, name := range f.Enum {
			out[i] = fmt.Sprintf("%s=%d", name, f.EnumNumbers[i])
		}
		return out
	}
	return sameSet(pairs(o), pairs(n))
}

func sameSet[T cmp.Ordered](a, b []T) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// singular cardinalities differ only in presence tracking, not on the wire.
func singular(card string) bool {
	return card == "optional" || card == "implicit"
}

// wireCompatibleCard reports whether a cardinality change keeps the wire:
// singular to singular, or singular to repeated for length-delimited types,
// whose readers keep the last (or every) value.
func wireCompatibleCard(oc, nc string, f *Field) bool {
	if singular(oc) && singular(nc) {
		return true
	}
	k := protoKind(f)
	lenDelimited := k == "string" || k == "bytes" || k == "message"
	return lenDelimited && (singular(oc) && nc == "repeated" || oc == "repeated" && singular(nc))
}
