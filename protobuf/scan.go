package protobuf

import "bytes"

// Scan reads the import names and the package a .proto file's text
// declares, without the compiler: what the unchanged-file plan and the
// cache key need to follow a file's imports. ok is false when an import
// statement is not one plain string literal ("a.proto" or 'a.proto', no
// escapes, no concatenation): then only the compiler knows what the file
// imports, and callers must not assume they saw every import. A match
// inside a string literal or an option value only adds a name to check,
// which can only make a file count as changed, never hide a change.
func Scan(text []byte) (imports []string, pkg string, ok bool) {
	code := stripComments(text)
	imports, ok = protoImports(code)
	return imports, protoPackage(code), ok
}

func protoImports(code []byte) (out []string, ok bool) {
	for rest := code; ; {
		at, found := nextWord(rest, "import")
		if !found {
			return out, true
		}
		stmt := atStatement(rest[:at])
		rest = rest[at+len("import"):]
		w := skipSpace(rest)
		for _, mod := range []string{"public", "weak"} {
			if bytes.HasPrefix(w, []byte(mod)) && len(w) > len(mod) && !isIdent(w[len(mod)]) {
				w = skipSpace(w[len(mod):])
			}
		}
		if name, ok := plainString(w); ok {
			out = append(out, name)
		} else if stmt {
			return nil, false
		}
	}
}

// atStatement reports whether what precedes a word ends a statement (or
// is nothing): the word then starts one.
func atStatement(before []byte) bool {
	before = bytes.TrimRight(before, " \t\r\n")
	return len(before) == 0 || before[len(before)-1] == ';' || before[len(before)-1] == '}'
}

// plainString reads a string literal without escapes followed by the
// statement's semicolon.
func plainString(w []byte) (string, bool) {
	if len(w) == 0 || w[0] != '"' && w[0] != '\'' {
		return "", false
	}
	end := bytes.IndexAny(w[1:], "\"'\\\n")
	if end < 0 || w[1+end] != w[0] {
		return "", false
	}
	if !bytes.HasPrefix(skipSpace(w[2+end:]), []byte(";")) {
		return "", false
	}
	return string(w[1 : 1+end]), true
}

// protoPackage is the name in code's package statement ("" without one):
// the word package at the start of a statement.
func protoPackage(code []byte) string {
	for rest := code; ; {
		at, ok := nextWord(rest, "package")
		if !ok {
			return ""
		}
		before := bytes.TrimRight(rest[:at], " \t\r\n")
		rest = rest[at+len("package"):]
		if len(before) > 0 && before[len(before)-1] != ';' && before[len(before)-1] != '}' {
			continue
		}
		w := skipSpace(rest)
		end := bytes.IndexFunc(w, func(r rune) bool { return r > 127 || !isIdent(byte(r)) && r != '.' })
		if end > 0 && bytes.HasPrefix(skipSpace(w[end:]), []byte(";")) {
			return string(w[:end])
		}
	}
}

// nextWord finds word in b as a whole word and returns where it starts.
func nextWord(b []byte, word string) (int, bool) {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(word))
		if i < 0 {
			return 0, false
		}
		i += off
		end := i + len(word)
		if (i == 0 || !isIdent(b[i-1])) && (end == len(b) || !isIdent(b[end])) {
			return i, true
		}
		off = end
	}
}

func skipSpace(b []byte) []byte { return bytes.TrimLeft(b, " \t\r\n") }

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// stripComments blanks out // and /* */ comments, keeping string literals
// (a "//" inside one is not a comment) and every other byte.
func stripComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\"'/")
		if i < 0 {
			return append(out, b...)
		}
		out, b = append(out, b[:i]...), b[i:]
		switch {
		case b[0] != '/':
			n := stringLen(b)
			out, b = append(out, b[:n]...), b[n:]
		case len(b) > 1 && b[1] == '/':
			nl := bytes.IndexByte(b, '\n')
			if nl < 0 {
				return out
			}
			b = b[nl:]
		case len(b) > 1 && b[1] == '*':
			end := bytes.Index(b[2:], []byte("*/"))
			if end < 0 {
				return out
			}
			out, b = append(out, ' '), b[end+4:]
		default:
			out, b = append(out, '/'), b[1:]
		}
	}
	return out
}

// stringLen is the length of the string literal b starts with, closing
// quote included; an unclosed one ends at the line's end.
func stringLen(b []byte) int {
	for j := 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case b[0], '\n':
			return min(j+1, len(b))
		}
	}
	return len(b)
}
