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
	return diff(old, new, true)
}

// DiffByName compares two trees by import name even when each holds one
// file: a file moved to another path is, to its importers and to buf
// (FILE_NO_DELETE), a deleted file and a new one.
func DiffByName(old, new *Tree) []rules.Change {
	return diff(old, new, false)
}

func diff(old, new *Tree, pairOne bool) []rules.Change {
	d := &differ{old: old, new: new, rename: map[string]string{}}
	if pairOne && len(old.Files) == 1 && len(new.Files) == 1 {
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
				Name: nf.Name, Path: nf.Name, Old: rules.Value{Text: of.Package}, New: rules.Value{Text: nf.Package},
				OldLoc: orLoc(of.PackageLoc, fileLoc(of)), NewLoc: orLoc(nf.PackageLoc, fileLoc(nf))})
		}
		if of.Syntax != nf.Syntax {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectFile, Aspect: rules.AspectSyntax,
				Name: nf.Name, Path: nf.Name, Old: rules.Value{Text: of.Syntax}, New: rules.Value{Text: nf.Syntax},
				OldLoc: orLoc(of.SyntaxLoc, fileLoc(of)), NewLoc: orLoc(nf.SyntaxLoc, fileLoc(nf))})
		}
		for _, o := range fileOptions {
			if of.Options[o.name] != nf.Options[o.name] {
				d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectFileOption, Aspect: rules.AspectOption,
					Name: o.name, Path: nf.Name, Old: rules.Value{Text: of.Options[o.name]}, New: rules.Value{Text: nf.Options[o.name]},
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

// packageAnchor is where the package shows that o was deleted, when that is
// not its own file: the nearest enclosing message it still declares that
// moved to another file (buf's anchor for PACKAGE_*_NO_DELETE).
func (d *differ) packageAnchor(o *Elem) rules.Location {
	for p := o.Name; strings.Contains(p, "."); {
		p = p[:strings.LastIndexByte(p, '.')]
		if m, ok := d.new.Messages[p]; ok {
			if m.File == d.newFile(o.File) {
				return rules.Location{}
			}
			return m.Loc
		}
	}
	return rules.Location{}
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
			OldLoc: o.Loc, NewLoc: d.anchor(o), Proto: rules.ProtoElement{FileRemoved: d.fileGone(o.File), PackageLoc: d.packageAnchor(o)}})
		return true
	}
	if d.moved(o.File, n.File) {
		// Shown in the file it left, like a deletion (buf's anchor), when
		// that file is still there; else where it went.
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: rules.AspectFile, Name: short(n.Name),
			Path: n.Name, Old: rules.Value{Text: o.Loc.File}, New: rules.Value{Text: n.Loc.File}, OldLoc: o.Loc, NewLoc: orLoc(d.anchor(o), n.Loc)})
	}
	return false
}

// anchor is where the new version shows that o was deleted: the nearest
// enclosing message it still declares, else its file's package line. A
// deleted file has no such place.
func (d *differ) anchor(o *Elem) rules.Location {
	for p := o.Name; strings.Contains(p, "."); {
		p = p[:strings.LastIndexByte(p, '.')]
		if m, ok := d.new.Messages[p]; ok && m.File == d.newFile(o.File) {
			return m.Loc
		}
	}
	if f, ok := d.new.Files[d.newFile(o.File)]; ok {
		return orLoc(f.PackageLoc, fileLoc(f))
	}
	return rules.Location{}
}

func short(full string) string {
	return full[strings.LastIndexByte(full, '.')+1:]
}

// modifiedAt is modified shown at the feature line that made the change,
// when the new element writes one (buf's anchor), else at the element.
func (d *differ) modifiedAt(s rules.Subject, a rules.Aspect, name string, o, n *Elem, ov, nv string, at rules.Location) {
	if at.Line == 0 {
		d.modified(s, a, name, o, n, ov, nv)
		return
	}
	e := *n
	e.Loc = at
	d.modified(s, a, name, o, &e, ov, nv)
}

