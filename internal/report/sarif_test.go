package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contractlint/contractlint/rules"
)

// sarifSchema compiles the official OASIS schema (committed in testdata),
// with formats asserted so a URI that is not a URI reference fails too.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const loc = "sarif-schema-2.1.0.json"
	if err := c.AddResource(loc, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func writeSARIF(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := (SARIF{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, out []byte) map[string]any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("SARIF does not match the 2.1.0 schema: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSARIFValidatesAgainstSchema(t *testing.T) {
	sch := sarifSchema(t)
	odd := []rules.Finding{
		{Rule: "field-redefined", Severity: rules.Error, Message: "m", Where: rules.Location{File: "dir with space/a#b?.yaml", Line: 1}},
		{Rule: "field-redefined", Severity: rules.Error, Message: "", Where: rules.Location{File: "c:/x.yaml", Line: 2, Column: 3}},
		{Rule: "field-redefined", Severity: rules.Error, Message: "m", Where: rules.Location{File: "/abs\\win.yaml"}},
		{Rule: "field-redefined", Severity: rules.Error, Message: "m", Where: rules.Location{}},
		{Rule: "operation-removed", Severity: rules.Error, Message: "gone", Where: rules.Location{File: "x.yaml", Line: 5, Column: 2}, Removed: true},
	}
	check := func(t *testing.T, out []byte) {
		validateSARIF(t, sch, out)
		var log sarifLog
		if err := json.Unmarshal(out, &log); err != nil {
			t.Fatal(err)
		}
		checkCodeScanning(t, log.Runs[0])
	}
	for name, fs := range map[string][]rules.Finding{"fixed": fixedFindings(), "hostile": hostileFindings(), "empty": nil, "odd paths": odd} {
		t.Run(name, func(t *testing.T) { check(t, writeSARIF(t, testReport(t, fs))) })
	}
	t.Run("no registry", func(t *testing.T) { check(t, writeSARIF(t, &Report{Findings: fixedFindings()})) })
}

// sarifResults decodes the results of the only run.
func sarifResults(t *testing.T, out []byte) []sarifResult {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return log.Runs[0].Results
}

func TestSARIFResults(t *testing.T) {
	out := writeSARIF(t, testReport(t, fixedFindings()))
	var log sarifLog
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != len(fixedFindings()) {
		t.Fatalf("%d results, want %d", len(run.Results), len(fixedFindings()))
	}
	for _, res := range run.Results {
		if got := run.Tool.Driver.Rules[res.RuleIndex].ID; got != res.RuleID {
			t.Errorf("result %s has ruleIndex %d naming %s", res.RuleID, res.RuleIndex, got)
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URIBaseID != srcRoot || strings.HasPrefix(loc.ArtifactLocation.URI, "/") {
			t.Errorf("%s: location %+v is not relative to %s", res.RuleID, loc.ArtifactLocation, srcRoot)
		}
	}
	levels := map[string]string{}
	for _, res := range run.Results {
		levels[res.RuleID] = res.Level
	}
	if levels["field-redefined"] != "error" || levels["enum-value-added"] != "warning" || levels["money-as-float"] != "note" {
		t.Errorf("levels = %v", levels)
	}

	redefined, removed := run.Results[0], run.Results[1]
	if r := redefined.Locations[0].PhysicalLocation.Region; r == nil || r.StartLine != 42 || r.StartColumn != 9 {
		t.Errorf("field-redefined region = %+v, want 42:9", r)
	}
	if len(redefined.RelatedLocations) != 1 || redefined.RelatedLocations[0].PhysicalLocation.Region.StartLine != 40 {
		t.Errorf("field-redefined related locations = %+v, want the old line 40", redefined.RelatedLocations)
	}
	// A removal points at the file as it is now, and at the old line as related.
	if r := removed.Locations[0].PhysicalLocation.Region; removed.RuleID != "operation-removed" || r == nil || r.StartLine != 1 || r.StartColumn != 0 {
		t.Errorf("removal location = %+v, want the file's first line", removed.Locations[0])
	}
	if !strings.HasSuffix(removed.Message.Text, "(base version, line 77)") {
		t.Errorf("removal message %q does not name the old line", removed.Message.Text)
	}
	if len(removed.RelatedLocations) != 1 || removed.RelatedLocations[0].PhysicalLocation.Region.StartLine != 77 {
		t.Errorf("removal related locations = %+v, want the old line 77", removed.RelatedLocations)
	}
	checkCodeScanning(t, run)
}

// checkCodeScanning asserts what GitHub code scanning needs beyond the
// schema: every rule documented (short and full description, help text),
// every result placed by a relative URI and a startLine, fingerprinted, and
// the documented per-run limits kept.
func checkCodeScanning(t *testing.T, run sarifRun) {
	t.Helper()
	if n := len(run.Results); n > sarifMaxResults {
		t.Errorf("%d results, over code scanning's %d", n, sarifMaxResults)
	}
	for _, rule := range run.Tool.Driver.Rules {
		if rule.ShortDescription.Text == "" || rule.FullDescription == nil || rule.FullDescription.Text == "" || rule.Help == nil || rule.Help.Text == "" {
			t.Errorf("rule %s lacks a description or help: %+v", rule.ID, rule)
		}
		if rule.Properties != nil && len(rule.Properties.Tags) > 20 {
			t.Errorf("rule %s has %d tags, over 20", rule.ID, len(rule.Properties.Tags))
		}
	}
	for _, res := range run.Results {
		if res.Message.Text == "" || res.PartialFingerprints[fingerprintKey] == "" {
			t.Errorf("%s: empty message or fingerprint", res.RuleID)
		}
		if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("%s: ruleIndex %d does not name its rule", res.RuleID, res.RuleIndex)
		}
		if len(res.Locations) != 1 {
			t.Errorf("%s: %d locations, want exactly one", res.RuleID, len(res.Locations))
			continue
		}
		loc := res.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URIBaseID != srcRoot || loc.ArtifactLocation.URI == "" || strings.HasPrefix(loc.ArtifactLocation.URI, "/") || strings.Contains(loc.ArtifactLocation.URI, "://") {
			t.Errorf("%s: location %+v is not relative to %s", res.RuleID, loc.ArtifactLocation, srcRoot)
		}
		if loc.Region == nil || loc.Region.StartLine < 1 || loc.Region.StartColumn < 0 {
			t.Errorf("%s: region %+v, want a startLine of at least 1", res.RuleID, loc.Region)
		}
	}
}

func TestSARIFFingerprints(t *testing.T) {
	base := rules.Finding{Rule: "field-redefined", Severity: rules.Error, Message: "price changed",
		Where: rules.Location{File: "a.yaml", Line: 10, Column: 3}, Path: "#/components/schemas/A/properties/price"}
	moved := base
	moved.Where.Line, moved.Where.Column = 250, 7
	other := base
	other.Path = "#/components/schemas/B/properties/price"
	fp := func(fs ...rules.Finding) []string {
		var out []string
		for _, res := range sarifResults(t, writeSARIF(t, testReport(t, fs))) {
			out = append(out, res.PartialFingerprints[fingerprintKey])
		}
		return out
	}
	a, b, c := fp(base)[0], fp(moved)[0], fp(other)[0]
	if a == "" || a != b {
		t.Errorf("fingerprint changed when only the line moved: %q vs %q", a, b)
	}
	if a == c {
		t.Errorf("different elements share fingerprint %q", a)
	}
	if twice := fp(base, moved); twice[0] == twice[1] {
		t.Errorf("two results in one run share fingerprint %q", twice[0])
	}
}

func TestSARIFResultLimit(t *testing.T) {
	const limit = 20
	var fs []rules.Finding
	for i := range limit + 3 {
		sev := rules.Warning
		if i%5 == 0 {
			sev = rules.Info
		}
		fs = append(fs, rules.Finding{Rule: "enum-value-added", Severity: sev, Message: fmt.Sprint(i), Where: rules.Location{File: "a.yaml", Line: i + 1}})
	}
	run := writeRun(t, SARIF{MaxResults: limit}, testReport(t, fs))
	checkCodeScanning(t, run)
	if len(run.Results) != limit {
		t.Fatalf("%d results, want the limit %d", len(run.Results), limit)
	}
	notes, lines := 0, []int{}
	for _, res := range run.Results {
		if res.Level == "note" {
			notes++
		}
		lines = append(lines, res.Locations[0].PhysicalLocation.Region.StartLine)
	}
	if notes != 5-3 {
		t.Errorf("%d notes kept of 5, want 2: the least severe go first", notes)
	}
	if !slices.IsSorted(lines) {
		t.Errorf("kept results out of order: lines %v", lines)
	}
	if len(run.Invocations) != 1 || !strings.Contains(run.Invocations[0].Notifications[0].Message.Text, "3 less severe findings left out") {
		t.Errorf("invocations = %+v, want a notification about the 3 left out", run.Invocations)
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"api/openapi.yaml":  "api/openapi.yaml",
		"dir with space/a":  "dir%20with%20space/a",
		"a#b?.yaml":         "a%23b%3F.yaml",
		"c:/x.yaml":         "c%3A/x.yaml",
		"/abs/x.yaml":       "abs/x.yaml",
		`win\path.yaml`:     "win/path.yaml",
		"":                  ".",
		"bad\xffname.proto": "bad%FFname.proto",
	} {
		if got := fileURI(in); got != want {
			t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodeFence(t *testing.T) {
	for in, want := range map[string]string{"x": "```", "a ``` b": "````", "`````": "``````"} {
		if got := codeFence(in); got != want {
			t.Errorf("codeFence(%q) = %q, want %q", in, got, want)
		}
	}
}

// Names relative to a working directory below the root are written
// relative to the root, never with ../; one outside it as an absolute file
// URI with no uriBaseId. Both validate against the 2.1.0 schema.
func TestSARIFRootRelative(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	fs := []rules.Finding{
		{Rule: "field-redefined", Severity: rules.Error, Message: "m", Where: rules.Location{File: "../api/x.yaml", Line: 1},
			Old: &rules.Location{File: "../../elsewhere.yaml", Line: 2}},
	}
	r := testReport(t, fs)
	r.Problems = []Problem{{File: "../api/y.yaml", Line: 3, Msg: "bad"}}
	run := writeRun(t, SARIF{Root: root, Dir: filepath.Join(root, "sub")}, r)
	got := []sarifArtifact{run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation,
		run.Results[0].RelatedLocations[0].PhysicalLocation.ArtifactLocation,
		run.Invocations[0].Notifications[0].Locations[0].PhysicalLocation.ArtifactLocation}
	want := []sarifArtifact{{URI: "api/x.yaml", URIBaseID: srcRoot},
		{URI: "file://" + filepath.ToSlash(filepath.Join(filepath.Dir(root), "elsewhere.yaml"))},
		{URI: "api/y.yaml", URIBaseID: srcRoot}}
	if !slices.Equal(got, want) {
		t.Errorf("artifacts %+v, want %+v", got, want)
	}
}

// writeRun writes r with s, checks it against the 2.1.0 schema and returns
// its only run.
func writeRun(t *testing.T, s SARIF, r *Report) sarifRun {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, sarifSchema(t), buf.Bytes())
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	return log.Runs[0]
}
