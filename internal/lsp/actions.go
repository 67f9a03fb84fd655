package lsp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// Code actions where the fix is mechanical and safe. Each is built from the
// finding the diagnostic shows and the text on both sides, and is offered
// only when the buffer has the shape the edit assumes (block YAML, a proto
// declaration on its own line); otherwise nothing is offered rather than an
// edit that breaks the file.

// reasonPlaceholder is what an accept action writes for the reason: the
// ignore needs one, and only the author knows it.
const reasonPlaceholder = "REASON: say why no client breaks"

// keyDescription is what the Idempotency-Key action documents: what the
// idempotency pack asks a contract to publish about the key.
const keyDescription = "A unique key per intent (a UUID): a retry with the same key and body gets the first answer; " +
	"the same key with another body is refused with 422. Keys are kept for 24 hours."

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
		if b, err := s.sess.BaseFile(oldAt(f).File); err == nil {
			base = string(b)
		}
		for _, a := range []func(string, string, *rules.Finding) (string, []textEdit){
			reserveAction, expandAction, keyAction, acceptAction,
		} {
			title, edits := a(d.text, base, f)
			if edits == nil {
				continue
			}
			out = append(out, codeAction{Title: title, Kind: "quickfix", Diagnostics: []diagnostic{it.diag},
				Edit: workspaceEdit{Changes: map[string][]textEdit{d.uri: edits}}})
		}
	}
	return out
}

// inContext reports whether the client asked about d; a client that sends
// no diagnostics asks about every one in its range.
// oldAt is where the finding's element is in the base.
func oldAt(f *rules.Finding) rules.Location {
	if f.Old != nil {
		return *f.Old
	}
	return f.Where
}

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

// lineAt is the text of line (0-based), without its newline.
func lineAt(text string, line int) string {
	start := lineStart(text, line)
	if end := strings.IndexByte(text[start:], '\n'); end >= 0 {
		return text[start : start+end]
	}
	return text[start:]
}

func insertAt(line int, text string) textEdit {
	p := position{Line: line}
	return textEdit{Range: span{Start: p, End: p}, NewText: text}
}

var protoFieldRE = regexp.MustCompile(`^(\s*)(?:(?:optional|repeated|required)\s+)?([\w.<>, ]+?)\s+(\w+)\s*=\s*(\d+)`)

// reserveAction: a deleted proto field's number and name, reserved in the
// message that held it, so neither can be reused.
func reserveAction(text, base string, f *rules.Finding) (string, []textEdit) {
	switch f.Rule {
	case "proto-field-removed", "proto-field-removed-unreserved-number", "proto-field-removed-unreserved-name":
	default:
		return "", nil
	}
	if f.Old == nil || f.Removed {
		return "", nil
	}
	m := protoFieldRE.FindStringSubmatch(lineAt(base, f.Old.Line-1))
	if m == nil {
		return "", nil
	}
	line := f.Where.Line - 1
	if !strings.HasSuffix(strings.TrimSpace(stripComment(lineAt(text, line))), "{") {
		return "", nil
	}
	indent, name, number := m[1], m[3], m[4]
	var add []string
	if !regexp.MustCompile(`\breserved\b[^;]*\b` + number + `\b`).MatchString(text) {
		add = append(add, "reserved "+number+";")
	}
	if !strings.Contains(text, `"`+name+`"`) {
		add = append(add, `reserved "`+name+`";`)
	}
	if len(add) == 0 {
		return "", nil
	}
	var b strings.Builder
	for _, a := range add {
		b.WriteString(indent + a + "\n")
	}
	return fmt.Sprintf("Reserve %s's number %s and name", name, number), []textEdit{insertAt(line+1, b.String())}
}

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
}

var unitRE = regexp.MustCompile(`unit \S+ -> (\w+)`)

// expandAction is the expand step of expand-then-contract for a redefined
// field: the old definition restored under the old name, the new one beside
// it under a new name (price_cents for a change of unit to cents).
func expandAction(text, base string, f *rules.Finding) (string, []textEdit) {
	if f.Rule != "field-redefined" || f.Removed || base == "" {
		return "", nil
	}
	suffix := "v2"
	if m := unitRE.FindStringSubmatch(f.Message); m != nil {
		suffix = m[1]
	}
	line := f.Where.Line - 1
	if f.Format == rules.Proto {
		return expandProto(text, base, f, line, suffix)
	}
	newBlock, end := yamlBlock(text, line)
	oldBlock, _ := yamlBlock(base, oldAt(f).Line-1)
	if newBlock == nil || oldBlock == nil {
		return "", nil
	}
	key := keyOf(strings.TrimLeft(newBlock[0], " "))
	if key == "" || keyOf(strings.TrimLeft(oldBlock[0], " ")) != key {
		return "", nil
	}
	renamed := key + "_" + suffix
	ni, oi := indentOf(newBlock[0]), indentOf(oldBlock[0])
	var b strings.Builder
	for _, l := range oldBlock {
		b.WriteString(reindent(l, oi, ni) + "\n")
	}
	b.WriteString(strings.Repeat(" ", ni) + renamed + strings.TrimPrefix(strings.TrimLeft(newBlock[0], " "), key) + "\n")
	for _, l := range newBlock[1:] {
		b.WriteString(l + "\n")
	}
	return fmt.Sprintf("Expand: keep %s as it was, add %s beside it", key, renamed),
		[]textEdit{{Range: span{Start: position{Line: line}, End: position{Line: end}}, NewText: b.String()}}
}