func (d *differ) modified(s rules.Subject, a rules.Aspect, name string, o, n *Elem, ov, nv string) {
	if ov == nv {
		return
	}
	d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: a, Name: name, Path: n.Name,
		Old: rules.Value{Text: ov}, New: rules.Value{Text: nv}, OldLoc: o.Loc, NewLoc: n.Loc})
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

// messages compares messages by full name. Map entries are left out: a map
// field's own changes (its type names key and value) already cover them.
func (d *differ) messages() {
	old, new := withoutMapEntries(d.old.Messages), withoutMapEntries(d.new.Messages)
	matchNamed(d, rules.SubjectMessage, old, new, d.message)
	d.mapEntries()
	for _, name := range sortedKeys(new) {
		if _, ok := old[name]; !ok {
			m := new[name]
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectMessage, Name: short(name), Path: name, NewLoc: m.Loc})
		}
	}
}

// mapEntries compares what a map field's own type does not say: the
// UTF-8 checks of its string key and value, which follow the file and its
// features. Each is reported at the map field's line, as buf does.
func (d *differ) mapEntries() {
	for _, name := range sortedKeys(d.old.Messages) {
		om, nm := d.old.Messages[name], d.new.Messages[name]
		if !om.MapEntry || nm == nil || !nm.MapEntry {
			continue
		}
		for i, of := range om.Fields {
			if i < len(nm.Fields) && of.Kind == "string" && nm.Fields[i].Kind == "string" {
				d.utf8(rules.SubjectField, of, nm.Fields[i])
			}
		}
	}
}

func withoutMapEntries(ms map[string]*Message) map[string]*Message {
	out := make(map[string]*Message, len(ms))
	for k, m := range ms {
		if !m.MapEntry {
			out[k] = m
		}
	}
	return out
}

func (d *differ) message(om, nm *Message) {
	s := short(nm.Name)
	d.modified(rules.SubjectMessage, rules.AspectMapEntry, s, &om.Elem, &nm.Elem, strconv.FormatBool(om.MapEntry), strconv.FormatBool(nm.MapEntry))
	d.modifiedAt(rules.SubjectMessage, rules.AspectJSONFormat, s, &om.Elem, &nm.Elem, om.JSONFormat, nm.JSONFormat, nm.JSONFormatLoc)
	d.option(rules.SubjectMessage, "message_set_wire_format", &om.Elem, &nm.Elem, om.MessageSet, nm.MessageSet, nm.MessageSetLoc)
	d.option(rules.SubjectMessage, "no_standard_descriptor_accessor", &om.Elem, &nm.Elem, om.NoAccessor, nm.NoAccessor, nm.NoAccessorLoc)
	d.required(om, nm)
	for _, i := range missingRanges(om.ExtRanges, nm.ExtRanges) {
		d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectMessage, Aspect: rules.AspectExtensionRange,
			Name: s, Path: nm.Name, Old: rules.Value{Text: rangeString(om.ExtRanges[i])}, OldLoc: om.Loc, NewLoc: nm.Loc})
	}
	d.reserved("message", om.Elem, nm.Elem, reservedBy{om.ReservedRanges, om.ReservedNames, om.Reservations},
		reservedBy{nm.ReservedRanges, nm.ReservedNames, nm.Reservations})
	for _, oo := range om.Oneofs {
		if !slices.ContainsFunc(nm.Oneofs, func(x *Oneof) bool { return x.Name == oo.Name }) {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectOneof, Name: short(oo.Name), Path: oo.Name,
				OldLoc: oo.Loc, NewLoc: nm.Loc})
		}
	}
	d.fields(om, nm)
}

// option reports a changed boolean option at its line in the new element
// when written there (buf's anchor), else at the element.
func (d *differ) option(s rules.Subject, name string, o, n *Elem, ov, nv bool, at rules.Location) {
	if ov != nv {
		if at.Line == 0 {
			at = n.Loc
		}
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: rules.AspectOption, Name: name, Path: n.Name,
			Old: rules.Value{Text: strconv.FormatBool(ov), Bool: ov}, New: rules.Value{Text: strconv.FormatBool(nv), Bool: nv},
			OldLoc: o.Loc, NewLoc: at})
	}
}

