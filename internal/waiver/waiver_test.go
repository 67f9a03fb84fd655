package waiver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractlint/contractlint/rules"
)

func known(name string) []string {
	if name == "response-property-removed" {
		return []string{name}
	}
	return nil
}

func finding(line int, old string) rules.Finding {
	c := rules.Change{Kind: rules.Removed, Subject: rules.SubjectField, Name: "carrier", Path: "#/p/carrier", Old: rules.Value{Text: old},
		OldLoc: rules.Location{File: "a.yaml", Line: line}, Format: rules.OpenAPI}
	return c.Finding(&rules.Rule{ID: "response-property-removed", Severity: rules.Error}, "response property \"carrier\" removed")
}

// TestApply: a waiver accepts its change wherever the change's lines are,
// holds through its expiry date and not after, stops matching when the
// change itself differs, and is reported when unused.
func TestApply(t *testing.T) {
	fp := finding(10, "string").ChangeFingerprint()
	if fp != finding(42, "string").ChangeFingerprint() {
		t.Fatalf("the fingerprint depends on the line")
	}
	ws, err := Parse("w.yaml", []byte(`waivers:
  - rule: response-property-removed
    element: "#/p/carrier"
    fingerprint: `+fp+`
    reason: no client reads it
    owner: "@payments"
    expires: 2026-06-30
`), known)
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time {
		d, _ := time.Parse(time.DateOnly, s)
		return d.Add(15 * time.Hour)
	}
	kept, waived := Apply(ws, []rules.Finding{finding(42, "string")}, day("2026-06-30"))
	if len(kept) != 0 || len(waived) != 1 || waived[0].Justification() != "waived by @payments: no client reads it" {
		t.Errorf("on its last day: kept %v, waived %v; want it waived", kept, waived)
	}
	kept, waived = Apply(ws, []rules.Finding{finding(42, "string")}, day("2026-07-01"))
	if len(waived) != 0 || len(kept) != 2 || kept[1].Rule != ExpiredID && kept[0].Rule != ExpiredID {
		t.Errorf("the day after: kept %v, waived %v; want the finding back and waiver-expired", kept, waived)
	}
	kept, waived = Apply(ws, []rules.Finding{finding(42, "integer")}, day("2026-01-01"))
	if len(waived) != 0 || len(kept) != 2 {
		t.Errorf("another change to the same element: kept %v, waived %v; want it reported and the waiver unused", kept, waived)
	}
	kept, _ = Apply(ws, nil, day("2026-01-01"))
	if len(kept) != 1 || kept[0].Rule != rules.UnusedIgnoreID || kept[0].Where.Line != 2 {
		t.Errorf("no finding: got %v, want unused-ignore at the waiver's line", kept)
	}
}

// TestParseProblems: a waiver without its reason or owner, or naming an
// unknown rule or a bad date, is refused at its line.
func TestParseProblems(t *testing.T) {
	_, err := Parse("w.yaml", []byte(`waivers:
  - rule: response-property-removed
    element: x
  - rule: nope
    element: x
    reason: r
    owner: o
    expires: soon
`), known)
	for _, want := range []string{"w.yaml:2:5: a waiver needs its reason", "w.yaml:2:5: a waiver needs its owner",
		`w.yaml:4:11: unknown rule "nope"`, `w.yaml:8:14: waiver: expires: want a date`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

// TestAppend: waive adds an entry that reads back as written, keeping what
// the file held.
func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w := Waiver{Rule: "response-property-removed", Element: "#/p/carrier", Fingerprint: "abc", Reason: "r: with a colon", Owner: "@o",
		Expires: time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)}
	for range 2 {
		if err := Append(path, w); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := Parse(FileName, data, known)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[1].Element != w.Element || ws[1].Reason != w.Reason || !ws[1].Expires.Equal(w.Expires) {
		t.Errorf("read back %+v from\n%s", ws, data)
	}
}

// TestIgnoreLinesOasdiffText: a line copied from an oasdiff ignore file
// (method, path and the text oasdiff prints, in any case) accepts the
// finding of the rule its check maps to; a line naming another operation,
// a longer path or other values accepts nothing and is unused-ignore.
func TestIgnoreLinesOasdiffText(t *testing.T) {
	region := rules.Finding{Rule: "request-parameter-added-required", Severity: rules.Error, Operations: []string{"GET /v1/orders"},
		Message: `new required query parameter "region": existing clients do not send it`, Path: "#/paths/~1v1~1orders/get/parameters/region"}
	names := Names{Resolve: known, Checks: func(id string) []string {
		if id == "request-parameter-added-required" {
			return []string{"new-required-request-parameter", "new-request-path-parameter"}
		}
		return nil
	}}
	for _, c := range []struct {
		line string
		want bool
	}{
		{"GET /v1/orders added the new required `query` request parameter `region`", true},
		{"get /V1/Orders Added The New Required `Query` Request Parameter `Region`", true},
		{"GET /v1/orders added the new required `query` request parameter `country`", false},
		{"POST /v1/orders added the new required `query` request parameter `region`", false},
		{"GET /v1/orders/{id} added the new required `query` request parameter `region`", false},
		{"GET /v1/orders removed the `query` request parameter `region`", false},
	} {
		lines := ParseIgnoreFile("ignore-err.txt", []byte("# from oasdiff\n"+c.line+"\n"), rules.Error)
		kept, waived := ApplyIgnoreLines(lines, []rules.Finding{region}, names)
		if got := len(waived) == 1; got != c.want {
			t.Errorf("%q: waived %v, want %v", c.line, got, c.want)
		}
		if !c.want && (len(kept) != 2 || kept[1].Rule != rules.UnusedIgnoreID || kept[1].Where.Line != 2) {
			t.Errorf("%q: kept %v, want the finding and unused-ignore at line 2", c.line, kept)
		}
	}
}
