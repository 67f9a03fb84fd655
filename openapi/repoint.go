package openapi

import (
	"reflect"
	"unsafe"
)

// repointer rewrites a kin-openapi model so that every local $ref to a
// component resolves to the value final holds for it, copying on write:
// a node is copied only when something below it (through inline children,
// not through $refs) must point elsewhere, and an unchanged node is shared.
// It walks kin-openapi's types by reflection, so a field a later version
// adds is followed without a line here: a struct with exported Ref (string)
// and Value (pointer) fields is a $ref, and the unexported map behind
// Paths, Responses and Callback (`m`) is read and written in place of the
// accessors, which would write into the shared map.
type repointer struct {
	// final is the value each component pointer resolves to in the model
	// being built ("#/components/schemas/account" to a *Schema).
	final map[string]reflect.Value
	// done maps a node already rewritten to what it became.
	done map[unsafe.Pointer]reflect.Value
	// holds tells whether a type can hold a $ref, so the rest is skipped;
	// fields are the fields of a struct type that can.
	holds  map[reflect.Type]bool
	fields map[reflect.Type][]int
	// refs are the indexes of a $ref type's Ref and Value fields, nil for
	// another struct type.
	refs map[reflect.Type][]int
}

func newRepointer() *repointer {
	return &repointer{final: map[string]reflect.Value{}, done: map[unsafe.Pointer]reflect.Value{},
		holds: map[reflect.Type]bool{}, fields: map[reflect.Type][]int{}, refs: map[reflect.Type][]int{}}
}

// value rewrites v: the result, and whether it is a new value.
func (r *repointer) value(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return v, false
		}
		at := v.UnsafePointer()
		if out, ok := r.done[at]; ok {
			return out, out.UnsafePointer() != at
		}
		r.done[at] = v // a cycle through inline nodes ends here
		nv, changed := r.node(v.Elem())
		if !changed {
			return v, false
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(nv)
		r.done[at] = p
		return p, true
	case reflect.Struct:
		return r.node(v)
	case reflect.Map:
		return r.mapOf(v)
	case reflect.Slice:
		return r.slice(v)
	}
	return v, false
}

// node rewrites a struct: a $ref points at its final value; any other
// struct is rewritten field by field.
func (r *repointer) node(s reflect.Value) (reflect.Value, bool) {
	if at := r.refAt(s.Type()); at != nil {
		ref, val := s.Field(at[0]), s.Field(at[1])
		target := val
		if ptr := ref.String(); ptr != "" {
			f, ok := r.final[ptr]
			if !ok || f.UnsafePointer() == val.UnsafePointer() {
				return s, false
			}
			target = f
		} else if nv, changed := r.value(val); changed {
			target = nv
		} else {
			return s, false
		}
		c := reflect.New(s.Type()).Elem()
		c.Set(s)
		c.Field(at[1]).Set(target)
		return c, true
	}
	var c reflect.Value
	t := s.Type()
	for _, i := range r.refFields(t) {
		nv, changed := r.value(field(s, i))
		if !changed {
			continue
		}
		if !c.IsValid() {
			c = reflect.New(t).Elem()
			c.Set(s)
		}
		field(c, i).Set(nv)
	}
	if !c.IsValid() {
		return s, false
	}
	return c, true
}

func (r *repointer) mapOf(m reflect.Value) (reflect.Value, bool) {
	if m.Len() == 0 || !r.canHold(m.Type().Elem()) {
		return m, false
	}
	var out reflect.Value
	for it := m.MapRange(); it.Next(); {
		nv, changed := r.value(it.Value())
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.MakeMapWithSize(m.Type(), m.Len())
			for c := m.MapRange(); c.Next(); {
				out.SetMapIndex(c.Key(), c.Value())
			}
		}
		out.SetMapIndex(it.Key(), nv)
	}
	if !out.IsValid() {
		return m, false
	}
	return out, true
}

func (r *repointer) slice(s reflect.Value) (reflect.Value, bool) {
	if s.Len() == 0 || !r.canHold(s.Type().Elem()) {
		return s, false
	}
	var out reflect.Value
	for i := range s.Len() {
		nv, changed := r.value(s.Index(i))
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.MakeSlice(s.Type(), s.Len(), s.Len())
			reflect.Copy(out, s)
		}
		out.Index(i).Set(nv)
	}
	if !out.IsValid() {
		return s, false
	}
	return out, true
}

// refFields are the fields of struct type t that can hold a $ref.
func (r *repointer) refFields(t reflect.Type) []int {
	fs, ok := r.fields[t]
	if !ok {
		for i := range t.NumField() {
			if f := t.Field(i); (f.IsExported() || innerMap(f)) && r.canHold(f.Type) {
				fs = append(fs, i)
			}
		}
		r.fields[t] = fs
	}
	return fs
}

// canHold reports whether a value of type t can hold a $ref.
func (r *repointer) canHold(t reflect.Type) bool {
	if h, ok := r.holds[t]; ok {
		return h
	}
	r.holds[t] = false // a type that holds itself holds a $ref elsewhere or none
	h := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		h = r.canHold(t.Elem())
	case reflect.Struct:
		if r.refAt(t) != nil {
			h = true
			break
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if (f.IsExported() || innerMap(f)) && r.canHold(f.Type) {
				h = true
				break
			}
		}
	}
	r.holds[t] = h
	return h
}

// refAt is where a $ref type (a struct with exported Ref, a string, and
// Value, a pointer) keeps those two fields; nil for any other type.
func (r *repointer) refAt(t reflect.Type) []int {
	at, ok := r.refs[t]
	if !ok {
		ref, rok := t.FieldByName("Ref")
		val, vok := t.FieldByName("Value")
		if rok && vok && ref.IsExported() && ref.Type.Kind() == reflect.String && val.IsExported() && val.Type.Kind() == reflect.Pointer &&
			len(ref.Index) == 1 && len(val.Index) == 1 {
			at = []int{ref.Index[0], val.Index[0]}
		}
		r.refs[t] = at
	}
	return at
}

// innerMap is the unexported map a map-like kin-openapi type keeps its
// entries in.
func innerMap(f reflect.StructField) bool {
	return f.Name == "m" && f.Type.Kind() == reflect.Map
}

// field is s's field i, settable even when unexported (only the inner map
// of a map-like type is: see innerMap). A struct that is not addressable
// (an entry of a map) is read through a copy.
func field(s reflect.Value, i int) reflect.Value {
	f := s.Field(i)
	if f.CanSet() || s.Type().Field(i).IsExported() {
		return f
	}
	if !s.CanAddr() {
		c := reflect.New(s.Type()).Elem()
		c.Set(s)
		f = c.Field(i)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
