package timeline

import (
	"cmp"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/changelog"
	"github.com/contractlint/contractlint/internal/compat"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/rules"
)

// collector sees every typed diff a review judges (pipeline's Compared
// hook) and keeps what the findings alone do not say: the changelog, the
// readers of removed fields, the old and new facts of changed fields. step
// turns what it kept since the last step into one.
type collector struct {
	reg      *rules.Registry
	settings *rules.Settings
	linkBase string
	log      changelog.Log
	readers  map[string][]Reader
	meaning  map[string][]Fact
}

// add keeps one comparison's changelog and evidence, as review --changelog does.
func (c *collector) add(in *rules.Input) {
	l := changelog.Of(in, c.reg, c.settings)
	c.log.Merge(l)
	if c.readers == nil {
		c.readers, c.meaning = map[string][]Reader{}, map[string][]Fact{}
	}
	for i := range in.Changes {
		ch := &in.Changes[i]
		if active, gone := rules.ReadersOf(in.Readers, ch); len(active)+len(gone) > 0 {
			c.readers[ch.Path] = readersOf(active, gone)
		}
		if ch.Kind == rules.Modified && ch.Subject == rules.SubjectField && ch.OldField != nil && ch.NewField != nil {
			c.meaning[ch.Path] = facts(ch.OldField, ch.NewField)
		}
	}
}

// step makes the comparison from -> to of what review found and what add
// kept since the last step.
func (c *collector) step(from, to Release, rr *review.Result) Step {
	rr.LogFiles(&c.log)
	st := Step{From: from.Name, To: to.Name, Changes: []Change{}}
	owners := map[string]owner{}
	for _, g := range c.log.Groups {
		own := owner{contract: report.Clean(g.Contract), kind: g.Kind.String(), element: report.Clean(g.Name)}
		if own.element == "" {
			own.element = own.contract
		}
		for i := range g.Entries {
			e := &g.Entries[i]
			if _, ok := owners[e.Path]; !ok {
				owners[e.Path] = own
			}
			st.Changes = append(st.Changes, c.change(own, e, from, to))
		}
	}
	st.Findings = c.findings(rr.Findings, from, to, owners)
	st.Counts = count(&st)
	for _, v := range c.log.Versions {
		st.Versions = append(st.Versions, versionOf(v))
	}
	c.log, c.readers, c.meaning = changelog.Log{}, nil, nil
	return st
}

// versionOf is a changelog's version as the report shows it.
func versionOf(v changelog.Version) Version {
	declared := cmp.Or(v.Declared.String(), "none")
	if !v.Readable {
		declared = "unreadable"
	}
	return Version{What: report.Clean(v.What), Old: report.Clean(v.Old), New: report.Clean(v.New),
		Needed: cmp.Or(v.Needed.String(), "none"), Declared: declared, Short: v.Short, Text: report.Clean(v.String())}
}

// owner is the changelog group an element belongs to.
type owner struct{ contract, kind, element string }

func (c *collector) change(own owner, e *changelog.Entry, from, to Release) Change {
	ch := Change{Contract: own.contract, Format: formatOf(0, own.contract), Kind: own.kind, Element: own.element,
		Action: e.Action, Subject: changelog.SubjectName(e), What: report.Clean(e.What()), Path: report.Clean(e.Path),
		Place: c.place(e.Where, e.OldSide, from, to), Operations: cleanAll(e.Operations), Breaking: []Break{}}
	for _, b := range e.Breaks {
		ch.Breaking = append(ch.Breaking, Break{Direction: cmp.Or(b.Compat, rules.Backward).String(), Rule: b.Rule, Severity: b.Severity})
	}
	switch e.Action {
	case changelog.Removed:
		ch.Readers = c.readers[e.Path]
	case changelog.Changed:
		if e.Meaning != "" {
			ch.Meaning = c.meaning[e.Path]
		}
	}
	return ch
}

// findings converts a review's findings, each placed in the changelog
// group of the element it is about (owners, by path): else in the first
// operation it reaches, else its file's.
func (c *collector) findings(fs []rules.Finding, from, to Release, owners map[string]owner) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		x := Finding{Rule: f.Rule, Severity: f.Severity, Message: report.Clean(f.Message), Path: report.Clean(f.Path),
			Place: c.place(f.Where, f.Removed, from, to), Operations: cleanAll(f.Operations),
			Format: formatOf(f.Format, f.Where.File), Breaking: compat.IsBreak(f, c.reg),
			key: compat.BreakKey(f), loose: looseKey(f)}
		if f.Old != nil {
			p := c.place(*f.Old, true, from, to)
			x.Old = &p
		}
		own, ok := owners[f.Path]
		switch {
		case ok:
		case len(f.Operations) > 0:
			own = owner{contract: x.File, kind: changelog.OperationGroup.String(), element: x.Operations[0]}
		default:
			own = owner{contract: x.File, kind: changelog.ContractGroup.String(), element: x.File}
		}
		x.Contract, x.Kind, x.Element = own.contract, own.kind, own.element
		x.Readers, x.Meaning = c.readers[f.Path], c.meaning[f.Path]
		out = append(out, x)
	}
	return out
}

