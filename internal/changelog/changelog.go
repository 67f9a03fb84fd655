// Package changelog turns the typed diff into release notes: every change,
// breaking or not, grouped by the operation (or rpc) it belongs to and then
// by the shared schema (or message) it is in. A change inside a shared
// schema is listed once, with the operations it reaches, not once per
// operation as oasdiff does.
package changelog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/rules"
)

// Action is what happened to an element, in the words of release notes.
type Action string

const (
	Added      Action = "added"
	Changed    Action = "changed"
	Deprecated Action = "deprecated"
	Removed    Action = "removed"
)

// Break is one rule's verdict that an entry breaks someone, and whom.
type Break struct {
	Compat   rules.Compat
	Rule     string
	Severity rules.Severity
	Message  string
}

// Entry is one change as a release note shows it.
type Entry struct {
	Action  Action
	Subject rules.Subject
	// Element is the change's path shown relative to its group ("" for the
	// group's own element, like a removed operation).
	Element string
	// Name is the element's own name (a property, a status, an enum value).
	Name     string
	Path     string
	Aspect   rules.Aspect
	Old, New string
	Dir      rules.Direction
	// Where is on the new side, or the old side (OldSide) for a removal.
	Where      rules.Location
	OldSide    bool
	Operations []string
	Breaks     []Break
	// Meaning says what changed in a field whose meaning changed (type,
	// unit, description, ...), for a change the diff gives no aspect.
	Meaning string
}

// Breaking reports whether any rule judged the entry breaking in direction c.
func (e *Entry) Breaking(c rules.Compat) bool {
	return slices.ContainsFunc(e.Breaks, func(b Break) bool { return b.Compat&c != 0 })
}

// Log is the whole changelog.
type Log struct {
	Groups []Group
	// Notes say what the log compared, beside the changes: the releases a
	// review --against checked, and how.
	Notes []string
	// Versions are the bump each declared version needed against the one
	// it declared.
	Versions []Version
}

// Version is one declared version of a comparison: the bump its changes
// needed against the one it declared.
type Version struct {
	// Release is the release the changes are since, as Group.Release.
	Release  string
	What     string
	Old, New string
	Needed   rules.Bump
	// Declared is the bump the version moved by; Readable is false when
	// the two versions could not be compared.
	Declared rules.Bump
	Readable bool
	// Short marks a version that moved less than needed.
	Short bool
}

// versions turns a comparison's version checks into the log's.
func versions(vs []rules.VersionCheck) []Version {
	var out []Version
	for _, v := range vs {
		out = append(out, Version{What: v.New.What, Old: v.Old.Value, New: v.New.Value,
			Needed: v.Needed, Declared: v.Declared, Readable: v.Readable, Short: v.Short()})
	}
	return out
}

// Build lists every change of in once, marking those the findings (a diff
// judged in one or both directions) say break someone. Findings that no
// change explains (lint findings on the new side) are not changes and are
// left to the ordinary report.
func Build(in *rules.Input, findings []rules.Finding) *Log {
	entries := make([]Entry, 0, len(in.Changes))
	for i := range in.Changes {
		entries = append(entries, entryOf(&in.Changes[i]))
	}
	entries = append(entries, deprecations(in.Old, in.New)...)
	// OpenAPI's diff lists no added operations (nothing breaks backward);
	// release notes lead with them.
	for _, op := range rules.NewOperations(in.Old, in.New) {
		entries = append(entries, Entry{Action: Added, Subject: rules.SubjectOperation, Name: op.ID, Path: op.Path,
			Where: op.Loc, Operations: []string{op.ID}})
	}
	attach(entries, findings)
	return &Log{Groups: group(fold(entries), in.New, in.Old), Versions: versions(rules.VersionChecks(in, findings))}
}

// fold lists each change once. The diff splits a change by the direction
// that reaches it (one per request and response side) and reports a
// property's type twice, as the field's meaning and as its type alone;
// release notes say each thing once. A field change left with nothing to
// say (its enum, listed value by value) goes unless a rule judged it.
func fold(entries []Entry) []Entry {
	first := map[string]int{}
	out := entries[:0]
	for _, e := range entries {
		if isMeaning(&e) && e.Meaning == "" && len(e.Breaks) == 0 {
			continue
		}
		k := fmt.Sprint(e.Action, e.Subject, e.Path, e.Aspect, e.Old, e.New, e.Where)
		if i, ok := first[k]; ok {
			out[i].Dir |= e.Dir
			out[i].Operations = union(out[i].Operations, e.Operations)
			out[i].Breaks = append(out[i].Breaks, e.Breaks...)
			continue
		}
		first[k] = len(out)
		out = append(out, e)
	}
	meaningAt := map[string]int{}
	for i := range out {
		if isMeaning(&out[i]) {
			meaningAt[out[i].Path] = i
		}
	}
	gone := make([]bool, len(out))
	for j := range out {
		e := &out[j]
		i, ok := meaningAt[e.Path]
		if ok && j != i && (e.Subject == rules.SubjectSchema || e.Subject == rules.SubjectField) && (e.Aspect == rules.AspectType || e.Aspect == rules.AspectFormat) {
			out[i].Breaks = append(out[i].Breaks, e.Breaks...)
			gone[j] = true
		}
	}
	kept := out[:0]
	for j, e := range out {
		if !gone[j] {
			kept = append(kept, e)
		}
	}
	return kept
}

// isMeaning tells a change to a field's meaning, which the diff gives no aspect.
func isMeaning(e *Entry) bool {
	return e.Subject == rules.SubjectField && e.Action == Changed && e.Aspect == ""
}

func union(a, b []string) []string {
	m := slices.Concat(a, b)
	slices.Sort(m)
	return slices.Compact(m)
}

