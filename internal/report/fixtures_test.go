package report

import (
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// testRegistry is a small registry with documented rules, so the reports'
// rule sections do not change whenever a real rule's wording does.
func testRegistry(t *testing.T) *rules.Registry {
	t.Helper()
	reg, err := rules.NewRegistry([]*rules.Rule{
		{ID: "field-redefined", Pack: rules.Evolution, Severity: rules.Error,
			Doc: rules.Doc{Title: "A field keeps its name but changes its meaning", Text: "A client that already reads the field keeps reading it the old way. Add a new field instead and deprecate the old one.", Bad: "price: {type: number}  # was dollars, now cents", Good: "price_cents: {type: integer}\nprice: {type: number, deprecated: true}"}},
		{ID: "operation-removed", Pack: rules.Breaking, Severity: rules.Error,
			Doc: rules.Doc{Title: "An operation was removed", Text: "Every client that calls it gets 404. Deprecate it first and remove it once nobody calls it.", Bad: "paths: {}", Good: "paths:\n  /pets:\n    get: {deprecated: true}"}},
		{ID: "enum-value-added", Pack: rules.Evolution, Severity: rules.Warning,
			Doc: rules.Doc{Title: "A response enum gained a value", Text: "Strict readers reject a value they do not know. Document that readers must accept unknown values.", Bad: "enum: [a, b, c]  # c is new", Good: "enum: [a, b]\nx-extensible-enum: true"}},
		{ID: "money-as-float", Pack: rules.Evolvability, Severity: rules.Info,
			Doc: rules.Doc{Title: "Money is a floating-point number", Text: "Binary floats cannot hold most decimal amounts exactly. Use integer minor units or a decimal string.", Bad: "amount: {type: number}", Good: "amount_cents: {type: integer}"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// fixedFindings covers every shape a reporter handles: both locations,
// a removal (old side), many operations, a file-level finding, two findings
// of one rule in one file, and a rule the registry does not know.
func fixedFindings() []rules.Finding {
	findings := []rules.Finding{
		{Rule: "field-redefined", Bump: rules.Major, Severity: rules.Error, Message: "price changed from number (dollars) to integer (cents); readers now misread every amount",
			Where: rules.Location{File: "api/openapi.yaml", Line: 42, Column: 9}, Old: &rules.Location{File: "api/openapi.yaml", Line: 40, Column: 9},
			Operations: []string{"GET /charges", "POST /charges", "GET /charges/{id}", "GET /refunds"},
			Path:       "#/components/schemas/Charge/properties/price"},
		{Rule: "operation-removed", Bump: rules.Major, Severity: rules.Error, Message: "DELETE /charges/{id} was removed",
			Where: rules.Location{File: "api/openapi.yaml", Line: 77, Column: 5}, Removed: true, Path: "#/paths/~1charges~1{id}/delete"},
		{Rule: "enum-value-added", Bump: rules.Major, Severity: rules.Warning, Message: "status gained the value \"disputed\"",
			Where: rules.Location{File: "api/openapi.yaml", Line: 90, Column: 11}, Path: "#/components/schemas/Charge/properties/status"},
		{Rule: "enum-value-added", Bump: rules.Major, Severity: rules.Warning, Message: "reason gained the value \"fraud\"",
			Where: rules.Location{File: "api/openapi.yaml", Line: 95, Column: 11}, Path: "#/components/schemas/Refund/properties/reason"},
		{Rule: "money-as-float", Bump: rules.Patch, Severity: rules.Info, Message: "amount is a float",
			Where: rules.Location{File: "proto/charge.proto", Line: 12, Column: 3}, Path: "charge.v1.Charge.amount"},
		{Rule: "unused-ignore", Severity: rules.Warning, Message: "the ignore of field-redefined matched no finding",
			Where: rules.Location{File: "proto/charge.proto"}, Path: "charge.v1"},
	}
	rules.SortFindings(findings)
	return findings
}

// hostile is contract text written to attack each output: terminal escape
// sequences (colour, window title, OSC 8 link), CR/LF followed by workflow
// commands, HTML, Markdown table and link syntax, a mention, an XML
// non-character and invalid UTF-8.
const hostile = "price\x1b[31mRED\x1b[0m\x1b]0;owned\x07\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\" +
	"\r\n::error file=x::pwned\n::stop-commands::tok\n::add-mask::x" +
	" <script>alert(1)</script><img src=x onerror=alert(2)> | cell | `code` *bold* _it_ [link](http://evil.example) ![i](x)" +
	" @everyone &amp; %0A%25 a:b,c \u202eevil\u2066 \uffff\x00\xff\xfe end"

func hostileFindings() []rules.Finding {
	return []rules.Finding{
		{Rule: "field-redefined", Bump: rules.Major, Severity: rules.Error, Message: hostile,
			Where: rules.Location{File: "api/" + hostile + ".yaml", Line: 3, Column: 1}, Old: &rules.Location{File: "api/old.yaml", Line: 2},
			Operations: []string{hostile, "GET /a", "POST /b\n::error::x"}, Path: hostile},
		{Rule: "enum-value-added", Bump: rules.Major, Severity: rules.Warning, Message: hostile,
			Where: rules.Location{File: "api/openapi.yaml", Line: 7, Column: 2}, Removed: true},
		{Rule: "money-as-float", Bump: rules.Patch, Severity: rules.Info, Message: hostile,
			Where: rules.Location{File: "api/openapi.yaml"}},
		{Rule: "rule" + hostile, Severity: rules.Warning, Message: "a rule name that is itself hostile",
			Where: rules.Location{File: "api/openapi.yaml", Line: 9, Column: 1}},
	}
}

// withAccepted adds to r a finding the change itself accepted, whose
// justification carries why: every format must show it, inertly.
func withAccepted(r *Report, why string) *Report {
	f := rules.Finding{Rule: "response-property-removed", Bump: rules.Major, Severity: rules.Error, Message: "response property \"carrier\" removed",
		Where: rules.Location{File: "api/openapi.yaml", Line: 15, Column: 19}, Removed: true, Anchor: &rules.Location{File: "api/openapi.yaml", Line: 13, Column: 17},
		Path: "#/components/schemas/Order/properties/carrier"}
	r.Waived = append(r.Waived, Waived{Finding: f, InPR: true, Justification: "accepted in this PR by the inline ignore at api/openapi.yaml:12:17: " + why})
	return r
}

// testReport is a comparison's report: with findings, it saw changes,
// each needing at least a patch.
func testReport(t *testing.T, fs []rules.Finding) *Report {
	r := &Report{Findings: fs, Rules: testRegistry(t), Tool: "contractlint", Version: "1.2.3"}
	if len(fs) > 0 {
		r.Bump = rules.Patch
	}
	return r
}
