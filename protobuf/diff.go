package protobuf

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// Diff compares two trees the way the wire does: files by import name,
// messages, enums, services and rpcs by full name, fields and enum values by
// number, extensions by extendee and number. Two trees of one file each are
// compared as one file whatever the files are called.
func Diff(old, new *Tree) []rules.Change {
	d := &differ{old: old, new: new, rename: map[string]string{}}
	if len(old.Files) == 1 && len(new.Files) == 1 {
		for o := range old.Files {
			for n := range new.Files {
				d.rename[o] = n
			}
		}
	}
	d.files()
	d.packages()
	d.messages()
	d.enums()
	d.services()
	d.extensions()
	setReach(d.out, newReacher(old), newReacher(new))
	return d.out
}

type differ struct {
	old, new *Tree
	rename   map[string]string // old import name -> new, for a one-file pair
	out      []rules.Change
}

func (d *differ) add(c rules.Change) {
	c.Format = rules.Proto
	d.out = append(d.out, c)
}

// newFile is the new-side name of an old file.
func (d *differ) newFile(old string) string {
	if n, ok := d.rename[old]; ok {
		return n
	}
	return old
}

func (d *differ) fileGone(old string) bool {
	_, ok := d.new.Files[d.newFile(old)]
	return !ok
}

// moved reports whether an element declared in old file of moved to another
// file that still exists beside it.
func (d *differ) moved(oldFile, newFile string) bool {
	return d.newFile(oldFile) != newFile && !d.fileGone(oldFile)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// sortedValues lists m's values in key order.
func sortedValues[V any](m map[string]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

func (d *differ) files() {
	for _, name := range sortedKeys(d.old.Files) {
		of := d.old.Files[name]
		nf, ok := d.new.Files[d.newFile(name)]
		if !ok {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectFile, Name: name, Path: name,
				OldLoc: fileLoc(of)})
			continue
		}
		if of.Package != nf.Package {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectPackage, Aspect: rules.AspectName,
				Name: nf.Name, Path: nf.Name, Old: of.Package, New: nf.Package,
				OldLoc: orLoc(of.PackageLoc, fileLoc(of)), NewLoc: orLoc(nf.PackageLoc, fileLoc(nf))})
		}
		if of.Syntax != nf.Syntax {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectFile, Aspect: rules.AspectSyntax,
				Name: nf.Name, Path: nf.Name, Old: of.Syntax, New: nf.Syntax,
				OldLoc: orLoc(of.SyntaxLoc, fileLoc(of)), NewLoc: orLoc(nf.SyntaxLoc, fileLoc(nf))})
		}
		for _, o := range fileOptions {
			if of.Options[o.name] != nf.Options[o.name] {
				d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectFileOption, Aspect: rules.AspectOption,
					Name: o.name, Path: nf.Name, Old: of.Options[o.name], New: nf.Options[o.name],
					OldLoc: orLoc(of.OptionLoc[o.name], fileLoc(of)),
					NewLoc: orLoc(nf.OptionLoc[o.name], orLoc(nf.PackageLoc, fileLoc(nf)))})
			}
		}
	}
}

// fileLoc points at a file's first line.
func fileLoc(f *File) rules.Location {
	return rules.Location{File: f.Loc.File, Line: 1, Column: 1}
}

func orLoc(l, fallback rules.Location) rules.Location {
	if l.Line == 0 {
		return fallback
	}
	return l
}

func (d *differ) packages() {
	have := map[string]bool{}
	for _, f := range d.new.Files {
		have[f.Package] = true
	}
	seen := map[string]bool{}
	for _, name := range sortedKeys(d.old.Files) {
		f := d.old.Files[name]
		if have[f.Package] || seen[f.Package] {
			continue
		}
		seen[f.Package] = true
		d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectPackage, Name: f.Package, Path: f.Package,
			OldLoc: orLoc(f.PackageLoc, fileLoc(f))})
	}
}

// removed reports an element gone from the tree, or moved to another file.
func (d *differ) removed(s rules.Subject, o, n *Elem) bool {
	if n == nil {
		d.add(rules.Change{Kind: rules.Removed, Subject: s, Name: short(o.Name), Path: o.Name,
			OldLoc: o.Loc, FileRemoved: d.fileGone(o.File)})
		return true
	}
	if d.moved(o.File, n.File) {
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: rules.AspectFile, Name: short(n.Name),
			Path: n.Name, Old: o.Loc.File, New: n.Loc.File, OldLoc: o.Loc, NewLoc: n.Loc})
	}
	return false
}

func short(full string) string {
	return full[strings.LastIndexByte(full, '.')+1:]
}

func (d *differ) modified(s rules.Subject, a rules.Aspect, name string, o, n *Elem, ov, nv string) {
	if ov == nv {
		return
	}
	d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: a, Name: name, Path: n.Name,
		Old: ov, New: nv, OldLoc: o.Loc, NewLoc: n.Loc})
}

