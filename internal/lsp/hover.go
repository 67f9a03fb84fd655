package lsp

import (
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// hover shows, on a flagged element, the documentation of each rule that
// flags it, from the rule's own Doc value (what `contractlint rules ID`
// prints).
func (s *server) hover(p hoverParams) *hover {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := uriName(p.TextDocument.URI, s.top)
	if !ok || s.reg == nil {
		return nil
	}
	var parts []string
	var at *span
	seen := map[string]bool{}
	for _, it := range s.items[name] {
		r := it.diag.Range
		if p.Position.Line < r.Start.Line || p.Position.Line > r.End.Line || seen[it.diag.Code] {
			continue
		}
		rule, ok := s.reg.Get(it.diag.Code)
		if !ok {
			continue
		}
		seen[it.diag.Code] = true
		parts = append(parts, ruleDoc(rule, it.diag.Message))
		if at == nil {
			at = &r
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return &hover{Contents: markupContent{Kind: "markdown", Value: strings.Join(parts, "\n\n---\n\n")}, Range: at}
}

// ruleDoc renders a rule's documentation in Markdown, under the message of
// the finding hovered.
func ruleDoc(r *rules.Rule, msg string) string {
	var b strings.Builder
	b.WriteString("**" + r.ID + "** (" + r.Severity.String() + "): " + r.Doc.Title + "\n\n")
	b.WriteString(msg + "\n\n")
	b.WriteString(r.Doc.Text + "\n")
	lang := ""
	if r.Formats&rules.Proto != 0 && r.Formats&rules.OpenAPI == 0 {
		lang = "proto"
	} else if r.Formats&rules.OpenAPI != 0 && r.Formats&rules.Proto == 0 {
		lang = "yaml"
	}
	for _, ex := range []struct{ label, text string }{{"Bad", r.Doc.Bad}, {"Good", r.Doc.Good}} {
		if ex.text != "" {
			b.WriteString("\n" + ex.label + ":\n```" + lang + "\n" + strings.TrimRight(ex.text, "\n") + "\n```\n")
		}
	}
	return b.String()
}
