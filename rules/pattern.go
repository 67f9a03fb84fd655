package rules

import (
	"regexp/syntax"
	"slices"
)

// keepsAlternatives reports whether the pattern now keeps every top-level
// alternative the pattern was had: a value that matched one of them still
// matches, so the change refuses nothing ("^x$" -> "^$|^x$", or a repeated
// alternative dropped). A pattern that was none is kept by none. With re2
// (proto: protovalidate and protoc-gen-validate match with RE2) alternatives
// are compared as RE2 reads them, so one spelled otherwise ("[[:word:]]" as
// "\w") is the same alternative; OpenAPI's ECMA-262 reads such spellings
// otherwise, and its alternatives are compared as written.
func keepsAlternatives(was, now string, re2 bool) bool {
	if was == "" {
		return false
	}
	form := func(a string) string { return a }
	if re2 {
		form = re2Form
	}
	var kept []string
	for _, a := range alternatives(now) {
		kept = append(kept, form(a))
	}
	for _, a := range alternatives(was) {
		if !slices.Contains(kept, form(a)) {
			return false
		}
	}
	return true
}

// re2Form is the canonical form of an RE2 expression: two spellings of one
// expression (a named class and its ranges, "[\w]" and "\w") give the same
// form. An expression RE2 cannot parse is its own form.
func re2Form(re string) string {
	r, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return re
	}
	return r.Simplify().String()
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
