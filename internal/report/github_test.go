package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// annotationLine is a workflow command as the runner parses it: a command
// name, properties up to the first "::", and the data after it.
var annotationLine = regexp.MustCompile(`^::(error|warning|notice) ([^:]*)::(.*)$`)

// unescapeWorkflow decodes as the runner does, in one pass, so "%250A"
// decodes to the text "%0A" and not to a line break.
var unescapeWorkflow = strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")

type annotationParsed struct {
	level string
	props map[string]string
	data  string
}

func parseAnnotations(t *testing.T, out string) (anns []annotationParsed, other []string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := annotationLine.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "::") {
				t.Errorf("a line is a workflow command that is not an annotation: %q", line)
			}
			other = append(other, line)
			continue
		}
		a := annotationParsed{level: m[1], props: map[string]string{}, data: unescapeWorkflow.Replace(m[3])}
		for _, kv := range strings.Split(m[2], ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Errorf("property %q in %q has no value", kv, line)
			}
			a.props[k] = unescapeWorkflow.Replace(v)
		}
		anns = append(anns, a)
	}
	return anns, other
}

func writeGitHub(t *testing.T, getenv func(string) string, fs []rules.Finding) string {
	t.Helper()
	var buf bytes.Buffer
	if err := (&GitHub{Getenv: getenv, RulesURL: DefaultRulesURL}).Write(&buf, testReport(t, fs)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestGitHubAnnotationsCannotInject checks that hostile text stays inside
// the one annotation it belongs to: every output line is one of ours, each
// annotation's data decodes to exactly the cleaned message, and no decoded
// value carries a newline the runner would split on.
func TestGitHubAnnotationsCannotInject(t *testing.T) {
	fs := hostileFindings()
	anns, other := parseAnnotations(t, writeGitHub(t, noEnv, fs))
	// Annotations come most severe first.
	slices.SortStableFunc(fs, func(a, b rules.Finding) int { return int(b.Severity) - int(a.Severity) })
	if len(anns) != len(fs) {
		t.Fatalf("%d annotations for %d findings", len(anns), len(fs))
	}
	if len(other) != 1 || !strings.HasPrefix(other[0], "contractlint: 4 findings") {
		t.Errorf("lines besides annotations = %q, want only the count", other)
	}
	for i, a := range anns {
		f := fs[i]
		want := Clean(f.Message)
		if f.Removed {
			want += fmt.Sprintf(" (base version, line %d)", f.Where.Line)
		}
		if a.data != want {
			t.Errorf("annotation %d data decodes to %q, want %q", i, a.data, want)
		}
		if a.props["file"] != Clean(f.Where.File) {
			t.Errorf("annotation %d file decodes to %q, want %q", i, a.props["file"], Clean(f.Where.File))
		}
		if !strings.HasPrefix(a.props["title"], Clean(f.Rule)) {
			t.Errorf("annotation %d title %q does not start with the rule", i, a.props["title"])
		}
		for k, v := range a.props {
			if strings.ContainsAny(v, "\r\n") {
				t.Errorf("annotation %d property %s decodes to a line break: %q", i, k, v)
			}
		}
	}
	if anns[0].props["line"] != "3" || anns[0].props["col"] != "1" {
		t.Errorf("first annotation at line %q col %q, want 3 and 1", anns[0].props["line"], anns[0].props["col"])
	}
	// A removal's line is in the old file, so the annotation names no line.
	if _, ok := anns[1].props["line"]; ok {
		t.Errorf("removal annotation has a line: %+v", anns[1].props)
	}
}

func TestWorkflowEscaping(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50% off", "50%25 off", "50%25 off"},
		{"a\nb\r\nc", "a b  c", "a b  c"},
		{"x::error::y", "x::error::y", "x%3A%3Aerror%3A%3Ay"},
		{"a,b=c", "a,b=c", "a%2Cb=c"},
		{"%0A", "%250A", "%250A"},
		{"\x1b[31m", `\u001b[31m`, `\u001b[31m`},
	} {
		if got := workflowData(tc.in); got != tc.data {
			t.Errorf("workflowData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := workflowProperty(tc.in); got != tc.prop {
			t.Errorf("workflowProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

// TestGitHubAnnotationLimits: GitHub shows 10 annotations of each level per
// step; past that we stop, keep a notice slot for the overflow line, and the
// job summary still lists every finding.
func TestGitHubAnnotationLimits(t *testing.T) {
	var fs []rules.Finding
	add := func(n int, sev rules.Severity, rule string) {
		for i := range n {
			fs = append(fs, rules.Finding{Rule: rule, Severity: sev, Message: fmt.Sprintf("%s %d", rule, i),
				Where: rules.Location{File: "api/openapi.yaml", Line: len(fs) + 1, Column: 1}})
		}
	}
	add(12, rules.Info, "money-as-float")
	add(3, rules.Warning, "enum-value-added")
	add(25, rules.Error, "field-redefined")

	summary := filepath.Join(t.TempDir(), "summary.md")
	env := env("GITHUB_STEP_SUMMARY", summary)
	anns, _ := parseAnnotations(t, writeGitHub(t, env, fs))
	count := map[string]int{}
	for _, a := range anns {
		count[a.level]++
	}
	if count["error"] != 10 || count["warning"] != 3 || count["notice"] != 10 {
		t.Errorf("annotations per level = %v, want 10 errors, 3 warnings, 10 notices", count)
	}
	last := anns[len(anns)-1]
	if last.level != "notice" || !strings.Contains(last.data, "18 more findings") || !strings.Contains(last.data, "job summary") {
		t.Errorf("last annotation = %+v, want a notice counting the 18 left out and pointing at the job summary", last)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(md), "\n| error |") + strings.Count(string(md), "\n| warning |") + strings.Count(string(md), "\n| info |"); rows != len(fs) {
		t.Errorf("job summary lists %d findings, want all %d", rows, len(fs))
	}
	// It also names the findings left without an annotation: the 15
	// errors and 3 infos past the limits, and only those.
	_, list, ok := strings.Cut(string(md), "### Not annotated")
	if !ok || !strings.Contains(list, "18 findings without an annotation") {
		t.Fatalf("job summary has no list of the 18 findings not annotated:\n%s", list)
	}
	for i := range 25 {
		if want := fmt.Sprintf("field-redefined %d\n", i); strings.Contains(list, want) != (i >= 10) {
			t.Errorf("not-annotated list has %q: %v, want %v", want, !(i >= 10), i >= 10)
		}
	}
	if strings.Count(list, "\n- ") != 18 || strings.Contains(list, "enum-value-added") || !strings.Contains(list, "money-as-float 11\n") {
		t.Errorf("not-annotated list, want the 15 errors and the last 3 infos:\n%s", list)
	}
	// Errors are annotated before warnings, and warnings before info.
	if anns[0].level != "error" || anns[10].level != "warning" || anns[13].level != "notice" {
		t.Errorf("annotation order: %s, %s, %s; want errors, then warnings, then notices", anns[0].level, anns[10].level, anns[13].level)
	}

	// Without a job summary the overflow line says how to see everything.
	anns, _ = parseAnnotations(t, writeGitHub(t, noEnv, fs))
	if last := anns[len(anns)-1]; !strings.Contains(last.data, "--format text") {
		t.Errorf("overflow line without a summary = %q", last.data)
	}
}

func TestGitHubSummaryAppends(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(summary, []byte("# an earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The job summary shows what the change accepted, as the comment does.
	r := withAccepted(testReport(t, fixedFindings()), "the carrier moved to the shipment API")
	if err := (&GitHub{Getenv: env("GITHUB_STEP_SUMMARY", summary), RulesURL: DefaultRulesURL}).Write(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/fixed.markdown.golden")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "# an earlier step\n"+string(want) {
		t.Errorf("job summary =\n%s\nwant the earlier step's text followed by the Markdown report", got)
	}
}

func TestGitHubSummaryUnwritable(t *testing.T) {
	env := env("GITHUB_STEP_SUMMARY", filepath.Join(t.TempDir(), "missing-dir", "summary.md"))
	var buf bytes.Buffer
	err := (&GitHub{Getenv: env}).Write(&buf, testReport(t, fixedFindings()))
	if err == nil || !strings.Contains(err.Error(), "job summary") {
		t.Errorf("error = %v, want one naming the job summary", err)
	}
	if !strings.Contains(buf.String(), "::error ") {
		t.Error("annotations were not written before the summary failed")
	}
}
