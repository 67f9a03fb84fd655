package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// Every format carries the run's notes, escaped for where they go.
func TestNotes(t *testing.T) {
	r := &Report{Rules: rules.Default(), Notes: []string{"checked against 2 releases: v1, v2\x1b[31m"},
		Findings: []rules.Finding{{Rule: "path-removed", Severity: rules.Error, Message: "gone", Where: rules.Location{File: "a.yaml", Line: 3}}}}
	want := map[string]string{
		"text":     "note: checked against 2 releases: v1, v2\\u001b[31m\n",
		"json":     `"checked against 2 releases: v1, v2\\u001b[31m"`,
		"sarif":    `"text": "checked against 2 releases: v1, v2\\u001b[31m"`,
		"github":   "::notice title=contractlint::checked against 2 releases: v1, v2\\u001b[31m\n",
		"markdown": `_checked against 2 releases: v1, v2\\u001b\[31m_`,
		"junit":    "<system-out>note: checked against 2 releases: v1, v2\\u001b[31m</system-out>\n  </testsuite>",
	}
	for format, w := range want {
		rep, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := rep.Write(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), w) {
			t.Errorf("%s: no %q in\n%s", format, w, b.String())
		}
		if strings.Contains(b.String(), "\x1b") {
			t.Errorf("%s: an escape sequence reached the report", format)
		}
	}
}