// required reports each field that stopped or started being required:
// one that stopped at the message (it may be gone), one that started at
// its own line. Old or New holds the field as "name = number".
func (d *differ) required(om, nm *Message) {
	was, is := requiredFields(om), requiredFields(nm)
	for _, f := range om.Fields {
		if key := requiredKey(f); was[key] && !is[key] {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectMessage, Aspect: rules.AspectRequired,
				Name: short(nm.Name), Path: nm.Name, Old: rules.Value{Text: key}, OldLoc: f.Loc, NewLoc: nm.Loc})
		}
	}
	for _, f := range nm.Fields {
		if key := requiredKey(f); is[key] && !was[key] {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectMessage, Aspect: rules.AspectRequired,
				Name: short(nm.Name), Path: nm.Name, New: rules.Value{Text: key}, Required: true, OldLoc: om.Loc, NewLoc: f.Loc})
		}
	}
}

func requiredKey(f *Field) string { return fmt.Sprintf("%s = %d", f.Short, f.Number) }

func requiredFields(m *Message) map[string]bool {
	out := map[string]bool{}
	for _, f := range m.Fields {
		if f.Card == CardRequired {
			out[requiredKey(f)] = true
		}
	}
	return out
}

// reservedBy is what a message or enum reserves, with where.
type reservedBy struct {
	ranges [][2]int32
	names  []string
	Reservations
}

// reserved reports each reserved range and name the new version no longer
// holds, at its own place in the old file; Name says whose they were
// ("message" or "enum"), Old what they were.
func (d *differ) reserved(owner string, o, n Elem, old, new reservedBy) {
	at := func(locs []rules.Location, i int) rules.Location {
		if i < len(locs) && locs[i].Line > 0 {
			return locs[i]
		}
		return o.Loc
	}
	for _, i := range missingRanges(old.ranges, new.ranges) {
		d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectReserved, Aspect: rules.AspectNumber,
			Name: owner, Path: n.Name, Old: rules.Value{Text: rangeString(old.ranges[i])}, OldLoc: at(old.RangeLocs, i), NewLoc: n.Loc})
	}
	held := reserve(nil, new.names)
	for i, name := range old.names {
		if !held.names[name] {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectReserved, Aspect: rules.AspectName,
				Name: owner, Path: n.Name, Old: rules.Value{Text: strconv.Quote(name)}, OldLoc: at(old.NameLocs, i), NewLoc: n.Loc})
		}
	}
}

// missingRanges lists the indexes of the old inclusive ranges that the new
// ranges do not cover entirely, without walking numbers one by one (ranges
// reach 2^29).
func missingRanges(old, new [][2]int32) []int {
	var out []int
	by := numberSet(new)
	for i, r := range old {
		if !by.covers(r[0], r[1]) {
			out = append(out, i)
		}
	}
	return out
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
	held := reserve(nm.ReservedRanges, nm.ReservedNames)
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
				Proto: rules.ProtoElement{NumberReserved: held.nums.has(of.Number), NameReserved: held.names[of.Short]}})
		} else {
			start := len(d.out)
			d.field(rules.SubjectField, of, nf)
			if movedAlone(om, nm, of, nf) {
				d.wireSame(start, rules.AspectOneof)
			}
		}
		if moved := byName[of.Short]; moved != nil && moved.Number != of.Number {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectField, Aspect: rules.AspectNumber,
				Name: of.Short, Path: moved.Name, Old: rules.Value{Text: strconv.Itoa(int(of.Number))}, New: rules.Value{Text: strconv.Itoa(int(moved.Number))},
				OldLoc: of.Loc, NewLoc: moved.Loc, OldField: facts(of), NewField: facts(moved)})
		}
	}
	for _, nf := range nm.Fields {
		if !oldNums[nf.Number] {
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectField, Name: nf.Short, Path: nf.Name,
				NewLoc: nf.Loc, NewField: facts(nf), Required: nf.ValidateRequired})
		}
	}
}

