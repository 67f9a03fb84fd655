package rules

import "slices"

// keepsAlternatives reports whether the pattern now keeps every top-level
// alternative the pattern was had: a value that matched one of them still
// matches, so the change refuses nothing ("^x$" -> "^$|^x$", or a repeated
// alternative dropped). A pattern that was none is kept by none.
func keepsAlternatives(was, now string) bool {
	if was == "" {
		return false
	}
	kept := alternatives(now)
	for _, a := range alternatives(was) {
		if !slices.Contains(kept, a) {
			return false
		}
	}
	return true
}

// alternatives splits a regular expression at its top-level "|": not one
// escaped, inside a group or inside a character class.
func alternatives(re string) []string {
	var out []string
	depth, class, start := 0, false, 0
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
			// A ']' first in a class is a literal, not its end.
			if i+1 < len(re) && re[i+1] == '^' {
				i++
			}
			if i+1 < len(re) && re[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, re[start:i])
			start = i + 1
		}
	}
	return append(out, re[start:])
}
