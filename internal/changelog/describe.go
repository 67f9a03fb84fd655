package changelog

import "github.com/contractlint/contractlint/rules"

// What describes the entry without its action, as the text changelog does:
// "field address.city in responses: type string -> integer".
func (e *Entry) What() string { return e.what() }

// Header names the group as the text changelog heads it.
func (g *Group) Header() string { return g.header() }

// SubjectName is the subject's name as the JSON changelog writes it.
func SubjectName(e *Entry) string { return e.Subject.Noun() }

// TypeName shows a field's type as the changelog does: "string[]",
// "map<string, int32>".
func TypeName(f *rules.Field) string { return typeName(f) }
