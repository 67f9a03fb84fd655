package waiver

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// IgnoreLine is one line of an oasdiff ignore file (--err-ignore,
// --warn-ignore): a change to accept, written as the method and path of its
// operation and its description. Read as a waiver without an owner.
type IgnoreLine struct {
	Text     string // lower case, as oasdiff compares
	Path     string // the first word that starts with "/": the operation's path
	Severity rules.Severity
	Loc      rules.Location
}

// Names tells an ignore line what a finding's rule is called elsewhere.
type Names struct {
	// Resolve maps a name (a rule ID, an oasdiff check ID, a buf rule) to
	// the IDs of the rules it stands for.
	Resolve func(string) []string
	// Checks returns the oasdiff check IDs a rule covers (patterns where
	// `*` stands for one or more words), as docs/oasdiff-mapping.md lists.
	Checks func(rule string) []string
}

// ParseIgnoreFile reads an oasdiff ignore file whose lines accept findings
// of severity sev; blank lines and # comments are skipped.
func ParseIgnoreFile(name string, data []byte, sev rules.Severity) []IgnoreLine {
	var out []IgnoreLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		l := IgnoreLine{Text: strings.ToLower(t), Severity: sev, Loc: rules.Location{File: name, Line: n, Column: 1}}
		if i := slices.IndexFunc(strings.Fields(l.Text), func(w string) bool { return strings.HasPrefix(w, "/") }); i >= 0 {
			l.Path = strings.Fields(l.Text)[i]
		}
		out = append(out, l)
	}
	return out
}

// Matches reports whether the line accepts f, as oasdiff matches: its
// path word is the path of one of f's operations, it names that operation
// (method and path), and it says what changed, by f's message, by the name
// of its rule (contractlint's, or an oasdiff check ID or buf rule that maps
// to it), or by the text oasdiff prints for a check that maps to f's rule.
func (l IgnoreLine) Matches(f rules.Finding, n Names) bool {
	if f.Severity != l.Severity || !l.namesOperation(f) {
		return false
	}
	if strings.Contains(l.Text, strings.ToLower(f.Message)) {
		return true
	}
	for _, tok := range strings.Fields(l.Text) {
		if slices.Contains(n.Resolve(strings.Trim(tok, "`'\",;:()")), f.Rule) {
			return true
		}
	}
	return n.Checks != nil && l.saysOasdiffText(f, n.Checks(f.Rule))
}

// namesOperation: the line's path word is exactly one of f's operation
// paths (so /v1/orders/{id} is not /v1/orders) and the line holds "method
// path"; a whole path removed is an operation without a method, named by
// its path alone.
func (l IgnoreLine) namesOperation(f rules.Finding) bool {
	for _, o := range f.Operations {
		o = strings.ToLower(o)
		_, p, ok := strings.Cut(o, " ")
		if !ok {
			p = o
		}
		if p == l.Path && strings.Contains(l.Text, o) {
			return true
		}
	}
	return false
}

var (
	quoted = regexp.MustCompile("`([^`]*)`")
	word   = regexp.MustCompile(`[a-z0-9]+`)
)

// saysOasdiffText reports whether the line carries the text oasdiff prints
// for one of checks about f: the words of the check's ID ("added the new
// required `query` request parameter `region`" has every word of
// new-required-request-parameter) and, in backquotes, the names and values
// of f's own change, which f's message or element path holds.
func (l IgnoreLine) saysOasdiffText(f rules.Finding, checks []string) bool {
	words := word.FindAllString(quoted.ReplaceAllString(l.Text, " "), -1)
	said := slices.ContainsFunc(checks, func(c string) bool {
		for _, w := range strings.Split(c, "-") {
			if w != "*" && !slices.Contains(words, w) {
				return false
			}
		}
		return true
	})
	if !said {
		return false
	}
	about := strings.ToLower(f.Message + " " + f.Path)
	for _, m := range quoted.FindAllStringSubmatch(l.Text, -1) {
		for _, part := range strings.FieldsFunc(m[1], func(r rune) bool { return r == '/' || r == '.' }) {
			if !strings.Contains(about, part) {
				return false
			}
		}
	}
	return true
}

// ApplyIgnoreLines moves the findings a line accepts into waived, and
// reports each line that accepts nothing as unused-ignore: a line copied
// from oasdiff that no longer matches is said, not silently kept.
func ApplyIgnoreLines(lines []IgnoreLine, fs []rules.Finding, n Names) ([]rules.Finding, []Waived) {
	if len(lines) == 0 {
		return fs, nil
	}
	var kept []rules.Finding
	var waived []Waived
	used := make([]bool, len(lines))
	for _, f := range fs {
		hit := -1
		for i, l := range lines {
			if l.Matches(f, n) {
				hit = i
				break
			}
		}
		if hit < 0 {
			kept = append(kept, f)
			continue
		}
		used[hit] = true
		l := lines[hit]
		waived = append(waived, Waived{Finding: f, Waiver: Waiver{Rule: f.Rule, Element: f.Path, Owner: "oasdiff ignore file",
			Reason: fmt.Sprintf("%s line %d", l.Loc.File, l.Loc.Line), Loc: l.Loc}})
	}
	for i, l := range lines {
		if !used[i] {
			kept = append(kept, rules.Finding{Rule: rules.UnusedIgnoreID, Severity: rules.Warning, Where: l.Loc,
				Message: "this oasdiff ignore line matches no finding: no " + l.Severity.String() + " names its method and path and says its change; remove it"})
		}
	}
	rules.SortFindings(kept)
	return kept, waived
}