// declared is what every element the differ matches by name has.
type declared interface{ elem() *Elem }

func (e *Elem) elem() *Elem { return e }

// matchNamed calls same, in name order, for each element of old that new
// still declares, after d.removed has reported the ones it lost or moved.
func matchNamed[T declared](d *differ, s rules.Subject, old, new map[string]T, same func(o, n T)) {
	for _, name := range sortedKeys(old) {
		o := old[name]
		n, ok := new[name]
		var ne *Elem
		if ok {
			ne = n.elem()
		}
		if !d.removed(s, o.elem(), ne) {
			same(o, n)
		}
	}
}

func (d *differ) messages() {
	matchNamed(d, rules.SubjectMessage, d.old.Messages, d.new.Messages, d.message)
	for _, name := range sortedKeys(d.new.Messages) {
		if _, ok := d.old.Messages[name]; !ok {
			m := d.new.Messages[name]
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectMessage, Name: short(name), Path: name, NewLoc: m.Loc})
		}
	}
}

func (d *differ) message(om, nm *Message) {
	s := short(nm.Name)
	d.modified(rules.SubjectMessage, rules.AspectMapEntry, s, &om.Elem, &nm.Elem, strconv.FormatBool(om.MapEntry), strconv.FormatBool(nm.MapEntry))
	d.modified(rules.SubjectMessage, rules.AspectJSONFormat, s, &om.Elem, &nm.Elem, om.JSONFormat, nm.JSONFormat)
	d.option(rules.SubjectMessage, "message_set_wire_format", &om.Elem, &nm.Elem, om.MessageSet, nm.MessageSet)
	d.option(rules.SubjectMessage, "no_standard_descriptor_accessor", &om.Elem, &nm.Elem, om.NoAccessor, nm.NoAccessor)
	d.modified(rules.SubjectMessage, rules.AspectRequired, s, &om.Elem, &nm.Elem, requiredFields(om), requiredFields(nm))
	for _, r := range missingRanges(om.ExtRanges, nm.ExtRanges) {
		d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectMessage, Aspect: rules.AspectExtensionRange,
			Name: s, Path: nm.Name, Old: r, OldLoc: om.Loc, NewLoc: nm.Loc})
	}
	d.reserved("message", &om.Elem, &nm.Elem, om.ReservedRanges, nm.ReservedRanges, om.ReservedNames, nm.ReservedNames)
	for _, oo := range om.Oneofs {
		if !slices.ContainsFunc(nm.Oneofs, func(x *Oneof) bool { return x.Name == oo.Name }) {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectOneof, Name: short(oo.Name), Path: oo.Name, OldLoc: oo.Loc})
		}
	}
	d.fields(om, nm)
}

func (d *differ) option(s rules.Subject, name string, o, n *Elem, ov, nv bool) {
	if ov != nv {
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: rules.AspectOption, Name: name, Path: n.Name,
			Old: strconv.FormatBool(ov), New: strconv.FormatBool(nv), OldLoc: o.Loc, NewLoc: n.Loc})
	}
}

func requiredFields(m *Message) string {
	var names []string
	for _, f := range m.Fields {
		if f.Card == CardRequired {
			names = append(names, fmt.Sprintf("%s = %d", f.Short, f.Number))
		}
	}
	return strings.Join(names, ", ")
}

// reserved reports reserved ranges and names the new version no longer
// holds; Name says whose they were ("message" or "enum"), Old what they were.
func (d *differ) reserved(owner string, o, n *Elem, oldR, newR [][2]int32, oldN, newN []string) {
	for _, r := range missingRanges(oldR, newR) {
		d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectReserved, Aspect: rules.AspectNumber,
			Name: owner, Path: n.Name, Old: r, OldLoc: o.Loc, NewLoc: n.Loc})
	}
	for _, name := range oldN {
		if !slices.Contains(newN, name) {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectReserved, Aspect: rules.AspectName,
				Name: owner, Path: n.Name, Old: name, OldLoc: o.Loc, NewLoc: n.Loc})
		}
	}
}

// missingRanges lists the old inclusive ranges that the new ranges do not
// cover entirely, without walking numbers one by one (ranges reach 2^29).
func missingRanges(old, new [][2]int32) []string {
	var out []string
	for _, r := range old {
		if !covered(r, new) {
			out = append(out, rangeString(r))
		}
	}
	return out
}

func covered(r [2]int32, by [][2]int32) bool {
	sorted := slices.Clone(by)
	slices.SortFunc(sorted, func(a, b [2]int32) int { return int(a[0]) - int(b[0]) })
	next := int64(r[0])
	for _, b := range sorted {
		if int64(b[0]) <= next && int64(b[1]) >= next {
			next = int64(b[1]) + 1
		}
		if next > int64(r[1]) {
			return true
		}
	}
	return next > int64(r[1])
}

