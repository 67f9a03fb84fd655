package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// reviewRequest is GitHub's documented body for "Create a review for a pull
// request": commit_id, body, event and comments, each comment a path, a body
// and either a diff position or a line (with side, and start_line and
// start_side for a range).
type reviewRequest struct {
	CommitID string `json:"commit_id"`
	Body     string `json:"body"`
	Event    string `json:"event"`
	Comments []struct {
		Path      string `json:"path"`
		Position  int    `json:"position"`
		Body      string `json:"body"`
		Line      int    `json:"line"`
		Side      string `json:"side"`
		StartLine int    `json:"start_line"`
		StartSide string `json:"start_side"`
	} `json:"comments"`
}

// checkReviewRequest holds the output to that body: no field GitHub does not
// document, an event it takes, and every comment placed by line on a side,
// a range starting before it ends and on the same side.
func checkReviewRequest(t *testing.T, out []byte) reviewRequest {
	t.Helper()
	var rv reviewRequest
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rv); err != nil {
		t.Fatalf("not a review request: %v\n%s", err, out)
	}
	if !slices.Contains([]string{"APPROVE", "REQUEST_CHANGES", "COMMENT"}, rv.Event) {
		t.Errorf("event %q", rv.Event)
	}
	if !strings.HasPrefix(rv.Body, ReviewMarker) || len(rv.Body) > 65536 {
		t.Errorf("body of %d characters does not start with the marker or is over GitHub's 65,536", len(rv.Body))
	}
	for i, c := range rv.Comments {
		where := fmt.Sprintf("comment %d", i)
		if c.Path == "" || c.Body == "" || c.Line < 1 || c.Position != 0 {
			t.Errorf("%s: path %q, line %d, position %d, body %q: want a path, a body and a line", where, c.Path, c.Line, c.Position, c.Body)
		}
		if c.Side != "RIGHT" && c.Side != "LEFT" {
			t.Errorf("%s: side %q", where, c.Side)
		}
		if c.StartLine != 0 && (c.StartLine >= c.Line || c.StartSide != c.Side) {
			t.Errorf("%s: start_line %d (%s) does not open a range ending at %d (%s)", where, c.StartLine, c.StartSide, c.Line, c.Side)
		}
	}
	return rv
}

// memSources are both sides of each file, by name.
type memSources struct{ base, head map[string]string }

func (m memSources) Head(name string) ([]byte, error) { return get(m.head, name) }
func (m memSources) Base(name string) ([]byte, error) { return get(m.base, name) }

func get(files map[string]string, name string) ([]byte, error) {
	if s, ok := files[name]; ok {
		return []byte(s), nil
	}
	return nil, errors.New("no such file")
}

const (
	chargeProtoV1 = "syntax = \"proto3\";\npackage shop;\n\nmessage Charge {\n  string id = 1;\n  double price = 2;\n  string note = 3;\n}\n"
	chargeProtoV2 = "syntax = \"proto3\";\npackage shop;\n\nmessage Charge {\n  string id = 1;\n  int64 amount_cents = 2;\n  string note = 3;\n}\n"
)

func reuseFinding() rules.Finding {
	return rules.Finding{Rule: "field-number-reused", Severity: rules.Error, Format: rules.Proto,
		Message: `field number 2 used to belong to field "price" (double) and is now "amount_cents" (int64)`,
		Where:   rules.Location{File: "shop.proto", Line: 6, Column: 3}, Path: "shop.Charge.amount_cents"}
}

// TestGitHubReviewSuggestsReserve: a reused field number gets a comment on
// its line whose suggestion reserves the number and the old name and gives
// the new field a fresh number.
func TestGitHubReviewSuggestsReserve(t *testing.T) {
	src := memSources{base: map[string]string{"shop.proto": chargeProtoV1}, head: map[string]string{"shop.proto": chargeProtoV2}}
	rv := checkReviewRequest(t, render(t, "github-review", Options{Sources: src}, testReport(t, []rules.Finding{reuseFinding()})))
	if len(rv.Comments) != 1 {
		t.Fatalf("%d comments, want 1:\n%+v", len(rv.Comments), rv)
	}
	c := rv.Comments[0]
	want := "```suggestion\n  reserved 2;\n  reserved \"price\";\n  int64 amount_cents = 4;\n```"
	if c.Path != "shop.proto" || c.Line != 6 || c.StartLine != 0 || c.Side != "RIGHT" || !strings.Contains(c.Body, want) {
		t.Errorf("comment at %s:%d (from %d, %s):\n%s\nwant at shop.proto:6 on the right:\n%s", c.Path, c.Line, c.StartLine, c.Side, c.Body, want)
	}
	if strings.Contains(rv.Body, "field-number-reused") {
		t.Errorf("the body lists the finding its comment carries:\n%s", rv.Body)
	}
}

