package changelog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/rules"
)

// Formats lists the formats Write knows.
var Formats = []string{"text", "markdown", "json"}

// Write renders l in format; contract text is escaped for where it goes.
func Write(w io.Writer, l *Log, format string) error {
	switch format {
	case "text":
		return writeText(w, l)
	case "markdown":
		return writeMarkdown(w, l)
	case "json":
		return writeJSON(w, l)
	}
	return fmt.Errorf("unknown changelog format %q (want %s)", format, strings.Join(Formats, ", "))
}

// Summary counts entries by action and by the direction they break.
type Summary struct {
	Changes    int `json:"changes"`
	Added      int `json:"added"`
	Changed    int `json:"changed"`
	Deprecated int `json:"deprecated"`
	Removed    int `json:"removed"`
	Breaking   int `json:"breaking"`
	Backward   int `json:"backward"`
	Forward    int `json:"forward"`
}

// Summarize counts l's entries.
func (l *Log) Summarize() Summary {
	var s Summary
	for _, g := range l.Groups {
		for i := range g.Entries {
			e := &g.Entries[i]
			s.Changes++
			switch e.Action {
			case Added:
				s.Added++
			case Changed:
				s.Changed++
			case Deprecated:
				s.Deprecated++
			case Removed:
				s.Removed++
			}
			if len(e.Breaks) > 0 {
				s.Breaking++
			}
			if e.Breaking(rules.Backward) {
				s.Backward++
			}
			if e.Breaking(rules.Forward) {
				s.Forward++
			}
		}
	}
	return s
}

func (s Summary) String() string {
	if s.Changes == 0 {
		return "no changes"
	}
	changes := "changes"
	if s.Changes == 1 {
		changes = "change"
	}
	return fmt.Sprintf("%d %s: %d added, %d changed, %d deprecated, %d removed; %d breaking (%d backward, %d forward)",
		s.Changes, changes, s.Added, s.Changed, s.Deprecated, s.Removed, s.Breaking, s.Backward, s.Forward)
}

// String says what a version declared against what it needed: "since
// v1.0.0: info.version 1.0.0 → 1.1.0 declares a minor bump; the changes
// need a major one".
func (v Version) String() string {
	s := fmt.Sprintf("%s %s → %s", v.What, v.Old, v.New)
	if v.Release != "" {
		s = "since " + v.Release + ": " + s
	}
	switch {
	case !v.Readable:
		s += " cannot be compared"
	case v.Declared == 0:
		s += " declares no bump"
	default:
		s += " declares a " + v.Declared.String() + " bump"
	}
	need := "no bump"
	if v.Needed != 0 {
		need = "a " + v.Needed.String() + " one"
	}
	s += "; the changes need " + need
	if v.Short {
		s += " (too small)"
	}
	return s
}

// what describes an entry without its action: "field address.city: type string -> integer".
func (e *Entry) what() string {
	s := e.Subject.Noun()
	switch {
	case e.Subject == rules.SubjectEnumValue:
		s += fmt.Sprintf(" %q", e.Name)
		if e.Element != "" {
			s += " of " + e.Element
		}
	case e.Element != "":
		s += " " + e.Element
	}
	if e.Subject.InBody() {
		s += dirNames[e.Dir]
	}
	switch {
	case e.Meaning != "":
		s += ": " + e.Meaning
	case e.Aspect == rules.AspectRequired:
		s += ": now " + e.New
	case e.Aspect == rules.AspectComposition && e.Name != "":
		s += ": " + e.Name // the alternative: its index alone names nothing
	case e.Aspect == rules.AspectOption && e.Name != "":
		s += fmt.Sprintf(": option %s %s -> %s", e.Name, orNone(e.Old), orNone(e.New))
	case e.Action == Changed && e.Aspect != "":
		s += fmt.Sprintf(": %s %s -> %s", e.Aspect, orNone(e.Old), orNone(e.New))
	case e.Action == Changed && (e.Old != "" || e.New != ""):
		s += fmt.Sprintf(": %s -> %s", orNone(e.Old), orNone(e.New))
	case e.Action == Added && (e.New == "required" || e.New == "optional"):
		s += " (" + e.New + ")"
	}
	return s
}