func rangeString(r [2]int32) string {
	if r[0] == r[1] {
		return strconv.Itoa(int(r[0]))
	}
	if r[1] >= 536870911 {
		return fmt.Sprintf("%d to max", r[0])
	}
	return fmt.Sprintf("%d to %d", r[0], r[1])
}

func (d *differ) fields(om, nm *Message) {
	byNum := make(map[int32]*Field, len(nm.Fields))
	byName := make(map[string]*Field, len(nm.Fields))
	for _, f := range nm.Fields {
		byNum[f.Number] = f
		byName[f.Short] = f
	}
	oldNums := make(map[int32]bool, len(om.Fields))
	for _, of := range om.Fields {
		oldNums[of.Number] = true
		nf := byNum[of.Number]
		if nf == nil {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectField, Name: of.Short, Path: of.Name,
				OldLoc: of.Loc, NewLoc: nm.Loc, OldField: facts(of),
				NumberReserved: reserved(nm.ReservedRanges, of.Number), NameReserved: slices.Contains(nm.ReservedNames, of.Short)})
		} else {
			d.field(rules.SubjectField, of, nf)
		}
		if moved := byName[of.Short]; moved != nil && moved.Number != of.Number {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectField, Aspect: rules.AspectNumber,
				Name: of.Short, Path: moved.Name, Old: strconv.Itoa(int(of.Number)), New: strconv.Itoa(int(moved.Number)),
				OldLoc: of.Loc, NewLoc: moved.Loc, OldField: facts(of), NewField: facts(moved)})
		}
	}
	for _, nf := range nm.Fields {
		if !oldNums[nf.Number] {
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectField, Name: nf.Short, Path: nf.Name,
				NewLoc: nf.Loc, NewField: facts(nf)})
		}
	}
}

// field compares two fields with the same number (or extensions with the
// same extendee and number).
func (d *differ) field(s rules.Subject, of, nf *Field) {
	ofa, nfa := facts(of), facts(nf)
	add := func(a rules.Aspect, name, ov, nv string) {
		if ov != nv {
			d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: a, Name: name, Path: nf.Name,
				Old: ov, New: nv, OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
		}
	}
	if meaningChanged(ofa, nfa) {
		// One change per field whose meaning moved, for field-redefined;
		// the aspect changes below serve the narrower breaking rules.
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Name: nf.Short, Path: nf.Name,
			OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
	}
	add(rules.AspectName, nf.Short, of.Short, nf.Short)
	add(rules.AspectType, nf.Short, of.Type, nf.Type)
	add(rules.AspectCardinality, nf.Short, of.Card, nf.Card)
	add(rules.AspectJSONName, nf.Short, of.JSONName, nf.JSONName)
	add(rules.AspectOneof, nf.Short, of.Oneof, nf.Oneof)
	add(rules.AspectDefault, nf.Short, defaultOf(of), defaultOf(nf))
	add(rules.AspectPacked, nf.Short, strconv.FormatBool(of.Packed), strconv.FormatBool(nf.Packed))
	add(rules.AspectOption, "ctype", of.CType, nf.CType)
	add(rules.AspectOption, "jstype", of.JSType, nf.JSType)
	add(rules.AspectOption, "utf8_validation", of.UTF8, nf.UTF8)
	if of.Kind == "string" && nf.Kind == "string" {
		add(rules.AspectOption, "java_string_check_utf8", strconv.FormatBool(of.JavaUTF8), strconv.FormatBool(nf.JavaUTF8))
	}
}

// meaningChanged reports a change in what a field's value means to a
// reader: its type, its shape (scalar, repeated, map), its JSON name, or the
// comments and options that state its unit.
func meaningChanged(o, n *rules.Field) bool {
	return o.Type != n.Type || o.Key != n.Key || o.Format != n.Format ||
		o.Array != n.Array || o.Map != n.Map || o.JSONName != n.JSONName ||
		o.Description != n.Description || o.Unit != n.Unit
}

func defaultOf(f *Field) string {
	if !f.HasDefault {
		return ""
	}
	return f.Default
}

// facts is the rules' view of a field.
func facts(f *Field) *rules.Field {
	x := &rules.Field{Name: f.Short, Type: f.Type, Number: f.Number, JSONName: f.JSONName,
		Array: f.Card == CardRepeated, Map: f.Card == CardMap, Required: f.Card == CardRequired,
		Deprecated: f.Deprecated, Description: f.Comment, Unit: f.Unit, Behavior: f.Behavior, Loc: f.Loc, Path: f.Name}
	if f.Trailing != "" { // rare: only then build a new string
		x.Description = strings.TrimSpace(f.Comment + "\n" + f.Trailing)
	}
	kind := f.Kind
	if f.Card == CardMap {
		x.Type, x.Key, kind = f.MapValue, f.MapKey, f.MapKind
	}
	switch kind {
	case "message", "group", "enum":
		x.Format = kind
	}
	return x
}