// field compares two fields with the same number (or extensions with the
// same extendee and number).
func (d *differ) field(s rules.Subject, of, nf *Field) {
	ofa, nfa := enumFacts(facts(of), d.old), enumFacts(facts(nf), d.new)
	if of.Type != nf.Type {
		// Only a swapped message type needs its shape.
		ofa.Shape, nfa.Shape = wireShape(d.old, ofa), wireShape(d.new, nfa)
	}
	add := func(a rules.Aspect, name, ov, nv string) {
		if ov != nv {
			d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: a, Name: name, Path: nf.Name,
				Old: rules.Value{Text: ov}, New: rules.Value{Text: nv}, OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
		}
	}
	if meaningChanged(ofa, nfa) {
		// One change per field whose meaning moved, for field-redefined;
		// the aspect changes below serve the narrower breaking rules.
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Name: nf.Short, Path: nf.Name,
			OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
	}
	// An extension is named by its full name (text format and JSON write
	// "[pkg.Scope.name]"), so moving it to another scope renames it.
	if nf.Extendee != "" {
		add(rules.AspectName, nf.Short, of.Name, nf.Name)
	} else {
		add(rules.AspectName, nf.Short, of.Short, nf.Short)
	}
	add(rules.AspectType, nf.Short, typeLabel(of), typeLabel(nf))
	add(rules.AspectCardinality, nf.Short, of.Card, nf.Card)
	add(rules.AspectJSONName, nf.Short, of.JSONName, nf.JSONName)
	add(rules.AspectOneof, nf.Short, of.Oneof, nf.Oneof)
	add(rules.AspectDefault, nf.Short, defaultOf(of), defaultOf(nf))
	// Only a repeated field has an encoding to pack: a field that turned
	// repeated (or back) changed cardinality, which that change reports.
	if of.Card == CardRepeated && nf.Card == CardRepeated {
		add(rules.AspectPacked, nf.Short, strconv.FormatBool(of.Packed), strconv.FormatBool(nf.Packed))
	}
	d.constraints(s, of, nf, ofa, nfa)
	// Options and features that only mean something for some kinds are
	// compared where both sides have them: a string becoming a bool is a
	// type change, not a validation change to nothing.
	if of.CType != "" && nf.CType != "" {
		add(rules.AspectOption, "ctype", of.CType, nf.CType)
	}
	if int64Kinds[of.Kind] && int64Kinds[nf.Kind] {
		add(rules.AspectOption, "jstype", of.JSType, nf.JSType)
	}
	if of.Kind == "string" && nf.Kind == "string" {
		d.utf8(s, of, nf)
	}
}

// utf8 reports the UTF-8 checks of two string fields that differ. A Java
// check the file option sets shows at that option, as buf shows it.
func (d *differ) utf8(s rules.Subject, of, nf *Field) {
	for _, o := range []struct {
		name, ov, nv string
		at           rules.Location
	}{
		{"utf8_validation", of.UTF8, nf.UTF8, nf.Loc},
		{"java_string_check_utf8", of.JavaUTF8, nf.JavaUTF8, orLoc(nf.JavaUTF8Loc, nf.Loc)},
	} {
		if o.ov != o.nv {
			d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: rules.AspectOption, Name: o.name, Path: nf.Name,
				Old: rules.Value{Text: o.ov}, New: rules.Value{Text: o.nv}, OldLoc: of.Loc, NewLoc: o.at, OldField: facts(of), NewField: facts(nf)})
		}
	}
}

// typeLabel is a field's type as the wire sees it: a message field encoded
// delimited (a proto2 group, or message_encoding = DELIMITED) is another
// type than the same message length-prefixed.
func typeLabel(f *Field) string {
	if f.Kind == "group" {
		return f.Type + " (delimited)"
	}
	return f.Type
}

