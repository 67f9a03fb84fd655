package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// writeJUnit renders fs and decodes the result, failing on invalid XML.
func writeJUnit(t *testing.T, fs []rules.Finding) (junitSuites, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := (JUnit{}).Write(&buf, testReport(t, fs)); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("invalid XML: %v\n%s", err, buf.Bytes())
	}
	return doc, buf.String()
}

func TestJUnitCasesAndCounts(t *testing.T) {
	doc, _ := writeJUnit(t, fixedFindings())
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	// Six findings, two of them one rule in one file: five (rule, file) cases,
	// of which the info-only one passes.
	if s.Tests != 5 || s.Failures != 4 || len(s.Cases) != 5 || doc.Tests != 5 || doc.Failures != 4 {
		t.Errorf("suite counts tests=%d failures=%d cases=%d (root %d/%d), want 5/4/5", s.Tests, s.Failures, len(s.Cases), doc.Tests, doc.Failures)
	}
	byName := map[string]junitCase{}
	for _, c := range s.Cases {
		byName[c.Classname+" "+c.Name] = c
	}
	enum := byName["api/openapi.yaml enum-value-added"]
	if enum.Failure == nil || enum.Failure.Type != "warning" || strings.Count(enum.Failure.Body, "\n") != 1 {
		t.Errorf("enum-value-added case = %+v, want one warning failure listing both findings", enum)
	}
	info := byName["proto/charge.proto money-as-float"]
	if info.Failure != nil || !strings.Contains(info.SystemOut, "amount is a float") {
		t.Errorf("info case = %+v, want a pass with the finding in system-out", info)
	}
}

func TestJUnitHostileIsWellFormed(t *testing.T) {
	doc, raw := writeJUnit(t, hostileFindings())
	// The text survives as text: decoding gives back the markup characters
	// that encoding turned into entities.
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil && c.Name == "field-redefined" && !strings.Contains(c.Failure.Body, "<script>alert(1)</script>") {
			t.Errorf("message lost in decoding: %q", c.Failure.Body)
		}
	}
	if strings.Contains(raw, "<script>") {
		t.Error("raw <script> element in the XML")
	}
}
