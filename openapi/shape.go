package openapi

import (
	"reflect"

	"github.com/getkin/kin-openapi/openapi3"
)

var (
	schemaRefType = reflect.TypeFor[*openapi3.SchemaRef]()
	originType    = reflect.TypeFor[*openapi3.Origin]()
	schemaType    = reflect.TypeFor[openapi3.Schema]()
	// annotation lists the schema keywords that document a value without
	// constraining it: a schema extracted into a component that only gains
	// a title is the same schema.
	annotation = map[string]bool{"Title": true, "Description": true, "Example": true, "Examples": true,
		"ExternalDocs": true, "Deprecated": true, "Comment": true}
)

// sameShape reports whether two schemas say the same thing however they are
// placed in their files: origins and annotations (title, description,
// examples) are ignored, a nested $ref is equal only to
// the same $ref, and an empty list or map equals a missing one. It replaces
// comparing their JSON, which was a third of the diff on Stripe's spec.
func sameShape(a, b *openapi3.Schema) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameValue(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
}

func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		if a.Type() == originType {
			return true
		}
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Type() == schemaRefType {
			// By field, not Interface(): the value may sit in an unexported field.
			ra, rb := a.Elem().FieldByName("Ref").String(), b.Elem().FieldByName("Ref").String()
			if ra != "" || rb != "" {
				return ra == rb
			}
			return sameValue(a.Elem().FieldByName("Value"), b.Elem().FieldByName("Value"))
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Elem().Type() == b.Elem().Type() && sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type() == schemaType && annotation[a.Type().Field(i).Name] {
				continue
			}
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !sameValue(it.Value(), bv) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Invalid:
		return true
	default:
		// Functions, channels and the like never appear in a decoded schema;
		// treat them as different rather than guess.
		return false
	}
}
