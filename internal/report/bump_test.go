package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// TestPlatformFormatsCarryBump: the platform formats say the version bump
// each finding needs, and the run's, where each platform has room: GitLab
// in an issue's description, Bitbucket in a data field of the report and in
// an annotation's details, a GitHub review in its body and in each comment.
func TestPlatformFormatsCarryBump(t *testing.T) {
	reuse := reuseFinding()
	reuse.Bump = rules.Major
	note := rules.Finding{Rule: "money-as-float", Severity: rules.Info, Bump: rules.Patch, Message: "amount is a float",
		Where: rules.Location{File: "other.proto", Line: 2}}
	fs := []rules.Finding{reuse, note}

	t.Run("gitlab", func(t *testing.T) {
		issues := checkCodeQuality(t, render(t, "gitlab", Options{}, testReport(t, fs)))
		want := map[string]string{"field-number-reused": "(needs major)", "money-as-float": "(needs patch)"}
		for _, is := range issues {
			if d, _ := is["description"].(string); !strings.HasSuffix(d, want[is["check_name"].(string)]) {
				t.Errorf("description %q does not end with %q", d, want[is["check_name"].(string)])
			}
		}
	})
	t.Run("bitbucket", func(t *testing.T) {
		p := checkCodeInsights(t, render(t, "bitbucket", Options{}, testReport(t, fs)))
		found := false
		for _, d := range p.Report["data"].([]any) {
			d := d.(map[string]any)
			if d["title"] == "Version bump needed" {
				found = d["type"] == "TEXT" && d["value"] == "major"
			}
		}
		if !found {
			t.Errorf("report data %v, want a TEXT field \"Version bump needed\" of major", p.Report["data"])
		}
		for _, a := range p.Annotations {
			if d, _ := a["details"].(string); !strings.Contains(d, "(needs major)") && !strings.Contains(d, "(needs patch)") {
				t.Errorf("annotation details %q name no bump", d)
			}
		}
	})
	t.Run("bitbucket-nothing-changed", func(t *testing.T) {
		p := checkCodeInsights(t, render(t, "bitbucket", Options{}, testReport(t, nil)))
		if strings.Contains(strings.ToLower(fmt.Sprint(p.Report["data"])), "bump") {
			t.Errorf("report data %v: no change, no bump", p.Report["data"])
		}
	})
	t.Run("github-review", func(t *testing.T) {
		src := memSources{base: map[string]string{"shop.proto": chargeProtoV1}, head: map[string]string{"shop.proto": chargeProtoV2}}
		rv := checkReviewRequest(t, render(t, "github-review", Options{Sources: src}, testReport(t, fs)))
		if len(rv.Comments) != 1 || !strings.Contains(rv.Comments[0].Body, "(needs major)") {
			t.Errorf("comments %+v, want one that says it needs a major bump", rv.Comments)
		}
		for _, s := range []string{"needs a MAJOR version bump", "(needs patch)"} {
			if !strings.Contains(rv.Body, s) {
				t.Errorf("body lacks %q:\n%s", s, rv.Body)
			}
		}
	})
}

// TestRunBumpOnlyForComparisons: a run that compared nothing (lint, probe,
// replay: Report.Bump zero) states no bump, though each finding has one; a
// comparison states the largest of its findings' and its changes'.
func TestRunBumpOnlyForComparisons(t *testing.T) {
	r := testReport(t, fixedFindings())
	r.Bump = 0
	if s := r.Summarize(); s.Bump != 0 {
		t.Errorf("a run that compared nothing needs %s, want no bump", s.Bump)
	}
	if out := string(render(t, "text", Options{}, r)); strings.Contains(out, "version bump") {
		t.Errorf("text output of a lint run states a bump:\n%s", out)
	}
	r.Bump = rules.Minor
	if s := r.Summarize(); s.Bump != rules.Major {
		t.Errorf("a comparison with major findings needs %s, want major", s.Bump)
	}
}