var dirNames = map[rules.Direction]string{rules.Request: " in requests", rules.Response: " in responses",
	rules.Request | rules.Response: " in requests and responses"}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// verdict says whom an entry breaks: "breaking: backward (rule-a), forward (rule-b)".
func (e *Entry) verdict() string {
	if len(e.Breaks) == 0 {
		return ""
	}
	var parts []string
	for _, c := range []rules.Compat{rules.Backward, rules.Forward} {
		var ids []string
		for _, b := range e.Breaks {
			if b.Compat == c {
				ids = append(ids, b.Rule)
			}
		}
		if len(ids) > 0 {
			parts = append(parts, c.String()+" ("+strings.Join(ids, ", ")+")")
		}
	}
	return "breaking " + strings.Join(parts, ", ")
}

// place is where the entry points, marked when it is in the old version.
func (e *Entry) place() string {
	if e.OldSide {
		return e.Where.String() + " (old)"
	}
	return e.Where.String()
}

// header names a group as a heading shows it.
func (g *Group) header() string {
	if g.Release != "" {
		in := *g
		in.Release = ""
		return "since " + g.Release + ": " + in.header()
	}
	if g.Contract != "" && g.Kind == ContractGroup && g.Name == g.Contract {
		return g.Contract // a whole file added or deleted
	}
	if g.Contract != "" {
		return g.Contract + ": " + (&Group{Kind: g.Kind, Name: g.Name, Noun: g.Noun}).header()
	}
	switch {
	case g.Kind == ContractGroup && g.Name == "":
		return "contract"
	case g.Kind == OperationGroup:
		return g.Name
	case g.Noun != "":
		return g.Noun + " " + g.Name
	}
	return g.Kind.String() + " " + g.Name
}

// reachShown is how many operations a line names before "and N more".
const reachShown = 3

func reaches(ops []string, quote func(string) string) string {
	if len(ops) == 0 {
		return ""
	}
	shown := make([]string, 0, reachShown)
	for _, op := range ops[:min(len(ops), reachShown)] {
		shown = append(shown, quote(op))
	}
	s := strings.Join(shown, ", ")
	if n := len(ops) - reachShown; n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	noun := "operations"
	if len(ops) == 1 {
		noun = "operation"
	}
	return fmt.Sprintf("reaches %d %s: %s", len(ops), noun, s)
}

func writeText(w io.Writer, l *Log) error {
	bw := bufio.NewWriter(w)
	for _, g := range l.Groups {
		fmt.Fprintln(bw, report.Clean(g.header()))
		if g.Kind == SchemaGroup && len(g.Operations) > 0 {
			fmt.Fprintf(bw, "  (%s)\n", reaches(g.Operations, report.Clean))
		}
		for i := range g.Entries {
			e := &g.Entries[i]
			line := fmt.Sprintf("  %-10s %s  [%s]", e.Action, report.Clean(e.what()), report.Clean(e.place()))
			if v := e.verdict(); v != "" {
				line += "  " + v
			}
			fmt.Fprintln(bw, line)
		}
	}
	for _, n := range l.Notes {
		fmt.Fprintln(bw, "note: "+report.Clean(n))
	}
	for _, v := range l.Versions {
		fmt.Fprintln(bw, "version: "+report.Clean(v.String()))
	}
	fmt.Fprintln(bw, l.Summarize())
	return bw.Flush()
}

func writeMarkdown(w io.Writer, l *Log) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## Changelog\n\n%s\n", l.Summarize())
	code := func(s string) string { return report.MarkdownText(s) }
	for _, n := range l.Notes {
		fmt.Fprintf(bw, "\n_%s_\n", code(n))
	}
	for _, v := range l.Versions {
		fmt.Fprintf(bw, "\nVersion: %s\n", code(v.String()))
	}
	for _, g := range l.Groups {
		fmt.Fprintf(bw, "\n### %s\n\n", code(g.header()))
		if g.Kind == SchemaGroup && len(g.Operations) > 0 {
			fmt.Fprintf(bw, "_%s_\n\n", reaches(g.Operations, code))
		}
		for i := range g.Entries {
			e := &g.Entries[i]
			line := fmt.Sprintf("- **%s** %s", e.Action, code(e.what()))
			if v := e.verdict(); v != "" {
				line += " — :warning: " + code(v)
			}
			fmt.Fprintln(bw, line)
		}
	}
	return bw.Flush()
}

