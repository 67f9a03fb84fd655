package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractlint/contractlint/rules"
)

type bitbucketOut struct {
	Report      map[string]any   `json:"report"`
	Annotations []map[string]any `json:"annotations"`
}

// checkCodeInsights holds the output to Bitbucket's documented Code
// Insights fields: a report with a title, a result (PASSED, FAILED or
// PENDING), a report_type among SECURITY, COVERAGE, TEST and BUG, and at
// most 6 data fields, each a title, a type among BOOLEAN, DATE, DURATION,
// LINK, NUMBER, PERCENTAGE and TEXT, and a value; and at most 1,000
// annotations, each with an external_id unique in the report, an
// annotation_type among VULNERABILITY, CODE_SMELL and BUG, a severity among
// CRITICAL, HIGH, MEDIUM and LOW, a summary of at most 450 characters, and
// a path relative to the repository and a positive line when given.
func checkCodeInsights(t *testing.T, out []byte) bitbucketOut {
	t.Helper()
	var p bitbucketOut
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("not a report and its annotations: %v\n%s", err, out)
	}
	oneOf := func(where, key string, v any, allowed ...string) {
		if s, _ := v.(string); !slices.Contains(allowed, s) {
			t.Errorf("%s: %s = %#v, want one of %v", where, key, v, allowed)
		}
	}
	if s, _ := p.Report["title"].(string); s == "" {
		t.Errorf("report has no title")
	}
	oneOf("report", "result", p.Report["result"], "PASSED", "FAILED", "PENDING")
	oneOf("report", "report_type", p.Report["report_type"], "SECURITY", "COVERAGE", "TEST", "BUG")
	data, _ := p.Report["data"].([]any)
	if len(data) > 6 {
		t.Errorf("report has %d data fields, Bitbucket shows 6", len(data))
	}
	for i, d := range data {
		d, _ := d.(map[string]any)
		where := fmt.Sprintf("data %d", i)
		if s, _ := d["title"].(string); s == "" {
			t.Errorf("%s has no title", where)
		}
		oneOf(where, "type", d["type"], "BOOLEAN", "DATE", "DURATION", "LINK", "NUMBER", "PERCENTAGE", "TEXT")
		if _, ok := d["value"]; !ok {
			t.Errorf("%s has no value", where)
		}
	}
	if p.Annotations == nil {
		t.Fatalf("want an annotations array, even an empty one")
	}
	if len(p.Annotations) > 1000 {
		t.Errorf("%d annotations, Bitbucket takes 1,000 per report", len(p.Annotations))
	}
	ids := map[string]bool{}
	for i, a := range p.Annotations {
		where := fmt.Sprintf("annotation %d", i)
		id, _ := a["external_id"].(string)
		if id == "" || ids[id] {
			t.Errorf("%s: external_id %q is empty or repeats", where, id)
		}
		ids[id] = true
		oneOf(where, "annotation_type", a["annotation_type"], "VULNERABILITY", "CODE_SMELL", "BUG")
		oneOf(where, "severity", a["severity"], "CRITICAL", "HIGH", "MEDIUM", "LOW")
		sum, _ := a["summary"].(string)
		if sum == "" || utf8.RuneCountInString(sum) > 450 {
			t.Errorf("%s: summary of %d characters, want 1 to 450", where, utf8.RuneCountInString(sum))
		}
		if path, ok := a["path"].(string); ok && (path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, "../")) {
			t.Errorf("%s: path %q is not relative to the repository", where, path)
		}
		if line, ok := a["line"]; ok {
			if n, _ := line.(float64); n < 1 {
				t.Errorf("%s: line %v", where, line)
			}
		}
	}
	return p
}

func TestBitbucketCodeInsights(t *testing.T) {
	for name, fs := range map[string][]rules.Finding{"fixed": fixedFindings(), "hostile": hostileFindings(), "empty": nil} {
		t.Run(name, func(t *testing.T) {
			p := checkCodeInsights(t, render(t, "bitbucket", Options{}, testReport(t, fs)))
			if len(p.Annotations) != len(fs) {
				t.Errorf("%d annotations for %d findings", len(p.Annotations), len(fs))
			}
			want := "PASSED"
			if name != "empty" {
				want = "FAILED"
			}
			if p.Report["result"] != want {
				t.Errorf("result = %v, want %s", p.Report["result"], want)
			}
		})
	}
}

// TestBitbucketLimits: past 1,000 findings the most severe are annotated
// and the report says how many more there are; a long message is cut to
// 450 characters in the summary and kept whole in the details.
func TestBitbucketLimits(t *testing.T) {
	var fs []rules.Finding
	for i := range 1100 {
		sev := rules.Info
		if i%10 == 0 {
			sev = rules.Error
		}
		fs = append(fs, rules.Finding{Rule: "money-as-float", Severity: sev, Message: fmt.Sprintf("amount %d is a float", i),
			Where: rules.Location{File: "api/openapi.yaml", Line: i + 1}})
	}
	long := strings.Repeat("é", 600)
	fs[0].Message = long
	p := checkCodeInsights(t, render(t, "bitbucket", Options{}, testReport(t, fs)))
	if len(p.Annotations) != 1000 {
		t.Fatalf("%d annotations, want 1000", len(p.Annotations))
	}
	high := 0
	for _, a := range p.Annotations {
		if a["severity"] == "HIGH" {
			high++
		}
	}
	if high != 110 {
		t.Errorf("%d of the 110 errors annotated, want all: the least severe are left out first", high)
	}
	if d, _ := p.Report["details"].(string); !strings.Contains(d, "100 more not shown") {
		t.Errorf("details = %q, want the 100 left out counted", d)
	}
	if !slices.ContainsFunc(p.Report["data"].([]any), func(d any) bool {
		m := d.(map[string]any)
		return m["title"] == "Not shown" && m["value"] == 100.0
	}) {
		t.Errorf("data = %v, want a Not shown field of 100", p.Report["data"])
	}
	first := p.Annotations[0]
	if s := first["summary"].(string); utf8.RuneCountInString(s) != 450 || !strings.HasSuffix(s, "…") {
		t.Errorf("summary of %d characters, want 450 ending in an ellipsis", utf8.RuneCountInString(s))
	}
	if first["details"] != long+" (needs patch)" {
		t.Errorf("details do not keep the whole message and its bump")
	}
}
