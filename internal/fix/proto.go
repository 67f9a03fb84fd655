package fix

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

var protoFieldRE = regexp.MustCompile(`^(\s*)(?:(?:optional|repeated|required)\s+)?([\w.<>, ]+?)\s+(\w+)\s*=\s*(\d+)`)

// removedField is the base's declaration of a proto field f says was
// deleted (its submatches), and the line of the head's message that held
// it; ok is false unless both have the shape the fixes assume.
func removedField(text, base string, f *rules.Finding) (m []string, line int, ok bool) {
	switch f.Rule {
	case "proto-field-removed", "proto-field-removed-unreserved-number", "proto-field-removed-unreserved-name",
		"field-removed-without-deprecation":
	default:
		return nil, 0, false
	}
	if f.Old == nil || f.Removed || f.Format != rules.Proto {
		return nil, 0, false
	}
	m = protoFieldRE.FindStringSubmatch(LineAt(base, f.Old.Line-1))
	line = f.Where.Line - 1
	if m == nil || !strings.HasSuffix(strings.TrimSpace(stripComment(LineAt(text, line))), "{") {
		return nil, 0, false
	}
	return m, line, true
}

// reserve: a deleted proto field's number and name, reserved in the
// message that held it, so neither can be reused.
func reserve(text, base string, f *rules.Finding) (string, []Edit) {
	m, line, ok := removedField(text, base, f)
	if !ok {
		return "", nil
	}
	indent, name, number := m[1], m[3], m[4]
	add := reservations(text, indent, name, number)
	if add == "" {
		return "", nil
	}
	return fmt.Sprintf("Reserve %s's number %s and name", name, number), []Edit{Insert(line+1, add)}
}

// keepDeprecated: a deleted proto field comes back, marked deprecated,
// so clients are warned before a later release removes it.
func keepDeprecated(text, base string, f *rules.Finding) (string, []Edit) {
	m, line, ok := removedField(text, base, f)
	if !ok {
		return "", nil
	}
	decl := strings.TrimSpace(stripComment(LineAt(base, f.Old.Line-1)))
	if !strings.HasSuffix(decl, m[4]+";") || strings.Contains(text, " "+m[3]+" =") {
		return "", nil // options, or the name back in use: not edited blind
	}
	kept := m[1] + strings.TrimSuffix(decl, ";") + " [deprecated = true];\n"
	return fmt.Sprintf("Keep %s, deprecated, until a later release removes it", m[3]), []Edit{Insert(line+1, kept)}
}

// reservations are the reserved lines text lacks for a field's number and
// name, at indent.
func reservations(text, indent, name, number string) string {
	var b strings.Builder
	if !regexp.MustCompile(`\breserved\b[^;]*\b` + number + `\b`).MatchString(text) {
		b.WriteString(indent + "reserved " + number + ";\n")
	}
	if !strings.Contains(text, `"`+name+`"`) {
		b.WriteString(indent + `reserved "` + name + `";` + "\n")
	}
	return b.String()
}

// reuse: a number given to another field goes back to being the deleted
// field's, reserved with its name, and the new field takes a fresh number;
// a field moved to another number gets its old number back.
func reuse(text, base string, f *rules.Finding) (string, []Edit) {
	if f.Rule != "field-number-reused" || f.Removed || base == "" {
		return "", nil
	}
	line := f.Where.Line - 1
	nl := LineAt(text, line)
	nm, om := protoFieldRE.FindStringSubmatchIndex(nl), protoFieldRE.FindStringSubmatch(LineAt(base, OldAt(f).Line-1))
	if nm == nil || om == nil {
		return "", nil
	}
	name, number := nl[nm[6]:nm[7]], nl[nm[8]:nm[9]]
	renumbered := func(n string) string { return nl[:nm[8]] + n + nl[nm[9]:] + "\n" }
	switch {
	case om[3] == name && om[4] != number:
		return fmt.Sprintf("Keep %s's number %s", name, om[4]), []Edit{{Start: line, End: line + 1, Text: renumbered(om[4])}}
	case om[3] != name && om[4] == number:
		next := strconv.Itoa(nextFree(text, base))
		return fmt.Sprintf("Reserve %s's number %s and name, give %s the number %s", om[3], number, name, next),
			[]Edit{{Start: line, End: line + 1, Text: reservations(text, nl[nm[2]:nm[3]], om[3], number) + renumbered(next)}}
	}
	return "", nil
}

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
}

var numberRE = regexp.MustCompile(`(?:=|\breserved\b[^;]*?)\s*(\d+)\s*(?:to\s+(\d+))?`)

// nextFree is one more than any number the texts assign or reserve: on
// neither side taken, so it is no reuse of a deleted field's either.
func nextFree(texts ...string) int {
	next := 0
	for _, t := range texts {
		for _, m := range numberRE.FindAllStringSubmatch(t, -1) {
			for _, g := range m[1:] {
				if n, err := strconv.Atoi(g); err == nil && n > next {
					next = n
				}
			}
		}
	}
	return next + 1
}

// expandProto restores the old field line and adds the new definition
// under a new name with the next free number.
func expandProto(text, base string, f *rules.Finding, line int, suffix string) (string, []Edit) {
	nl, ol := LineAt(text, line), LineAt(base, OldAt(f).Line-1)
	nm, om := protoFieldRE.FindStringSubmatchIndex(nl), protoFieldRE.FindStringSubmatch(ol)
	if nm == nil || om == nil {
		return "", nil
	}
	name := nl[nm[6]:nm[7]]
	if om[3] != name {
		return "", nil
	}
	next := nextFree(text, base)
	renamed := name + "_" + suffix
	added := nl[:nm[6]] + renamed + nl[nm[7]:nm[8]] + strconv.Itoa(next) + nl[nm[9]:]
	return fmt.Sprintf("Expand: keep %s as it was, add %s = %d beside it", name, renamed, next),
		[]Edit{{Start: line, End: line + 1, Text: om[1] + strings.TrimLeft(ol, " \t") + "\n" + added + "\n"}}
}
