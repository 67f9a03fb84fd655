package fix

import "strings"

// LineAt is the text of line (0-based), without its newline; "" past the end.
func LineAt(text string, line int) string {
	for i := 0; i < line; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if end := strings.IndexByte(text, '\n'); end >= 0 {
		return text[:end]
	}
	return text
}

// KeyOf is the key a block mapping line holds, unquoted ("" for none).
func KeyOf(body string) string {
	body = strings.TrimPrefix(body, "- ")
	if len(body) > 0 && (body[0] == '"' || body[0] == '\'') {
		q := body[0]
		end := strings.IndexByte(body[1:], q)
		if end < 0 || !strings.HasPrefix(body[end+2:], ":") {
			return ""
		}
		return body[1 : end+1]
	}
	i := strings.Index(body, ":")
	if i < 0 || i+1 < len(body) && body[i+1] != ' ' && body[i+1] != '\t' {
		return ""
	}
	return body[:i]
}

// Blank is true for a YAML line that holds nothing: empty or a comment.
func Blank(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

// Indent counts the spaces a line starts with.
func Indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// Block is the key line at line and the lines below it that belong to it;
// end is the line after the block.
func Block(text string, line int) ([]string, int) {
	lines := strings.Split(text, "\n")
	if line < 0 || line >= len(lines) || Blank(lines[line]) {
		return nil, 0
	}
	ind := Indent(lines[line])
	end := line + 1
	for end < len(lines) && (Blank(lines[end]) && end+1 < len(lines) || !Blank(lines[end]) && Indent(lines[end]) > ind) {
		end++
	}
	for end > line+1 && Blank(lines[end-1]) {
		end--
	}
	return lines[line:end], end
}

func reindent(l string, from, to int) string {
	if Blank(l) || Indent(l) < from {
		return l
	}
	return strings.Repeat(" ", to) + l[from:]
}