func (d *differ) enums() {
	matchNamed(d, rules.SubjectEnum, d.old.Enums, d.new.Enums, d.enum)
}

func (d *differ) enum(oe, ne *Enum) {
	s := short(ne.Name)
	d.modified(rules.SubjectEnum, rules.AspectType, s, &oe.Elem, &ne.Elem, openness(oe), openness(ne))
	d.modified(rules.SubjectEnum, rules.AspectJSONFormat, s, &oe.Elem, &ne.Elem, oe.JSONFormat, ne.JSONFormat)
	d.reserved("enum", &oe.Elem, &ne.Elem, oe.ReservedRanges, ne.ReservedRanges, oe.ReservedNames, ne.ReservedNames)
	d.values(oe, ne)
}

func openness(e *Enum) string {
	if e.Closed {
		return "closed"
	}
	return "open"
}

// values matches enum values by number; with aliases, a number keeps
// its meaning while any one of its old names is still there.
func (d *differ) values(oe, ne *Enum) {
	byNum := map[int32][]*EnumValue{}
	for _, v := range ne.Values {
		byNum[v.Number] = append(byNum[v.Number], v)
	}
	oldNums := map[int32]bool{}
	for _, ov := range oe.Values {
		if oldNums[ov.Number] {
			continue
		}
		oldNums[ov.Number] = true
		nvs := byNum[ov.Number]
		switch {
		case len(nvs) == 0:
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectEnumValue, Name: ov.Short, Path: ov.Name,
				Old: strconv.Itoa(int(ov.Number)), OldLoc: ov.Loc, NewLoc: ne.Loc,
				NumberReserved: reserved(ne.ReservedRanges, ov.Number), NameReserved: slices.Contains(ne.ReservedNames, ov.Short)})
		case !slices.ContainsFunc(nvs, func(v *EnumValue) bool { return v.Short == ov.Short }):
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectEnumValue, Aspect: rules.AspectName,
				Name: nvs[0].Short, Path: nvs[0].Name, Old: ov.Short, New: nvs[0].Short, OldLoc: ov.Loc, NewLoc: nvs[0].Loc})
		}
	}
	for _, nv := range ne.Values {
		if !oldNums[nv.Number] {
			oldNums[nv.Number] = true
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectEnumValue, Name: nv.Short, Path: nv.Name,
				New: strconv.Itoa(int(nv.Number)), NewLoc: nv.Loc})
		}
	}
}

func (d *differ) services() {
	matchNamed(d, rules.SubjectService, d.old.Services, d.new.Services, d.service)
}

func (d *differ) service(os, ns *Service) {
	for _, or := range os.RPCs {
		i := slices.IndexFunc(ns.RPCs, func(r *RPC) bool { return r.Name == or.Name })
		if i < 0 {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectRPC, Name: or.Short, Path: or.Name,
				OldLoc: or.Loc, NewLoc: ns.Loc, Operations: []string{or.Name}})
			continue
		}
		d.rpc(or, ns.RPCs[i])
	}
	for _, nr := range ns.RPCs {
		if !slices.ContainsFunc(os.RPCs, func(r *RPC) bool { return r.Name == nr.Name }) {
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectRPC, Name: nr.Short, Path: nr.Name,
				NewLoc: nr.Loc, Operations: []string{nr.Name}})
		}
	}
}

func (d *differ) rpc(or, nr *RPC) {
	mod := func(a rules.Aspect, ov, nv string) {
		if ov != nv {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectRPC, Aspect: a, Name: nr.Short, Path: nr.Name,
				Old: ov, New: nv, OldLoc: or.Loc, NewLoc: nr.Loc, Operations: []string{nr.Name}})
		}
	}
	mod(rules.AspectRequestType, or.Input, nr.Input)
	mod(rules.AspectResponseType, or.Output, nr.Output)
	mod(rules.AspectClientStreaming, strconv.FormatBool(or.ClientStreaming), strconv.FormatBool(nr.ClientStreaming))
	mod(rules.AspectServerStreaming, strconv.FormatBool(or.ServerStreaming), strconv.FormatBool(nr.ServerStreaming))
	mod(rules.AspectIdempotency, or.Idempotency, nr.Idempotency)
}

func (d *differ) extensions() {
	matchNamed(d, rules.SubjectExtension, d.old.Extensions, d.new.Extensions, func(ox, nx *Field) {
		d.field(rules.SubjectField, ox, nx)
	})
}
