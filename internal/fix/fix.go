// Package fix holds the mechanical fixes for findings: edits built from the
// finding and the text of both sides, offered only when the text has the
// shape the edit assumes (block YAML, a proto declaration on its own line),
// so that nothing is offered rather than an edit that breaks the file. The
// editor (internal/lsp) offers them as code actions, the pull request
// review (internal/report, github-review) as suggestions.
package fix

import "github.com/contractlint/contractlint/rules"

// Edit replaces the whole lines [Start, End) (0-based) of the head text
// with Text, which ends in a newline; Start == End inserts before Start.
type Edit struct {
	Start, End int
	Text       string
}

// Fix is one way to resolve a finding: a title for the author and its edits
// to the file the finding is in.
type Fix struct {
	Title string
	Edits []Edit
}

// For lists the fixes for f, given text (the head version of f's file) and
// base (the base version of the file f.Old is in, "" when unknown).
func For(text, base string, f *rules.Finding) []Fix {
	var out []Fix
	for _, make := range []func(string, string, *rules.Finding) (string, []Edit){reserve, keepDeprecated, reuse, expand, idempotencyKey} {
		if title, edits := make(text, base, f); edits != nil {
			out = append(out, Fix{Title: title, Edits: edits})
		}
	}
	return out
}

// OldAt is where the finding's element is in the base.
func OldAt(f *rules.Finding) rules.Location {
	if f.Old != nil {
		return *f.Old
	}
	return f.Where
}

// Insert is an edit that puts text before line.
func Insert(line int, text string) Edit { return Edit{Start: line, End: line, Text: text} }