// int64Kinds are the kinds jstype applies to.
var int64Kinds = map[string]bool{"int64": true, "uint64": true, "sint64": true, "fixed64": true, "sfixed64": true}

// meaningChanged reports a change in what a field's value means to a
// reader: its type, its shape (scalar, repeated, map), or the comments and
// options that state its unit. A new name or JSON name is the same value
// under another name, which the name rules report.
func meaningChanged(o, n *rules.Field) bool {
	return o.Type != n.Type || o.Key != n.Key || o.Format != n.Format ||
		o.Array != n.Array || o.Map != n.Map ||
		o.Description != n.Description || o.Unit != n.Unit
}

// enumFacts adds an enum field's values, so rules can tell an enum moved
// or copied with the same values from one that means something else.
func enumFacts(x *rules.Field, t *Tree) *rules.Field {
	e := t.Enums[x.Type]
	if x.Format != "enum" || e == nil {
		return x
	}
	for _, v := range e.Values {
		x.Enum = append(x.Enum, v.Short)
		x.EnumNumbers = append(x.EnumNumbers, v.Number)
	}
	return x
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
	d.modifiedAt(rules.SubjectEnum, rules.AspectType, s, &oe.Elem, &ne.Elem, openness(oe), openness(ne), ne.ClosedLoc)
	d.modifiedAt(rules.SubjectEnum, rules.AspectJSONFormat, s, &oe.Elem, &ne.Elem, oe.JSONFormat, ne.JSONFormat, ne.JSONFormatLoc)
	d.reserved("enum", oe.Elem, ne.Elem, reservedBy{oe.ReservedRanges, oe.ReservedNames, oe.Reservations},
		reservedBy{ne.ReservedRanges, ne.ReservedNames, ne.Reservations})
	d.values(oe, ne)
}

func openness(e *Enum) string {
	if e.Closed {
		return "closed"
	}
	return "open"
}

// values matches enum values by number; with aliases (allow_alias), each
// old name of a number must still name it. A number that lost a name is
// reported at each of its new values, as buf does: each is a line whose
// meaning for JSON clients changed.
func (d *differ) values(oe, ne *Enum) {
	held := reserve(ne.ReservedRanges, ne.ReservedNames)
	byNum := map[int32][]*EnumValue{}
	for _, v := range ne.Values {
		byNum[v.Number] = append(byNum[v.Number], v)
	}
	oldByNum := map[int32][]*EnumValue{}
	for _, ov := range oe.Values {
		oldByNum[ov.Number] = append(oldByNum[ov.Number], ov)
	}
	oldNums := map[int32]bool{}
	for _, ov := range oe.Values {
		if oldNums[ov.Number] {
			continue
		}
		oldNums[ov.Number] = true
		ovs, nvs := oldByNum[ov.Number], byNum[ov.Number]
		if len(nvs) == 0 {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectEnumValue, Name: ov.Short, Path: ov.Name,
				Old: rules.Value{Text: strconv.Itoa(int(ov.Number))}, OldLoc: ov.Loc, NewLoc: ne.Loc,
				Proto: rules.ProtoElement{NumberReserved: held.nums.has(ov.Number), NameReserved: held.names[ov.Short]}})
			continue
		}
		was, is := valueNames(ovs), valueNames(nvs)
		if !slices.ContainsFunc(was, func(n string) bool { return !slices.Contains(is, n) }) {
			continue // every old name still names the number; added aliases are fine
		}
		for _, nv := range nvs {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectEnumValue, Aspect: rules.AspectName,
				Name: nv.Short, Path: nv.Name, Old: rules.Value{Text: strings.Join(was, ", ")}, New: rules.Value{Text: strings.Join(is, ", ")},
				OldLoc: ov.Loc, NewLoc: nv.Loc, Proto: rules.ProtoElement{Parent: ne.Name, Number: nv.Number}})
		}
	}
	for _, nv := range ne.Values {
		if !oldNums[nv.Number] {
			oldNums[nv.Number] = true
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectEnumValue, Name: nv.Short, Path: nv.Name,
				New: rules.Value{Text: strconv.Itoa(int(nv.Number))}, NewLoc: nv.Loc})
		}
	}
}