// looseKey names a break whatever line it is on: the same rule on the same
// element in two comparisons of different versions.
func looseKey(f rules.Finding) string {
	if f.Path == "" {
		return f.Rule + "\x00\x00" + f.Message
	}
	return f.Rule + "\x00" + f.Path
}

// place is a location on the old side (the release from) or the new (to),
// with a link when the report has a base for links.
func (c *collector) place(l rules.Location, old bool, from, to Release) Place {
	p := Place{File: report.Clean(l.File), Line: l.Line, Column: l.Column, Side: "new", Commit: to.Commit}
	if old {
		p.Side, p.Commit = "old", from.Commit
	}
	p.Link = link(c.linkBase, p)
	return p
}

// link is LINKBASE/COMMIT/FILE#LLINE, each path segment escaped; "" when
// there is no base, commit or file.
func link(base string, p Place) string {
	if base == "" || p.Commit == "" || p.File == "" {
		return ""
	}
	segs := strings.Split(p.File, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	s := strings.TrimSuffix(base, "/") + "/" + p.Commit + "/" + strings.Join(segs, "/")
	if p.Line > 0 {
		s += "#L" + strconv.Itoa(p.Line)
	}
	return s
}

// formatOf names a finding's format; review's own findings (a deleted
// file, an unreadable one) may not set it, and then the file's name tells.
func formatOf(f rules.Format, file string) string {
	switch {
	case f == rules.Proto:
		return "proto"
	case f == rules.OpenAPI:
		return "openapi"
	case strings.EqualFold(path.Ext(file), ".proto"):
		return "proto"
	}
	return "openapi"
}

// Formats are the formats every step counts, in the order shown.
var Formats = []string{"openapi", "proto"}

func count(st *Step) []Counts {
	out := make([]Counts, len(Formats))
	at := map[string]*Counts{}
	for i, f := range Formats {
		out[i].Format = f
		at[f] = &out[i]
	}
	for _, f := range st.Findings {
		c := at[f.Format]
		switch f.Severity {
		case rules.Error:
			c.Errors++
		case rules.Warning:
			c.Warnings++
		default:
			c.Infos++
		}
		if f.Breaking {
			c.Breaking++
		}
	}
	for _, ch := range st.Changes {
		c := at[ch.Format]
		c.Changes++
		if ch.Action == changelog.Added && len(ch.Breaking) == 0 {
			c.Additive++
		}
	}
	return out
}

func readersOf(active, gone []rules.Reader) []Reader {
	var out []Reader
	for i, rs := range [][]rules.Reader{active, gone} {
		for _, r := range rs {
			x := Reader{Consumer: report.Clean(r.Consumer), Reads: r.Reads, File: report.Clean(r.File), Active: i == 0}
			if !r.LastSeen.IsZero() {
				x.LastSeen = r.LastSeen.UTC().Format("2006-01-02")
			}
			out = append(out, x)
		}
	}
	return out
}

// facts sets a field's properties on both sides: those a reader decodes by
// (type, format, unit, scale) always, the others when they differ.
func facts(o, n *rules.Field) []Fact {
	var out []Fact
	add := func(name, ov, nv string, always bool) {
		if ov != nv || always {
			out = append(out, Fact{Name: name, Old: report.Clean(ov), New: report.Clean(nv), Changed: ov != nv})
		}
	}
	add("type", changelog.TypeName(o), changelog.TypeName(n), true)
	add("format", o.Format, n.Format, o.Format != "" || n.Format != "")
	add("unit", o.Unit, n.Unit, o.Unit != "" || n.Unit != "")
	add("multipleOf", number(o.MultipleOf), number(n.MultipleOf), false)
	add("nullable", strconv.FormatBool(o.Nullable), strconv.FormatBool(n.Nullable), false)
	add("json_name", o.JSONName, n.JSONName, false)
	add("enum", strings.Join(o.Enum, ", "), strings.Join(n.Enum, ", "), false)
	add("example", example(o), example(n), false)
	add("description", o.Description, n.Description, o.Description != "" || n.Description != "")
	return out
}

func number(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func example(f *rules.Field) string {
	switch {
	case f.HasExample:
		return number(f.Example)
	case f.StringExample != "":
		return f.StringExample
	}
	return ""
}

func cleanAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = report.Clean(s)
	}
	return out
}
