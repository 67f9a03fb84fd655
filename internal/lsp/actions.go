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
		fixes := fix.For(d.text, base, f)
		if title, edits := acceptAction(d.text, base, f); edits != nil {
			fixes = append(fixes, fix.Fix{Title: title, Edits: edits})
		}
		for _, x := range fixes {
			var edits []textEdit
			for _, e := range x.Edits {
				edits = append(edits, textEdit{Range: span{Start: position{Line: e.Start}, End: position{Line: e.End}}, NewText: e.Text})
			}
			out = append(out, codeAction{Title: x.Title, Kind: "quickfix", Diagnostics: []diagnostic{it.diag},
				Edit: workspaceEdit{Changes: map[string][]textEdit{d.uri: edits}}})
		}
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
