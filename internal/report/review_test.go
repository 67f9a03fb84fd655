package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func testReview() *Review {
	return &Review{Base: "main @ 3f2a1c9, merge base of HEAD", BaseRef: "main",
		BaseCommit: "3f2a1c9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a", RepositoryURI: "https://example.com/shop/api.git", Compared: 2}
}

// A review's report names its base in every format, and tells "nothing
// changed" from "compared, no findings".
func TestReviewNamesBase(t *testing.T) {
	for _, c := range []struct {
		compared int
		findings bool
		want     string
	}{
		{0, false, "no contracts changed\n"},
		{2, false, "compared 2 contracts, no findings\n"},
		{1, true, "compared 1 contract: 3 findings:"},
	} {
		r := testReport(t, nil)
		if c.findings {
			r = testReport(t, fixedFindings()[:3])
		}
		r.Review = testReview()
		r.Review.Compared = c.compared
		var buf bytes.Buffer
		if err := (&Text{}).Write(&buf, r); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.HasPrefix(out, "compared against main @ 3f2a1c9, merge base of HEAD\n") || !strings.Contains(out, c.want) {
			t.Errorf("text with %d compared: %q, want the base first and %q", c.compared, out, c.want)
		}
	}

	r := testReport(t, fixedFindings())
	r.Review = testReview()
	var buf bytes.Buffer
	if err := (JSON{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Base     map[string]string `json:"base"`
		Compared *int              `json:"compared"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Base["ref"] != "main" || doc.Base["commit"] != r.Review.BaseCommit || doc.Compared == nil || *doc.Compared != 2 {
		t.Errorf("JSON base %v, compared %v", doc.Base, doc.Compared)
	}

	m := validateSARIF(t, sarifSchema(t), writeSARIF(t, r))
	vcp := m["runs"].([]any)[0].(map[string]any)["versionControlProvenance"].([]any)[0].(map[string]any)
	if vcp["revisionId"] != r.Review.BaseCommit || vcp["repositoryUri"] != r.Review.RepositoryURI || vcp["branch"] != "main" {
		t.Errorf("SARIF versionControlProvenance = %v", vcp)
	}

	// A repository without a remote has no URI for versionControlProvenance;
	// the run still names its base, in the run's property bag.
	r.Review.RepositoryURI = ""
	m = validateSARIF(t, sarifSchema(t), writeSARIF(t, r))
	run := m["runs"].([]any)[0].(map[string]any)
	props, _ := run["properties"].(map[string]any)
	if _, ok := run["versionControlProvenance"]; ok || props["comparedAgainst"] != r.Review.Base || props["baseCommit"] != r.Review.BaseCommit {
		t.Errorf("SARIF without a repository URI: provenance %v, properties %v; want the base in properties", run["versionControlProvenance"], props)
	}

	// A submodule that could not be reviewed is a warning notification:
	// code scanning shows nothing else of it.
	r.Review.NotReviewed = []string{"vendor/api is a submodule whose commit changed"}
	m = validateSARIF(t, sarifSchema(t), writeSARIF(t, r))
	invs, _ := m["runs"].([]any)[0].(map[string]any)["invocations"].([]any)
	if !strings.Contains(fmt.Sprint(invs), "warning") || !strings.Contains(fmt.Sprint(invs), "not reviewed: vendor/api is a submodule") {
		t.Errorf("SARIF invocations %v do not name the submodule left unreviewed", invs)
	}
	r.Review.NotReviewed = nil

	buf.Reset()
	r.Review.Base = "we`ird @ 3f2a1c9"
	if err := (&Markdown{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Compared against `` we`ird @ 3f2a1c9 ``.") {
		t.Errorf("markdown does not name the base in a code span:\n%s", buf.String())
	}
}

// Input that could not be read is an ::error annotation and a SARIF
// notification, valid against the schema, never a count that reads as a pass.
func TestReportProblems(t *testing.T) {
	r := testReport(t, nil)
	r.Problems = []Problem{{File: "api/a,b.yaml", Line: 5, Column: 2, Msg: "not valid YAML\n::warning::x"}, {Msg: "no file"}}
	var buf bytes.Buffer
	if err := (&GitHub{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "::error file=api/a%2Cb.yaml,line=5,col=2,title=contractlint%3A cannot read the contract::not valid YAML ::warning::x\n" +
		"::error title=contractlint%3A cannot read the contract::no file\n" +
		"contractlint: 2 input problems could not be read; nothing was compared\n"
	if buf.String() != want {
		t.Errorf("github:\n%s\nwant:\n%s", buf.String(), want)
	}
	m := validateSARIF(t, sarifSchema(t), writeSARIF(t, r))
	inv := m["runs"].([]any)[0].(map[string]any)["invocations"].([]any)[0].(map[string]any)
	if inv["executionSuccessful"] != false || len(inv["toolExecutionNotifications"].([]any)) != 2 {
		t.Errorf("SARIF invocation = %v", inv)
	}
}