// TestGitHubReviewInsertion: a fix that inserts lines is suggested on the
// line above, which the suggestion repeats; each fix of a deleted field
// (reserve it, or keep it deprecated) is its own comment.
func TestGitHubReviewInsertion(t *testing.T) {
	v2 := strings.Replace(chargeProtoV1, "  double price = 2;\n", "", 1)
	src := memSources{base: map[string]string{"shop.proto": chargeProtoV1}, head: map[string]string{"shop.proto": v2}}
	f := rules.Finding{Rule: "proto-field-removed", Severity: rules.Error, Format: rules.Proto, Message: `field "price" (2) was removed`,
		Where: rules.Location{File: "shop.proto", Line: 4}, Old: &rules.Location{File: "shop.proto", Line: 6}}
	rv := checkReviewRequest(t, render(t, "github-review", Options{Sources: src}, testReport(t, []rules.Finding{f})))
	want := []string{"```suggestion\nmessage Charge {\n  reserved 2;\n  reserved \"price\";\n```",
		"```suggestion\nmessage Charge {\n  double price = 2 [deprecated = true];\n```"}
	if len(rv.Comments) != 2 {
		t.Fatalf("comments %+v, want one per fix", rv.Comments)
	}
	for i, c := range rv.Comments {
		if c.Line != 4 || !strings.Contains(c.Body, want[i]) {
			t.Errorf("comment %+v, want on line 4 with\n%s", c, want[i])
		}
	}
}

// TestGitHubReviewOffDiff: a finding on a line the diff does not show, or
// in a file that cannot be read, is listed in the body, not commented.
func TestGitHubReviewOffDiff(t *testing.T) {
	long := chargeProtoV1 + strings.Repeat("// filler\n", 20) + "message Refund { string id = 1; }\n"
	src := memSources{base: map[string]string{"shop.proto": long}, head: map[string]string{"shop.proto": strings.Replace(long, "double price = 2;", "int64 amount_cents = 2;", 1)}}
	far := rules.Finding{Rule: "money-as-float", Severity: rules.Info, Message: "far from the change",
		Where: rules.Location{File: "shop.proto", Line: 29}}
	gone := rules.Finding{Rule: "money-as-float", Severity: rules.Info, Message: "in a file not read",
		Where: rules.Location{File: "other.proto", Line: 2}}
	rv := checkReviewRequest(t, render(t, "github-review", Options{Sources: src}, testReport(t, []rules.Finding{reuseFinding(), far, gone})))
	if len(rv.Comments) != 1 {
		t.Errorf("%d comments, want the reuse's only", len(rv.Comments))
	}
	for _, s := range []string{"` shop.proto:29 `", "far from the change", "` other.proto:2 `"} {
		if !strings.Contains(rv.Body, s) {
			t.Errorf("body lacks %q:\n%s", s, rv.Body)
		}
	}
}

// TestGitHubReviewLimit: past 50 comments the most severe are commented and
// the rest listed in the body, which says how many and why.
func TestGitHubReviewLimit(t *testing.T) {
	var b strings.Builder
	var fs []rules.Finding
	for i := range 60 {
		fmt.Fprintf(&b, "line %d\n", i+1)
		sev := rules.Info
		if i >= 50 {
			sev = rules.Error
		}
		fs = append(fs, rules.Finding{Rule: "money-as-float", Severity: sev, Message: fmt.Sprintf("float %d", i+1),
			Where: rules.Location{File: "api.yaml", Line: i + 1}})
	}
	src := memSources{base: map[string]string{}, head: map[string]string{"api.yaml": b.String()}}
	rv := checkReviewRequest(t, render(t, "github-review", Options{Sources: src}, testReport(t, fs)))
	if len(rv.Comments) != 50 {
		t.Fatalf("%d comments, want 50", len(rv.Comments))
	}
	for _, c := range rv.Comments[:10] {
		if !strings.HasPrefix(c.Body, "**error**") {
			t.Errorf("comment %q: the errors come first", c.Body)
		}
	}
	if !strings.Contains(rv.Body, "10 past the 50 comments of one review") || strings.Count(rv.Body, "\n- ") != 10 {
		t.Errorf("body does not list the 10 left over and say why:\n%s", rv.Body)
	}
}

// TestGitHubReviewBodyBudget: a body past GitHub's size stops listing and
// counts the rest.
func TestGitHubReviewBodyBudget(t *testing.T) {
	var fs []rules.Finding
	for i := range 2000 {
		fs = append(fs, rules.Finding{Rule: "money-as-float", Severity: rules.Info, Message: strings.Repeat("x", 60) + fmt.Sprint(i),
			Where: rules.Location{File: "api.yaml", Line: i + 1}})
	}
	rv := checkReviewRequest(t, render(t, "github-review", Options{}, testReport(t, fs)))
	shown := strings.Count(rv.Body, "\n- ")
	if shown == 0 || shown == 2000 || !strings.Contains(rv.Body, fmt.Sprintf("%d more not shown", 2000-shown)) {
		t.Errorf("%d listed, and the body does not count the rest:\n%.300s", shown, rv.Body[len(rv.Body)-300:])
	}
}

// TestGitHubReviewHostileSuggestion: a suggestion would quote the file as
// it is; text a reader must not see raw (a bidi override here) is never
// quoted, the fix only named.
func TestGitHubReviewHostileSuggestion(t *testing.T) {
	v2 := strings.Replace(chargeProtoV2, "int64 amount_cents = 2;", "int64 amount_cents = 2; // \u202eevil", 1)
	src := memSources{base: map[string]string{"shop.proto": chargeProtoV1}, head: map[string]string{"shop.proto": v2}}
	out := render(t, "github-review", Options{Sources: src}, testReport(t, []rules.Finding{reuseFinding()}))
	checkInert(t, "output", string(out))
	rv := checkReviewRequest(t, out)
	if len(rv.Comments) != 1 || strings.Contains(rv.Comments[0].Body, "```suggestion") || !strings.Contains(rv.Comments[0].Body, "Reserve price") {
		t.Errorf("comments %+v: want the finding, its fix named, no suggestion", rv.Comments)
	}
	checkInert(t, "comment", rv.Comments[0].Body)
}