type jsonBreak struct {
	Direction rules.Compat   `json:"direction"`
	Rule      string         `json:"rule"`
	Severity  rules.Severity `json:"severity"`
	Message   string         `json:"message"`
}

type jsonEntry struct {
	Change  Action `json:"change"`
	Subject string `json:"subject"`
	Element string `json:"element,omitempty"`
	// Name is the element's own name (a property, a value, an alternative).
	Name       string      `json:"name,omitempty"`
	Path       string      `json:"path"`
	Aspect     string      `json:"aspect,omitempty"`
	Meaning    string      `json:"meaning,omitempty"`
	Old        string      `json:"old,omitempty"`
	New        string      `json:"new,omitempty"`
	File       string      `json:"file"`
	Side       string      `json:"side"`
	Line       int         `json:"line"`
	Column     int         `json:"column,omitempty"`
	Operations []string    `json:"operations,omitempty"`
	Breaking   []jsonBreak `json:"breaking"`
}

type jsonGroup struct {
	Release    string      `json:"release,omitempty"`
	Contract   string      `json:"contract,omitempty"`
	Kind       GroupKind   `json:"kind"`
	Name       string      `json:"name"`
	Operations []string    `json:"operations,omitempty"`
	Entries    []jsonEntry `json:"entries"`
}

// jsonVersion is a Version in the changelog's JSON.
type jsonVersion struct {
	Release  string     `json:"release,omitempty"`
	What     string     `json:"what"`
	Old      string     `json:"old"`
	New      string     `json:"new"`
	Needed   rules.Bump `json:"needed,omitempty"`
	Declared rules.Bump `json:"declared,omitempty"`
	Readable bool       `json:"readable"`
	Short    bool       `json:"short"`
}

func jsonVersions(vs []Version) []jsonVersion {
	var out []jsonVersion
	for _, v := range vs {
		out = append(out, jsonVersion{Release: report.Clean(v.Release), What: report.Clean(v.What), Old: report.Clean(v.Old), New: report.Clean(v.New),
			Needed: v.Needed, Declared: v.Declared, Readable: v.Readable, Short: v.Short})
	}
	return out
}

// writeJSON keeps strings clean like the JSON report: `jq -r` prints them.
func writeJSON(w io.Writer, l *Log) error {
	out := struct {
		Groups   []jsonGroup   `json:"groups"`
		Summary  Summary       `json:"summary"`
		Notes    []string      `json:"notes,omitempty"`
		Versions []jsonVersion `json:"versions,omitempty"`
	}{Groups: make([]jsonGroup, 0, len(l.Groups)), Summary: l.Summarize(), Notes: cleanAll(l.Notes), Versions: jsonVersions(l.Versions)}
	for _, g := range l.Groups {
		jg := jsonGroup{Release: report.Clean(g.Release), Contract: report.Clean(g.Contract), Kind: g.Kind, Name: report.Clean(g.Name), Operations: cleanAll(g.Operations)}
		for _, e := range g.Entries {
			je := jsonEntry{Change: e.Action, Subject: e.Subject.Noun(), Element: report.Clean(e.Element),
				Name: report.Clean(e.Name), Path: report.Clean(e.Path), Aspect: report.Clean(string(e.Aspect)), Meaning: report.Clean(e.Meaning),
				Old: report.Clean(e.Old), New: report.Clean(e.New),
				File: report.Clean(e.Where.File), Side: side(e.OldSide), Line: e.Where.Line, Column: e.Where.Column,
				Operations: cleanAll(e.Operations), Breaking: []jsonBreak{}}
			for _, b := range e.Breaks {
				je.Breaking = append(je.Breaking, jsonBreak{Direction: b.Compat, Rule: b.Rule, Severity: b.Severity, Message: report.Clean(b.Message)})
			}
			jg.Entries = append(jg.Entries, je)
		}
		out.Groups = append(out.Groups, jg)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func cleanAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, report.Clean(s))
	}
	return out
}

func side(old bool) string {
	if old {
		return "old"
	}
	return "new"
}