// valueNames are the sorted names of enum values (aliases of one number).
func valueNames(vs []*EnumValue) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Short
	}
	slices.Sort(out)
	return out
}

func (d *differ) services() {
	matchNamed(d, rules.SubjectService, d.old.Services, d.new.Services, d.service)
}

func (d *differ) service(os, ns *Service) {
	byName := func(rs []*RPC) map[string]*RPC {
		m := make(map[string]*RPC, len(rs))
		for _, r := range rs {
			m[r.Name] = r
		}
		return m
	}
	oldRPCs, newRPCs := byName(os.RPCs), byName(ns.RPCs)
	for _, or := range os.RPCs {
		nr := newRPCs[or.Name]
		if nr == nil {
			d.add(rules.Change{Kind: rules.Removed, Subject: rules.SubjectRPC, Name: or.Short, Path: or.Name,
				OldLoc: or.Loc, NewLoc: ns.Loc, Operations: []string{or.Name}})
			continue
		}
		d.rpc(or, nr)
	}
	for _, nr := range ns.RPCs {
		if oldRPCs[nr.Name] == nil {
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectRPC, Name: nr.Short, Path: nr.Name,
				NewLoc: nr.Loc, Operations: []string{nr.Name}})
		}
	}
}

func (d *differ) rpc(or, nr *RPC) {
	mod := func(a rules.Aspect, ov, nv string, at rules.Location) {
		if ov != nv {
			d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectRPC, Aspect: a, Name: nr.Short, Path: nr.Name,
				Old: rules.Value{Text: ov}, New: rules.Value{Text: nv}, OldLoc: or.Loc, NewLoc: at, Operations: []string{nr.Name}})
		}
	}
	mod(rules.AspectRequestType, or.Input, nr.Input, nr.Loc)
	mod(rules.AspectResponseType, or.Output, nr.Output, nr.Loc)
	mod(rules.AspectClientStreaming, strconv.FormatBool(or.ClientStreaming), strconv.FormatBool(nr.ClientStreaming), nr.Loc)
	mod(rules.AspectServerStreaming, strconv.FormatBool(or.ServerStreaming), strconv.FormatBool(nr.ServerStreaming), nr.Loc)
	// At the idempotency_level option when the new rpc writes one, as buf does.
	at := nr.IdempotencyLoc
	if at.Line == 0 {
		at = nr.Loc
	}
	mod(rules.AspectIdempotency, or.Idempotency, nr.Idempotency, at)
	d.httpBindings(or, nr)
}

// httpBindings compares an rpc's HTTP routes as OpenAPI operations are
// compared: an old route (method and path template) the new rpc lacks is
// gone for HTTP clients, moved when the new rpc has a route in its place
// that the old one lacked; a route kept with another body binding changes
// what clients must send.
func (d *differ) httpBindings(or, nr *RPC) {
	oldRoutes := make(map[string]bool, len(or.HTTP))
	for _, b := range or.HTTP {
		oldRoutes[b.Route()] = true
	}
	newRoutes := make(map[string]HTTPBinding, len(nr.HTTP))
	for _, b := range nr.HTTP {
		newRoutes[b.Route()] = b
	}
	change := func(a rules.Aspect, name, ov, nv string) {
		d.add(rules.Change{Kind: rules.Modified, Subject: rules.SubjectRPC, Aspect: a, Name: name, Path: nr.Name,
			Old: rules.Value{Text: ov}, New: rules.Value{Text: nv}, OldLoc: or.Loc, NewLoc: nr.Loc, Operations: []string{nr.Name}})
	}
	for i, ob := range or.HTTP {
		if nb, kept := newRoutes[ob.Route()]; kept {
			if nb.Body != ob.Body {
				change(rules.AspectHTTPBody, ob.Route(), ob.Body, nb.Body)
			}
			continue
		}
		to := ""
		if i < len(nr.HTTP) && !oldRoutes[nr.HTTP[i].Route()] {
			to = nr.HTTP[i].Route()
		}
		change(rules.AspectHTTPBinding, nr.Short, ob.Route(), to)
	}
}

