package report

import (
	"strings"
	"unicode"
)

// Clean makes untrusted contract text safe for a terminal (and legal in XML
// 1.0, whose forbidden characters are all among these): control characters
// (ESC among them, so no escape sequence survives) become visible \u escapes
// and newlines become spaces, so one finding stays one line.
func Clean(s string) string {
	if !strings.ContainsFunc(s, needsClean) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r == unicode.ReplacementChar:
			b.WriteString(`\ufffd`)
		case needsClean(r):
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanAll is Clean over a list; nil stays nil so `omitempty` still omits.
func cleanAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Clean(s)
	}
	return out
}

// needsClean is true for what must not reach a reader raw: control
// characters (C0, DEL, C1), the replacement character (what invalid UTF-8
// decodes to), zero-width and bidi overrides (text that displays other than
// it reads), and noncharacters (U+FFFE, U+FFFF: illegal in XML).
func needsClean(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Noncharacter_Code_Point, r) || r == unicode.ReplacementChar || (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// workflowData escapes text for the message part of a GitHub workflow
// command: after Clean no control character is left, and with `%`, CR and LF
// encoded the runner can never see a second command inside the first.
func workflowData(s string) string {
	return workflowDataEscaper.Replace(Clean(s))
}

// workflowProperty escapes a `key=value` of a workflow command, where `:`
// would end the properties and `,` would start another one.
func workflowProperty(s string) string {
	return workflowPropertyEscaper.Replace(Clean(s))
}

var (
	workflowDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	workflowPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// markdownText makes untrusted text inert in GitHub-flavoured Markdown, inline
// and inside a table cell: HTML's specials become entities, every character
// that starts emphasis, code, a link or a cell is backslash-escaped, and an
// `@` is put in a code span so a description cannot notify anyone. GitHub
// also turns a bare https://… or www.… into a link: the `://` and the dot
// after www go in a code span too, where no link is recognised.
func markdownText(s string) string {
	return markdownEscaper.Replace(Clean(s))
}

var markdownEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"|", `\|`, "~", `\~`, "!", `\!`, "#", `\#`,
	"@", "`@`", "://", "`://`", "www.", "www`.`", "WWW.", "WWW`.`",
)
