package delivery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeGitHub stands in for the pull request review API of pull request 7
// of shop/api: reviews with their comments, created, listed, updated, and
// comments deleted. It records every call, refuses a review with comments
// (422, as GitHub does for a line its diff does not show) when
// rejectComments is set, and every call (403) when forbidden is.
type fakeGitHub struct {
	mu             sync.Mutex
	calls          []string
	reviews        []*fakeReview
	next           int
	rejectComments bool
	forbidden      bool
	*httptest.Server
}

type fakeReview struct {
	ID       int           `json:"id"`
	Body     string        `json:"body"`
	CommitID string        `json:"commit_id"`
	Event    string        `json:"event"`
	Comments []fakeComment `json:"comments"`
}

type fakeComment struct {
	ID   int    `json:"id"`
	Path string `json:"path"`
	Line int    `json:"line"`
	Side string `json:"side"`
	Body string `json:"body"`
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{next: 100}
	g.Server = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.Close)
	return g
}

func (g *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, "/repos/shop/api/pulls/")
	g.calls = append(g.calls, r.Method+" "+path)
	if g.forbidden || r.Header.Get("Authorization") != "Bearer fake-token" {
		http.Error(w, `{"message": "Resource not accessible by integration"}`, http.StatusForbidden)
		return
	}
	parts := strings.Split(path, "/")
	answer := func(v any) { json.NewEncoder(w).Encode(v) }
	switch {
	case r.Method == http.MethodGet && path == "7/reviews":
		list := []map[string]any{}
		for _, rv := range g.reviews {
			list = append(list, map[string]any{"id": rv.ID, "body": rv.Body})
		}
		answer(list)
	case r.Method == http.MethodPost && path == "7/reviews":
		var rv fakeReview
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if g.rejectComments && len(rv.Comments) > 0 {
			http.Error(w, `{"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}`, http.StatusUnprocessableEntity)
			return
		}
		g.next++
		rv.ID = g.next
		for i := range rv.Comments {
			g.next++
			rv.Comments[i].ID = g.next
		}
		g.reviews = append(g.reviews, &rv)
		answer(rv)
	case len(parts) >= 3 && parts[0] == "7" && parts[1] == "reviews":
		rv := g.review(parts[2])
		switch {
		case rv == nil:
			http.NotFound(w, r)
		case r.Method == http.MethodPut && len(parts) == 3:
			var in struct{ Body string }
			json.NewDecoder(r.Body).Decode(&in)
			rv.Body = in.Body
			answer(rv)
		case r.Method == http.MethodGet && len(parts) == 4 && parts[3] == "comments":
			answer(rv.Comments)
		default:
			http.NotFound(w, r)
		}
	case r.Method == http.MethodDelete && len(parts) == 2 && parts[0] == "comments":
		id, _ := strconv.Atoi(parts[1])
		for _, rv := range g.reviews {
			rv.Comments = slices.DeleteFunc(rv.Comments, func(c fakeComment) bool { return c.ID == id })
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func (g *fakeGitHub) review(id string) *fakeReview {
	for _, rv := range g.reviews {
		if strconv.Itoa(rv.ID) == id {
			return rv
		}
	}
	return nil
}

// writes lists the calls that changed something.
func (g *fakeGitHub) writes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, c := range g.calls {
		if !strings.HasPrefix(c, "GET ") {
			out = append(out, c)
		}
	}
	g.calls = nil
	return out
}

// postReview runs integrations/github/post-review.sh as the Action's step
// does, for pull request 7, against g.
func postReview(t *testing.T, g *fakeGitHub, review, counts string) string {
	t.Helper()
	tmp := t.TempDir()
	event := filepath.Join(tmp, "event.json")
	write(t, event, `{"pull_request": {"number": 7, "head": {"sha": "`+strings.Repeat("f", 40)+`"}}}`)
	rf, cf := filepath.Join(tmp, "review.json"), filepath.Join(tmp, "counts.json")
	write(t, rf, review)
	write(t, cf, counts)
	cmd := exec.Command("bash", filepath.Join(repoTop(t), "integrations", "github", "post-review.sh"), rf, cf)
	cmd.Env = append(os.Environ(), "GH_TOKEN=fake-token", "GITHUB_API_URL="+g.URL, "GITHUB_REPOSITORY=shop/api",
		"GITHUB_EVENT_PATH="+event, "RUNNER_TEMP="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("post-review.sh: %v\n%s", err, out)
	}
	return string(out)
}

const reviewMarker = "<!-- contractlint:review -->"

func reviewJSON(body string, comments ...string) string {
	var cs []string
	for i, c := range comments {
		cs = append(cs, fmt.Sprintf(`{"path": "shop.proto", "line": %d, "side": "RIGHT", "body": %q}`, i+6, c))
	}
	return fmt.Sprintf(`{"event": "COMMENT", "body": %q, "comments": [%s]}`, reviewMarker+"\n"+body, strings.Join(cs, ", "))
}

const someFindings = `{"summary": {"findings": 1}}`

// TestPostReview: the first run posts one review on the pull request's
// head; a rerun with the same review posts nothing; a changed review with
// no comments updates the earlier one in place, its stale suggestion
// deleted; a changed review with comments is posted and the earlier one
// emptied, so one live review remains.
func TestPostReview(t *testing.T) {
	needScriptTools(t)
	g := newFakeGitHub(t)
	first := reviewJSON("1 finding", "```suggestion\n  reserved 2;\n```")
	postReview(t, g, first, someFindings)
	if w := g.writes(); !slices.Equal(w, []string{"POST 7/reviews"}) {
		t.Fatalf("first run wrote %q, want one review posted", w)
	}
	rv := g.reviews[0]
	if rv.CommitID != strings.Repeat("f", 40) || rv.Event != "COMMENT" || len(rv.Comments) != 1 ||
		!strings.HasPrefix(rv.Body, reviewMarker) || !strings.Contains(rv.Body, "contractlint:digest:") {
		t.Fatalf("posted review %+v: want a COMMENT on the head commit, its comment, the marker and the digest", rv)
	}
	stale := rv.Comments[0].ID

	out := postReview(t, g, first, someFindings)
	if w := g.writes(); len(w) != 0 || !strings.Contains(out, "unchanged") {
		t.Errorf("a rerun wrote %q (%s), want nothing", w, out)
	}

	postReview(t, g, reviewJSON("1 finding, not on the diff"), someFindings)
	want := []string{fmt.Sprintf("DELETE comments/%d", stale), fmt.Sprintf("PUT 7/reviews/%d", rv.ID)}
	if w := g.writes(); !slices.Equal(w, want) {
		t.Errorf("a changed review without comments wrote %q, want %q", w, want)
	}
	if len(g.reviews) != 1 || len(rv.Comments) != 0 || !strings.Contains(rv.Body, "not on the diff") {
		t.Errorf("reviews %+v: want the one review, updated, its stale suggestion gone", g.reviews)
	}

	postReview(t, g, reviewJSON("2 findings", "a", "b"), someFindings)
	want = []string{"POST 7/reviews", fmt.Sprintf("PUT 7/reviews/%d", rv.ID)}
	if w := g.writes(); !slices.Equal(w, want) {
		t.Errorf("a changed review with comments wrote %q, want %q", w, want)
	}
	if len(g.reviews) != 2 || len(g.reviews[1].Comments) != 2 || !strings.Contains(rv.Body, "Superseded") {
		t.Errorf("reviews %+v: want the new one with 2 comments and the old one superseded", g.reviews)
	}
}

// TestPostReviewQuiet: no findings and no earlier review post nothing.
func TestPostReviewQuiet(t *testing.T) {
	needScriptTools(t)
	g := newFakeGitHub(t)
	postReview(t, g, reviewJSON("no findings"), `{"summary": {"findings": 0}}`)
	if w := g.writes(); len(w) != 0 {
		t.Errorf("wrote %q with nothing to say", w)
	}
}

// TestPostReviewUnplaceable: when GitHub refuses the comments (a line its
// diff does not show), the review is posted with them in its body.
func TestPostReviewUnplaceable(t *testing.T) {
	needScriptTools(t)
	g := newFakeGitHub(t)
	g.rejectComments = true
	postReview(t, g, reviewJSON("1 finding", "reserve it"), someFindings)
	if len(g.reviews) != 1 || len(g.reviews[0].Comments) != 0 || !strings.Contains(g.reviews[0].Body, "- `shop.proto:6` reserve it") {
		t.Errorf("reviews %+v: want one, its comment in the body", g.reviews)
	}
}

// TestPostReviewForbidden: a read-only token (a fork's) warns and fails
// nothing.
func TestPostReviewForbidden(t *testing.T) {
	needScriptTools(t)
	g := newFakeGitHub(t)
	g.forbidden = true
	out := postReview(t, g, reviewJSON("1 finding", "x"), someFindings)
	if !strings.Contains(out, "::warning title=contractlint::could not read the pull request review") || !strings.Contains(out, "  github: ") {
		t.Errorf("output:\n%s\nwant a warning with GitHub's answer indented", out)
	}
}

// TestActionSuggestions runs the Action with suggestions: true on a pull
// request that redefines a proto field: its one review carries a comment on
// the field's line suggesting the expand step.
func TestActionSuggestions(t *testing.T) {
	needScriptTools(t)
	need(t, "go")
	actionBuild(t)
	top := repoTop(t)
	act := readAction(t, top)
	tmp := t.TempDir()
	work, base := pullRequest(t, tmp)
	r := newFakeRunner(t, act, top, work, tmp, base)
	g := newFakeGitHub(t)
	r.env = append(r.env, "GITHUB_API_URL="+g.URL)
	r.inputs["suggestions"] = "true"
	if stdout, status := r.run(act); status != 1 {
		t.Fatalf("the review step exited %d, want 1:\n%s", status, stdout)
	}
	if len(g.reviews) != 1 || len(g.reviews[0].Comments) != 1 {
		t.Fatalf("reviews %+v, want one with one comment\n%s", g.reviews, r.log.String())
	}
	c := g.reviews[0].Comments[0]
	want := "```suggestion\n  double price = 2;\n  string price_v2 = 3;\n```"
	if c.Path != "api/shop.proto" || c.Line != 5 || c.Side != "RIGHT" || !strings.Contains(c.Body, want) {
		t.Errorf("comment %+v, want on api/shop.proto:5 with\n%s", c, want)
	}
}