func entryOf(c *rules.Change) Entry {
	where, oldSide := c.Where()
	e := Entry{OldSide: oldSide, Subject: c.Subject, Name: c.Name, Path: c.Path, Aspect: c.Aspect, Old: c.Old.Text, New: c.New.Text,
		Dir: c.Dir, Where: where, Operations: c.Operations}
	if c.Aspect == "" && c.OldField != nil && c.NewField != nil {
		e.Meaning = meaning(c.OldField, c.NewField)
	}
	switch c.Kind {
	case rules.Added:
		e.Action = Added
	case rules.Removed:
		e.Action = Removed
	default:
		e.Action = Changed
	}
	return e
}

// deprecations finds the operations and fields deprecated by the change: the diff compares
// meaning, and a deprecation changes none, so it is read off the two
// lowered contracts.
func deprecations(old, new *rules.Contract) []Entry {
	if old == nil || new == nil {
		return nil
	}
	was := make(map[string]bool, len(old.Fields))
	for _, f := range old.Fields {
		was[f.Path] = f.Deprecated
	}
	var out []Entry
	opWas := make(map[string]bool, len(old.Operations))
	for _, op := range old.Operations {
		opWas[op.ID] = op.Deprecated
	}
	for _, op := range new.Operations {
		if deprecated, ok := opWas[op.ID]; ok && !deprecated && op.Deprecated {
			out = append(out, Entry{Action: Deprecated, Subject: rules.SubjectOperation, Name: op.ID, Path: op.Path,
				Where: op.Loc, Operations: []string{op.ID}})
		}
	}
	for _, f := range new.Fields {
		if deprecated, ok := was[f.Path]; ok && !deprecated && f.Deprecated {
			out = append(out, Entry{Action: Deprecated, Subject: rules.SubjectField, Path: f.Path, Where: f.Loc})
		}
	}
	return out
}

// attach gives each finding to the entry it is about: the same element at
// the same place, else the first entry about the same element (a rule may
// point at another line of the element, as field-redefined does).
func attach(entries []Entry, findings []rules.Finding) {
	at := make(map[placeKey]int, len(entries))
	byPath := make(map[string]int, len(entries))
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		at[placeKey{e.Path, e.Where}] = i
		byPath[e.Path] = i
	}
	for _, f := range findings {
		i, ok := at[placeKey{f.Path, f.Where}]
		if !ok {
			if i, ok = byPath[f.Path]; !ok || f.Path == "" {
				continue
			}
		}
		entries[i].Breaks = append(entries[i].Breaks, Break{Compat: cmp.Or(f.Compat, rules.Backward),
			Rule: f.Rule, Severity: f.Severity, Message: f.Message})
	}
}

type placeKey struct {
	path  string
	where rules.Location
}

// Of judges in's changes in both directions, whatever the run's --compat,
// since a changelog says whom each change breaks, and builds the log.
func Of(in *rules.Input, reg *rules.Registry, s *rules.Settings) *Log {
	full := *s
	full.Compat = rules.Full
	return Build(in, engine.Run(reg, &full, rules.DiffRule, in))
}

// Merge adds other's groups, from another contract, keeping the order, each
// labelled with the file that holds it (its first entry's): in a spec split
// into files, a schema's group names the schema's file, not the root's.
func (l *Log) Merge(other *Log) {
	for _, g := range other.Groups {
		if len(g.Entries) > 0 {
			g.Contract = g.Entries[0].Where.File
		}
		l.Groups = append(l.Groups, g)
	}
	l.Versions = append(l.Versions, other.Versions...)
}

// meaning lists the facts of a field that differ between two versions.
func meaning(o, n *rules.Field) string {
	var out []string
	add := func(what string, differ bool, ov, nv string) {
		switch {
		case !differ:
		case ov == "" && nv == "":
			out = append(out, what+" changed")
		default:
			out = append(out, fmt.Sprintf("%s %s -> %s", what, orNone(ov), orNone(nv)))
		}
	}
	add("type", o.Type != n.Type || o.Array != n.Array || o.Map != n.Map, typeName(o), typeName(n))
	add("format", o.Format != n.Format, o.Format, n.Format)
	add("nullable", o.Nullable != n.Nullable, strconv.FormatBool(o.Nullable), strconv.FormatBool(n.Nullable))
	add("unit", o.Unit != n.Unit, o.Unit, n.Unit)
	add("multipleOf", o.MultipleOf != n.MultipleOf, fmtFloat(o.MultipleOf), fmtFloat(n.MultipleOf))
	add("example", o.Example != n.Example || o.HasExample != n.HasExample, "", "")
	add("description", o.Description != n.Description, "", "")
	add("json_name", o.JSONName != n.JSONName, o.JSONName, n.JSONName)
	return strings.Join(out, ", ")
}

func typeName(f *rules.Field) string {
	switch {
	case f.Map:
		return "map<" + f.Key + ", " + f.Type + ">"
	case f.Array:
		return f.Type + "[]"
	}
	return f.Type
}

func fmtFloat(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// File lists a whole contract file added or deleted (review compares no
// versions of it), with the findings about it: a deleted contract breaks
// every client of what it declared.
func (l *Log) File(action Action, name string, findings []rules.Finding) {
	e := Entry{Action: action, Subject: rules.SubjectContract, Path: name, Where: rules.Location{File: name},
		OldSide: action == Removed}
	for _, f := range findings {
		if f.Path == name && f.Where.File == name && (action == Removed) == f.Removed {
			e.Breaks = append(e.Breaks, Break{Compat: cmp.Or(f.Compat, rules.Backward), Rule: f.Rule, Severity: f.Severity, Message: f.Message})
		}
	}
	l.Groups = append(l.Groups, Group{Kind: ContractGroup, Name: name, Contract: name, Entries: []Entry{e}})
}
