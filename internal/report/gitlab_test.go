package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// checkCodeQuality holds a report to the Code Quality format GitLab
// documents (ci/testing/code_quality, "Code Quality report format"): a JSON
// array of objects, each with a string description, check_name and
// fingerprint, a severity among info, minor, major, critical and blocker,
// and location.path (relative to the repository) with an integer
// location.lines.begin. GitLab keeps only the first issue of a fingerprint,
// so fingerprints must be unique. It returns the decoded issues.
func checkCodeQuality(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var issues []map[string]any
	if err := json.Unmarshal(out, &issues); err != nil {
		t.Fatalf("not a JSON array of objects: %v\n%s", err, out)
	}
	if issues == nil {
		t.Fatalf("want an array, even an empty one; got %s", out)
	}
	severities := []string{"info", "minor", "major", "critical", "blocker"}
	seen := map[string]bool{}
	for i, is := range issues {
		where := fmt.Sprintf("issue %d", i)
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if s, ok := is[k].(string); !ok || s == "" {
				t.Errorf("%s: %s = %#v, want a non-empty string", where, k, is[k])
			}
		}
		if sev, _ := is["severity"].(string); !slices.Contains(severities, sev) {
			t.Errorf("%s: severity %q is not one of %v", where, sev, severities)
		}
		fp, _ := is["fingerprint"].(string)
		if seen[fp] {
			t.Errorf("%s: fingerprint %q repeats", where, fp)
		}
		seen[fp] = true
		loc, ok := is["location"].(map[string]any)
		if !ok {
			t.Errorf("%s: no location object", where)
			continue
		}
		path, _ := loc["path"].(string)
		if path == "" || strings.HasPrefix(path, "/") || strings.HasPrefix(path, "../") {
			t.Errorf("%s: location.path %q is not relative to the repository", where, path)
		}
		lines, _ := loc["lines"].(map[string]any)
		begin, ok := lines["begin"].(float64)
		if !ok || begin < 1 || begin != float64(int(begin)) {
			t.Errorf("%s: location.lines.begin = %#v, want a line number", where, lines["begin"])
		}
	}
	return issues
}

func TestGitLabCodeQuality(t *testing.T) {
	for name, fs := range map[string][]rules.Finding{"fixed": fixedFindings(), "hostile": hostileFindings(), "empty": nil} {
		t.Run(name, func(t *testing.T) {
			issues := checkCodeQuality(t, render(t, "gitlab", Options{}, testReport(t, fs)))
			if len(issues) != len(fs) {
				t.Errorf("%d issues for %d findings", len(issues), len(fs))
			}
		})
	}
}

// TestGitLabFingerprintsUnique: the same finding twice (one rule, file,
// message and element) is still two issues GitLab keeps apart.
func TestGitLabFingerprintsUnique(t *testing.T) {
	f := fixedFindings()[0]
	fs := []rules.Finding{f, f, f}
	issues := checkCodeQuality(t, render(t, "gitlab", Options{}, testReport(t, fs)))
	if len(issues) != 3 {
		t.Fatalf("%d issues, want 3", len(issues))
	}
}

// TestGitLabPlaces: a removal sits on line 1 and names its base line, a
// problem is a blocker at its file, and names are made relative to the
// repository's top.
func TestGitLabPlaces(t *testing.T) {
	r := testReport(t, []rules.Finding{
		{Rule: "operation-removed", Severity: rules.Error, Message: "DELETE /x was removed",
			Where: rules.Location{File: "openapi.yaml", Line: 77}, Removed: true},
	})
	r.Problems = []Problem{{File: "broken.yaml", Line: 4, Column: 2, Msg: "mapping values are not allowed here"}}
	issues := checkCodeQuality(t, render(t, "gitlab", Options{Root: "/repo", Dir: "/repo/api"}, r))
	if len(issues) != 2 {
		t.Fatalf("%d issues, want 2", len(issues))
	}
	if is := issues[0]; is["severity"] != "blocker" || is["location"].(map[string]any)["path"] != "api/broken.yaml" {
		t.Errorf("problem issue = %v, want a blocker at api/broken.yaml", is)
	}
	is := issues[1]
	if is["location"].(map[string]any)["lines"].(map[string]any)["begin"] != 1.0 || !strings.Contains(is["description"].(string), "base version, line 77") {
		t.Errorf("removal issue = %v, want line 1 and the base line named", is)
	}
	if is["location"].(map[string]any)["path"] != "api/openapi.yaml" {
		t.Errorf("removal path = %v, want api/openapi.yaml", is["location"])
	}
}
