package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// anchoredRemoval is a response property removed from a schema that the
// new file still has: Where is the old line, Anchor the schema's line now.
func anchoredRemoval() rules.Finding {
	return rules.Finding{Rule: "response-property-removed", Severity: rules.Error, Message: `response property "seat" removed`,
		Where: rules.Location{File: "api/v1.yaml", Line: 50, Column: 9}, Removed: true,
		Anchor: &rules.Location{File: "api/v2.yaml", Line: 44, Column: 7}, Operations: []string{"GET /v1/tickets"}}
}

// TestGitHubRemovalOnNewLine: a removal is annotated on the line of the new
// file that held the removed element, so it shows in the pull request's
// diff; the old line is named in the message.
func TestGitHubRemovalOnNewLine(t *testing.T) {
	anns, _ := parseAnnotations(t, writeGitHub(t, noEnv, []rules.Finding{anchoredRemoval()}))
	if len(anns) != 1 {
		t.Fatalf("%d annotations, want 1", len(anns))
	}
	a := anns[0]
	if a.props["file"] != "api/v2.yaml" || a.props["line"] != "44" || a.props["col"] != "7" {
		t.Errorf("annotation at %q line %q col %q, want api/v2.yaml line 44 col 7", a.props["file"], a.props["line"], a.props["col"])
	}
	if !strings.HasSuffix(a.data, "(base version, line 50)") {
		t.Errorf("annotation %q does not name the old line", a.data)
	}
}

// TestSARIFRemovalOnNewLine: the alert sits on the new file's anchor, and
// the old location is a related location.
func TestSARIFRemovalOnNewLine(t *testing.T) {
	var log sarifLog
	if err := json.Unmarshal(writeSARIF(t, testReport(t, []rules.Finding{anchoredRemoval()})), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results[0]
	loc := res.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "api/v2.yaml" || loc.Region == nil || loc.Region.StartLine != 44 {
		t.Errorf("alert at %+v %+v, want api/v2.yaml line 44", loc.ArtifactLocation, loc.Region)
	}
	if len(res.RelatedLocations) != 1 {
		t.Fatalf("related locations %+v, want the old one", res.RelatedLocations)
	}
	old := res.RelatedLocations[0].PhysicalLocation
	if old.ArtifactLocation.URI != "api/v1.yaml" || old.Region == nil || old.Region.StartLine != 50 {
		t.Errorf("related location %+v %+v, want api/v1.yaml line 50", old.ArtifactLocation, old.Region)
	}
	checkCodeScanning(t, log.Runs[0])
}