// yamlBlock is the key line at line and the lines below it that belong to
// it; end is the line after the block.
func yamlBlock(text string, line int) ([]string, int) {
	lines := strings.Split(text, "\n")
	if line < 0 || line >= len(lines) || blank(lines[line]) {
		return nil, 0
	}
	ind := indentOf(lines[line])
	end := line + 1
	for end < len(lines) && (blank(lines[end]) && end+1 < len(lines) || !blank(lines[end]) && indentOf(lines[end]) > ind) {
		end++
	}
	for end > line+1 && blank(lines[end-1]) {
		end--
	}
	return lines[line:end], end
}

func reindent(l string, from, to int) string {
	if blank(l) || indentOf(l) < from {
		return l
	}
	return strings.Repeat(" ", to) + l[from:]
}

// expandProto restores the old field line and adds the new definition
// under a new name with the next free number of the message.
func expandProto(text, base string, f *rules.Finding, line int, suffix string) (string, []textEdit) {
	nl, ol := lineAt(text, line), lineAt(base, oldAt(f).Line-1)
	nm, om := protoFieldRE.FindStringSubmatchIndex(nl), protoFieldRE.FindStringSubmatch(ol)
	if nm == nil || om == nil {
		return "", nil
	}
	name := nl[nm[6]:nm[7]]
	if om[3] != name {
		return "", nil
	}
	next := 0
	for _, m := range regexp.MustCompile(`(?:=|\breserved\b[^;]*?)\s*(\d+)\s*(?:to\s+(\d+))?`).FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if n, err := strconv.Atoi(g); err == nil && n > next {
				next = n
			}
		}
	}
	renamed := name + "_" + suffix
	added := nl[:nm[6]] + renamed + nl[nm[7]:nm[8]] + strconv.Itoa(next+1) + nl[nm[9]:]
	return fmt.Sprintf("Expand: keep %s as it was, add %s = %d beside it", name, renamed, next+1),
		[]textEdit{{Range: span{Start: position{Line: line}, End: position{Line: line + 1}},
			NewText: om[1] + strings.TrimLeft(ol, " \t") + "\n" + added + "\n"}}
}

// keyAction adds a required Idempotency-Key header parameter to an
// OpenAPI operation that lacks one, whether or not its API has a key
// convention yet.
func keyAction(text, _ string, f *rules.Finding) (string, []textEdit) {
	keyless := f.Rule == "idempotency-key-missing" || f.Rule == rules.KeyNotAdoptedID
	if !keyless || f.Format != rules.OpenAPI || f.Removed {
		return "", nil
	}
	line := f.Where.Line - 1
	op, end := yamlBlock(text, line)
	if op == nil || !strings.HasSuffix(strings.TrimSpace(op[0]), ":") {
		return "", nil
	}
	child := indentOf(op[0]) + 2
	for _, l := range op[1:] {
		if !blank(l) {
			child = indentOf(l)
			break
		}
	}
	pad := strings.Repeat(" ", child)
	param := func(item string) string {
		return item + "- name: Idempotency-Key\n" +
			item + "  in: header\n" +
			item + "  required: true\n" +
			item + "  description: " + strconv.Quote(keyDescription) + "\n" +
			item + "  schema: {type: string, maxLength: 255}\n"
	}
	for i, l := range op[1:] {
		if indentOf(l) != child || keyOf(l[child:]) != "parameters" {
			continue
		}
		if strings.TrimSpace(l[child+len("parameters:"):]) != "" {
			return "", nil // a flow list: not edited line by line
		}
		item := pad + "  "
		if i+2 < len(op) && !blank(op[i+2]) {
			item = strings.Repeat(" ", indentOf(op[i+2]))
		}
		return "Add a required Idempotency-Key header", []textEdit{insertAt(line+i+2, param(item))}
	}
	_ = end
	return "Add a required Idempotency-Key header", []textEdit{insertAt(line+1, pad+"parameters:\n"+param(pad+"  "))}
}

// acceptAction accepts the finding where it is, with an ignore scoped to
// the element (the removed one by name, when the finding sits on its
// parent) and a reason for the author to write.
func acceptAction(text, _ string, f *rules.Finding) (string, []textEdit) {
	line := f.Where.Line - 1
	if f.Removed {
		line = enclosing(text, f).Start.Line
	}
	l := lineAt(text, line)
	ind := strings.Repeat(" ", indentOf(l))
	title := "Accept " + f.Rule + " here (an ignore with a reason to write)"
	element := removedElement(text, f)
	if f.Format == rules.Proto {
		el := ""
		if element != "" {
			el = "element=" + element + " "
		}
		return title, []textEdit{insertAt(line, ind+"// contractlint:ignore "+f.Rule+" "+el+reasonPlaceholder+"\n")}
	}
	if !strings.HasSuffix(strings.TrimSpace(stripYAMLComment(l)), ":") {
		return "", nil // a flow mapping or a scalar: no line to add under
	}
	child := ind + "  "
	if block, _ := yamlBlock(text, line); len(block) > 1 {
		for _, b := range block[1:] {
			if !blank(b) {
				child = strings.Repeat(" ", indentOf(b))
				break
			}
		}
	}
	value := strconv.Quote(reasonPlaceholder)
	if element != "" {
		value = "{element: " + element + ", reason: " + value + "}"
	}
	return title, []textEdit{insertAt(line+1, child+"x-contractlint-ignore: {"+f.Rule+": "+value+"}\n")}
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