func (d *differ) extensions() {
	matchNamed(d, rules.SubjectExtension, d.old.Extensions, d.new.Extensions, func(ox, nx *Field) {
		d.field(rules.SubjectField, ox, nx)
	})
}

// constraints compares a field's validation bounds (protovalidate, PGV) in
// the words and aspects of OpenAPI's: a request value they now refuse, or a
// response value they no longer promise, is judged by the same rules.
func (d *differ) constraints(s rules.Subject, of, nf *Field, ofa, nfa *rules.Field) {
	bound := func(a rules.Aspect, ol, nl *rules.Limit) {
		if ol.String() == nl.String() {
			return
		}
		d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: a, Name: nf.Short, Path: nf.Name,
			Old: rules.Value{Text: ol.String(), Limit: ol}, New: rules.Value{Text: nl.String(), Limit: nl},
			OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
	}
	o, n := of.Validate, nf.Validate
	d.lengths(s, of, nf, ofa, nfa)
	bound(rules.AspectMinimum, o.Min, n.Min)
	bound(rules.AspectMaximum, o.Max, n.Max)
	text := func(a rules.Aspect, ov, nv string) {
		if ov != nv {
			d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: a, Name: nf.Short, Path: nf.Name,
				Old: rules.Value{Text: ov}, New: rules.Value{Text: nv},
				OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
		}
	}
	text(rules.AspectPattern, o.Pattern, n.Pattern)
	text(rules.AspectConst, o.Const, n.Const)
	// An `in` list added or dropped makes the field an enum or a free value
	// again; one kept is compared value by value, as OpenAPI's enums are.
	if len(o.In) == 0 || len(n.In) == 0 {
		text(rules.AspectEnum, strings.Join(o.In, ", "), strings.Join(n.In, ", "))
	} else {
		value := func(k rules.Kind, a rules.Aspect, v string) {
			c := rules.Change{Kind: k, Subject: rules.SubjectEnumValue, Aspect: a, Name: v, Path: nf.Name,
				OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa}
			if k == rules.Removed {
				c.Old.Text = v
			} else {
				c.New.Text = v
			}
			d.add(c)
		}
		for _, v := range o.In {
			if !slices.Contains(n.In, v) {
				value(rules.Removed, rules.AspectAllowedValue, v)
			}
		}
		for _, v := range n.In {
			if !slices.Contains(o.In, v) {
				value(rules.Added, rules.AspectAllowedValue, v)
			}
		}
	}
	for _, v := range n.NotIn {
		if !slices.Contains(o.NotIn, v) {
			d.add(rules.Change{Kind: rules.Added, Subject: rules.SubjectEnumValue, Aspect: rules.AspectRefusedValue, Name: v, Path: nf.Name,
				New: rules.Value{Text: v}, OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
		}
	}
	d.ruleRequired(s, of, nf, ofa, nfa)
}

// ruleRequired reports a validation rule that started or stopped
// requiring a field. A field the contract already required otherwise
// (proto2 required, field_behavior REQUIRED) did not become required.
func (d *differ) ruleRequired(s rules.Subject, of, nf *Field, ofa, nfa *rules.Field) {
	if of.ValidateRequired == nf.ValidateRequired || of.Required() && nf.Required() {
		return
	}
	word := map[bool]string{true: "required", false: "optional"}
	d.add(rules.Change{Kind: rules.Modified, Subject: s, Aspect: rules.AspectRequired, Name: nf.Short, Path: nf.Name,
		Old: rules.Value{Text: word[of.Required()]}, New: rules.Value{Text: word[nf.Required()]}, Required: nf.Required(),
		OldLoc: of.Loc, NewLoc: nf.Loc, OldField: ofa, NewField: nfa})
}
