package lsp

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/fix"
	"github.com/contractlint/contractlint/rules"
)

// Code actions: the mechanical fixes internal/fix knows, and an ignore that
// accepts the finding where it is.

// reasonPlaceholder is what an accept action writes for the reason: the
// ignore needs one, and only the author knows it. It is one of the
// placeholders rules.PlaceholderReason names, so it is refused at its line
// (the file is unreadable, the break still fails) until the author replaces
// it: clicking Accept alone never lets a break pass.
const reasonPlaceholder = "REASON: say why no client breaks"

func (s *server) codeActions(p codeActionParams) []codeAction {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, ok := uriName(p.TextDocument.URI, s.top)
	d := s.docs[name]
	if !ok || d == nil || s.sess == nil {
		return []codeAction{}
	}
	out := []codeAction{}
	for _, it := range s.items[name] {
		if it.finding == nil || !overlaps(it.diag.Range, p.Range) || !inContext(it.diag, p.Context.Diagnostics) {
			continue
		}
		f := it.finding
		var base string
		if b, err := s.sess.BaseFile(fix.OldAt(f).File); err == nil {
			base = string(b)
		}
		for _, x := range fix.For(d.text, base, f) {
			out = append(out, codeAction{Title: x.Title, Kind: "quickfix", Diagnostics: []diagnostic{it.diag},
				Edit: workspaceEdit{Changes: map[string][]textEdit{d.uri: textEdits(x.Edits)}}})
		}
		if title, edits := acceptAction(d.text, base, f); edits != nil {
			a := codeAction{Title: title, Kind: "quickfix", Diagnostics: []diagnostic{it.diag},
				Edit: workspaceEdit{Changes: map[string][]textEdit{d.uri: textEdits(edits)}}}
			if s.snippets {
				a.Edit = snippetEdit(d.uri, d.version, edits)
			}
			out = append(out, a)
		}
	}
	return out
}

func textEdits(es []fix.Edit) []textEdit {
	var out []textEdit
	for _, e := range es {
		out = append(out, textEdit{Range: lineRange(e), NewText: e.Text})
	}
	return out
}

func lineRange(e fix.Edit) span {
	return span{Start: position{Line: e.Start}, End: position{Line: e.End}}
}

// snippetEdit is the Accept action's edits as snippets, the reason a tab
// stop the cursor lands on. LSP's window/showMessageRequest answers with
// one of the buttons it offers, never with text, so a reason can only be
// asked for where it is written. Left as it is, the tab stop inserts the
// placeholder, which is refused and marked like the plain edit's.
func snippetEdit(uri string, version int, es []fix.Edit) workspaceEdit {
	td := textDocumentEdit{}
	td.TextDocument.URI, td.TextDocument.Version = uri, &version
	esc := strings.NewReplacer(`\`, `\\`, `$`, `\$`, `}`, `\}`)
	for _, e := range es {
		v := strings.Replace(esc.Replace(e.Text), esc.Replace(reasonPlaceholder), "${1:"+esc.Replace(reasonPlaceholder)+"}", 1)
		td.Edits = append(td.Edits, snippetTextEdit{Range: lineRange(e), Snippet: stringValue{Kind: "snippet", Value: v}})
	}
	return workspaceEdit{DocumentChanges: []textDocumentEdit{td}}
}

// placeholders marks each line of text that still holds the Accept
// action's placeholder reason: an error until the author replaces it, on
// the line itself (a proto ignore's load problem sits at its element).
func placeholders(text string) []diagnostic {
	var out []diagnostic
	n := 0
	for l := range strings.Lines(text) {
		if i := strings.Index(l, reasonPlaceholder); i >= 0 {
			start := utf16Col(l[:i])
			out = append(out, diagnostic{Range: span{Start: position{Line: n, Character: start}, End: position{Line: n, Character: start + utf16Col(reasonPlaceholder)}},
				Severity: severityError, Code: "contract-unreadable", Source: "contractlint", Message: "replace the reason: a placeholder accepts nothing"})
		}
		n++
	}
	return out
}

// inContext reports whether the client asked about d; a client that sends
// no diagnostics asks about every one in its range.
func inContext(d diagnostic, ctx []diagnostic) bool {
	if len(ctx) == 0 {
		return true
	}
	for _, c := range ctx {
		if c.Code == d.Code && c.Range.Start.Line == d.Range.Start.Line && c.Message == d.Message {
			return true
		}
	}
	return false
}

func overlaps(a, b span) bool {
	return !(b.End.Line < a.Start.Line || b.Start.Line > a.End.Line)
}

// acceptAction accepts the finding where it is, with an ignore scoped to
// the element (the removed one by name, when the finding sits on its
// parent) and a reason for the author to write.
func acceptAction(text, _ string, f *rules.Finding) (string, []fix.Edit) {
	line := f.Where.Line - 1
	if f.Removed {
		line = enclosing(text, f).Start.Line
	}
	l := fix.LineAt(text, line)
	ind := strings.Repeat(" ", fix.Indent(l))
	title := "Accept " + f.Rule + " here (an ignore with a reason to write)"
	element := removedElement(text, f)
	if f.Format == rules.Proto {
		el := ""
		if element != "" {
			el = "element=" + element + " "
		}
		return title, []fix.Edit{fix.Insert(line, ind+"// contractlint:ignore "+f.Rule+" "+el+reasonPlaceholder+"\n")}
	}
	if !strings.HasSuffix(strings.TrimSpace(stripYAMLComment(l)), ":") {
		return "", nil // a flow mapping or a scalar: no line to add under
	}
	child := ind + "  "
	if block, _ := fix.Block(text, line); len(block) > 1 {
		for _, b := range block[1:] {
			if !fix.Blank(b) {
				child = strings.Repeat(" ", fix.Indent(b))
				break
			}
		}
	}
	value := strconv.Quote(reasonPlaceholder)
	if element != "" {
		value = "{element: " + element + ", reason: " + value + "}"
	}
	return title, []fix.Edit{fix.Insert(line+1, child+"x-contractlint-ignore: {"+f.Rule+": "+value+"}\n")}
}

// removedElement names the element a finding is about when the buffer no
// longer has it ("" when it does): an ignore on the parent must name it.
func removedElement(text string, f *rules.Finding) string {
	if f.Format == rules.Proto {
		parts := strings.Split(f.Path, ".")
		last := parts[len(parts)-1]
		if f.Old == nil || regexp.MustCompile(`\b`+regexp.QuoteMeta(last)+`\s*=`).MatchString(text) {
			return ""
		}
		return last
	}
	segs := rules.PointerSegments(f.Path)
	_, matched := pointerLine(text, f.Path)
	if f.Old == nil || matched >= len(segs) {
		return ""
	}
	return segs[len(segs)-1]
}

func stripYAMLComment(l string) string {
	if i := strings.Index(l, " #"); i >= 0 {
		return l[:i]
	}
	return l
}
