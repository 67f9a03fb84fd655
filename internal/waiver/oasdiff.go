package waiver

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// IgnoreLine is one line of an oasdiff ignore file (--err-ignore,
// --warn-ignore): a change to accept, written as the method and path of its
// operation and its description. Read as a waiver without an owner.
type IgnoreLine struct {
	Text     string // lower case, as oasdiff compares
	Severity rules.Severity
	Loc      rules.Location
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
		out = append(out, IgnoreLine{Text: strings.ToLower(t), Severity: sev, Loc: rules.Location{File: name, Line: n, Column: 1}})
	}
	return out
}

// Matches reports whether the line accepts f, as oasdiff matches: it
// names one of f's operations (method and path) and says what changed,
// by f's message or by the name of its rule, contractlint's or an
// oasdiff check ID or buf rule that resolve maps to it.
func (l IgnoreLine) Matches(f rules.Finding, resolve func(string) []string) bool {
	if f.Severity != l.Severity {
		return false
	}
	op := false
	for _, o := range f.Operations {
		if strings.Contains(l.Text, strings.ToLower(o)) {
			op = true
			break
		}
	}
	if !op {
		return false
	}
	if strings.Contains(l.Text, strings.ToLower(f.Message)) {
		return true
	}
	for _, tok := range strings.Fields(l.Text) {
		for _, id := range resolve(strings.Trim(tok, "`'\",;:()")) {
			if id == f.Rule {
				return true
			}
		}
	}
	return false
}

// ApplyIgnoreLines moves the findings a line accepts into waived.
func ApplyIgnoreLines(lines []IgnoreLine, fs []rules.Finding, resolve func(string) []string) ([]rules.Finding, []Waived) {
	if len(lines) == 0 {
		return fs, nil
	}
	var kept []rules.Finding
	var waived []Waived
	for _, f := range fs {
		hit := -1
		for i, l := range lines {
			if l.Matches(f, resolve) {
				hit = i
				break
			}
		}
		if hit < 0 {
			kept = append(kept, f)
			continue
		}
		l := lines[hit]
		waived = append(waived, Waived{Finding: f, Waiver: Waiver{Rule: f.Rule, Element: f.Path, Owner: "oasdiff ignore file",
			Reason: fmt.Sprintf("%s line %d", l.Loc.File, l.Loc.Line), Loc: l.Loc}})
	}
	return kept, waived
}
