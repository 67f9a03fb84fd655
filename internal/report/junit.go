package report

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// JUnit writes JUnit XML for CI systems that chart test results: one test
// case per (rule, file) that has findings, classname the file and name the
// rule. Errors and warnings make the case fail; info findings do not fail
// it and are listed in its system-out, so an info-only case passes (it is
// not "skipped": the rule did run).
type JUnit struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
	// SystemOut carries the run's notes (which releases were checked): a
	// suite's output, where CI systems show it beside the cases.
	SystemOut string `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	// Skipped marks a finding the change itself accepted: not a failure,
	// but shown with who accepted it and why.
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func (JUnit) Write(w io.Writer, r *Report) error {
	name := toolName(r)
	s := r.Summarize()
	suite := junitSuite{Name: name, Properties: []junitProperty{
		{"errors", fmt.Sprint(s.Errors)}, {"warnings", fmt.Sprint(s.Warnings)}, {"info", fmt.Sprint(s.Infos)},
	}}
	if s.Bump != 0 {
		suite.Properties = append(suite.Properties, junitProperty{"bump", s.Bump.String()})
	}
	for _, group := range groupByRuleAndFile(r.Findings) {
		c := junitCaseFor(group)
		suite.Cases = append(suite.Cases, c)
		if c.Failure != nil {
			suite.Failures++
		}
	}
	for _, w := range r.acceptedInPR() {
		suite.Cases = append(suite.Cases, junitCase{Classname: Clean(w.Finding.Where.File), Name: Clean(w.Finding.Rule),
			Skipped: &junitSkipped{Message: Clean(w.Justification), Body: acceptedLine(w)}})
		suite.Skipped++
	}
	suite.Tests = len(suite.Cases)
	var notes []string
	for _, n := range r.Notes {
		notes = append(notes, "note: "+Clean(n))
	}
	suite.SystemOut = strings.Join(notes, "\n")
	doc := junitSuites{Name: name, Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// groupByRuleAndFile splits findings into one slice per (file, rule), in
// file then rule order.
func groupByRuleAndFile(fs []rules.Finding) [][]rules.Finding {
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b rules.Finding) int {
		return cmp.Or(cmp.Compare(a.Where.File, b.Where.File), cmp.Compare(a.Rule, b.Rule))
	})
	var out [][]rules.Finding
	for i, f := range sorted {
		if i == 0 || f.Where.File != sorted[i-1].Where.File || f.Rule != sorted[i-1].Rule {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], f)
	}
	return out
}

func junitCaseFor(group []rules.Finding) junitCase {
	c := junitCase{Classname: Clean(group[0].Where.File), Name: Clean(group[0].Rule)}
	var failing, info []string
	worst := rules.Severity(0)
	for _, f := range group {
		line := Clean(fmt.Sprintf("%s: %s %s%s: %s (needs %s)", findingPlace(f), f.Severity, f.Rule, compatLabel(f), f.Message, bumpOf(f)))
		if f.Severity == rules.Info {
			info = append(info, line)
			continue
		}
		failing = append(failing, line)
		worst = max(worst, f.Severity)
	}
	if len(failing) > 0 {
		c.Failure = &junitFailure{
			Message: fmt.Sprintf("%s (%s)", plural(len(failing), "finding"), worst),
			Type:    worst.String(),
			Body:    strings.Join(failing, "\n"),
		}
	}
	if len(info) > 0 {
		c.SystemOut = strings.Join(info, "\n")
	}
	return c
}

// findingPlace is file:line:col, marked when the line is in the old file.
func findingPlace(f rules.Finding) string {
	s := f.Where.String()
	if f.Removed {
		s += " (old)"
	}
	return s
}
