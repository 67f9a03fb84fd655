package timeline_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractlint/contractlint/internal/timeline"
)

// reviewJSON is what review --format json says, as far as the test compares.
type reviewJSON struct {
	Findings []struct {
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		File     string `json:"file"`
		Line     int    `json:"line"`
		Side     string `json:"side"`
	} `json:"findings"`
}

// changelogJSON is what review --changelog --format json says.
type changelogJSON struct {
	Groups []struct {
		Release  string `json:"release"`
		Contract string `json:"contract"`
		Kind     string `json:"kind"`
		Name     string `json:"name"`
		Entries  []struct {
			Change string `json:"change"`
			Path   string `json:"path"`
			File   string `json:"file"`
			Line   int    `json:"line"`
			Side   string `json:"side"`
		} `json:"entries"`
	} `json:"groups"`
}

func decode(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// reviewed keeps review's output by directory and arguments: the repositories
// reviewed do not change, and the head's step from the last release is the
// head's comparison with it, the same review asked twice.
var reviewed sync.Map

// review runs contractlint review in dir with args, once.
func review(t *testing.T, dir string, args ...string) string {
	t.Helper()
	key := dir + "\x00" + strings.Join(args, "\x00")
	if out, ok := reviewed.Load(key); ok {
		return out.(string)
	}
	out, _ := run(t, dir, append([]string{"review"}, args...)...)
	reviewed.Store(key, out)
	return out
}

func reviewFindings(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	out := review(t, dir, append([]string{"--format", "json"}, args...)...)
	var r reviewJSON
	decode(t, out, &r)
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s %s:%d(%s): %s", f.Severity, f.Rule, f.File, f.Line, f.Side, f.Message))
	}
	slices.Sort(got)
	return got
}

func reportFindings(fs []timeline.Finding) []string {
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s %s %s:%d(%s): %s", f.Severity, f.Rule, f.File, f.Line, f.Side, f.Message))
	}
	slices.Sort(got)
	return got
}

// reviewChanges lists review --changelog's entries; release "" stands for
// since, when the log covers one comparison.
func reviewChanges(t *testing.T, dir, since string, args ...string) []string {
	t.Helper()
	out := review(t, dir, append([]string{"--changelog", "--format", "json"}, args...)...)
	var l changelogJSON
	decode(t, out, &l)
	var got []string
	for _, g := range l.Groups {
		name := g.Name
		if name == "" {
			name = g.Contract
		}
		rel := g.Release
		if rel == "" {
			rel = since
		}
		for _, e := range g.Entries {
			got = append(got, fmt.Sprintf("since %s: %s %s %s: %s %s %s:%d(%s)", rel, g.Contract, g.Kind, name, e.Change, e.Path, e.File, e.Line, e.Side))
		}
	}
	slices.Sort(got)
	return got
}

func reportChanges(steps ...timeline.Step) []string {
	var got []string
	for _, st := range steps {
		for _, c := range st.Changes {
			got = append(got, fmt.Sprintf("since %s: %s %s %s: %s %s %s:%d(%s)", st.From, c.Contract, c.Kind, c.Element, c.Action, c.Path, c.File, c.Line, c.Side))
		}
	}
	slices.Sort(got)
	return got
}

// TestHistoryIsReview: on a real repository with five releases of an
// OpenAPI and a proto contract, the history holds every finding and every
// changelog entry review reports, for each consecutive pair (review --base
// in a checkout of the later release) and for the head against every
// release (review --against-tags); compared with review's own output,
// not with counts written down here.
func TestHistoryIsReview(t *testing.T) {
	five := fiveReleases.get(t)
	top, r := five.top, five.r
	ev := []string{"--readers", "evidence"}

	var names []string
	for _, rel := range r.Releases {
		names = append(names, rel.Name)
		if rel.OldestSupported != (rel.Name == "v3.0.0") || rel.Supported != (rel.Name == "v3.0.0") {
			t.Errorf("release %s: supported %v, oldest supported %v; want only v3.0.0 both", rel.Name, rel.Supported, rel.OldestSupported)
		}
	}
	if want := []string{"v1.0.0", "v2.0.0", "v3.0.0", "v4.0.0", "v5.0.0", timeline.HeadName}; !slices.Equal(names, want) {
		t.Fatalf("releases %v, want %v", names, want)
	}

	against := append([]string{"--against-tags", "v*"}, ev...)
	if d := cmp.Diff(reviewFindings(t, top, against...), reportFindings(r.Breaks)); d != "" {
		t.Errorf("breaks differ from review --against-tags (-review +history):\n%s", d)
	}
	if d := cmp.Diff(reviewChanges(t, top, "", against...), reportChanges(r.AgainstHead...)); d != "" {
		t.Errorf("the head's changes differ from review --against-tags --changelog (-review +history):\n%s", d)
	}
	var fromHead []timeline.Finding
	for _, st := range r.AgainstHead {
		fromHead = append(fromHead, st.Findings...)
		if d := cmp.Diff(reviewFindings(t, top, append([]string{"--base", st.From}, ev...)...), reportFindings(st.Findings)); d != "" {
			t.Errorf("head against %s differs from review --base (-review +history):\n%s", st.From, d)
		}
	}

	if len(r.Steps) != 5 {
		t.Fatalf("%d steps, want 5 (each release against the one before, the head against the last)", len(r.Steps))
	}
	formats := map[string]int{}
	var all []timeline.Finding
	// One worktree checks out each release in turn: a checkout rewrites
	// only what differs, where a worktree per release cost three git starts.
	wt := ""
	for i, st := range r.Steps {
		if want := names[i] + " " + names[i+1]; st.From+" "+st.To != want {
			t.Errorf("step %d compares %s -> %s, want %s", i, st.From, st.To, want)
		}
		dir := top
		switch {
		case st.To == timeline.HeadName:
		case wt == "":
			wt = filepath.Join(t.TempDir(), "wt")
			git(t, top, "worktree", "add", "-q", "--detach", wt, st.To)
			dir = wt
		default:
			git(t, wt, "checkout", "-q", "--detach", st.To)
			dir = wt
		}
		base := append([]string{"--base", st.From}, ev...)
		if d := cmp.Diff(reviewFindings(t, dir, base...), reportFindings(st.Findings)); d != "" {
			t.Errorf("%s -> %s: findings differ from review --base in a checkout (-review +history):\n%s", st.From, st.To, d)
		}
		if d := cmp.Diff(reviewChanges(t, dir, st.From, base...), reportChanges(st)); d != "" {
			t.Errorf("%s -> %s: changes differ from review --base --changelog in a checkout (-review +history):\n%s", st.From, st.To, d)
		}
		for _, c := range st.Counts {
			formats[c.Format] += c.Changes
		}
		all = append(all, st.Findings...)
	}
	// The story is all there: both formats change, and the evidence and
	// meanings the page shows are attached where they belong.
	if formats["openapi"] == 0 || formats["proto"] == 0 {
		t.Errorf("changes per format %v: want both formats to change", formats)
	}
	all = append(all, fromHead...)
	if !slices.ContainsFunc(all, func(f timeline.Finding) bool {
		return f.Rule == "field-removed-while-read" && slices.ContainsFunc(f.Readers, func(r timeline.Reader) bool {
			return r.Consumer == "ios-app" && r.Active && r.LastSeen == "2026-11-28"
		})
	}) {
		t.Errorf("no field-removed-while-read finding carries ios-app's reading of note")
	}
	if !slices.ContainsFunc(all, func(f timeline.Finding) bool {
		return f.Rule == "field-redefined" && slices.ContainsFunc(f.Meaning, func(x timeline.Fact) bool {
			return x.Name == "unit" && x.Old == "dollars" && x.New == "cents" && x.Changed
		})
	}) {
		t.Errorf("no field-redefined finding sets price's unit dollars beside cents")
	}
	// Each release shows the bump it needed against the one it declared:
	// info.version went 1 → 2 (a major bump) while shop.v1 kept its
	// package through v3's removal of note.
	versions := map[string]timeline.Version{}
	for _, st := range r.Steps {
		for _, v := range st.Versions {
			versions[st.To+" "+v.What] = v
		}
	}
	if v := versions["v2.0.0 info.version"]; v.Old != "1" || v.New != "2" || v.Declared != "major" || v.Short {
		t.Errorf("v2.0.0's info.version: %+v, want 1 → 2 declaring a major bump, enough", v)
	}
	if v := versions["v3.0.0 package shop"]; v.Needed != "major" || v.Declared != "none" || !v.Short {
		t.Errorf("v3.0.0's package shop: %+v, want a major bump needed and none declared", v)
	}
	for _, b := range r.Breaks {
		if b.Breaking && (b.Oldest == "" || !strings.Contains(b.Message, b.Oldest)) {
			t.Errorf("break %s %q: oldest release %q, which its message does not name", b.Rule, b.Message, b.Oldest)
		}
	}
}

// TestHistoryPageHoldsEverything: the HTML page shows every finding and
// every change of the JSON it is drawn from.
func TestHistoryPageHoldsEverything(t *testing.T) {
	// One run wrote the page and the JSON it is held to.
	five := fiveReleases.get(t)
	r := five.r
	b, err := os.ReadFile(five.page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	miss := func(what, s string) {
		if !strings.Contains(html, escapeText(s)) {
			t.Errorf("the page lacks %s %q", what, s)
		}
	}
	for _, rel := range r.Releases {
		miss("release", rel.Name)
	}
	for _, f := range r.Breaks {
		miss("break", f.Message)
	}
	for _, st := range r.Steps {
		for _, f := range st.Findings {
			miss("finding", f.Message)
			if f.Link == "" || !strings.Contains(html, `href="`+escapeText(f.Link)+`"`) {
				t.Errorf("finding %q: no link to %q on the page", f.Message, f.Link)
			}
		}
		for _, c := range st.Changes {
			miss("change", c.What)
		}
		for _, v := range st.Versions {
			miss("version", fmt.Sprintf("%s %s → %s: needs %s, declared %s", v.What, v.Old, v.New, v.Needed, v.Declared))
		}
	}
	if n := strings.Count(html, "<script"); n != 1 {
		t.Errorf("the page has %d scripts, want its one inline filter", n)
	}
}

// escapeText is html/template's escaping of text.
func escapeText(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", `'`, "&#39;", `+`, "&#43;").Replace(s)
}

// TestHistorySupportedByEvidence: without --supported, the releases usage
// evidence shows called within the window are the supported ones; the
// head is compared with those only, and every release is still a step.
func TestHistorySupportedByEvidence(t *testing.T) {
	top := newTop(t)
	buildRepo(t, top, "testdata/five-releases.txtar")
	write(t, filepath.Join(top, "calls", "usage.csv"), []byte("consumer,operation,field,reads,last_seen\n"+
		"ios@v2.0.0,GET /orders/{id},id,10,2026-01-03\nios@v4.0.0,GET /orders/{id},id,10,2026-11-30\n"))
	r := history(t, top, "--readers", "calls")
	var marks []string
	for _, rel := range r.Releases {
		marks = append(marks, fmt.Sprintf("%s supported=%v oldest=%v skipped=%v", rel.Name, rel.Supported, rel.OldestSupported, rel.Skipped))
	}
	want := []string{
		"v1.0.0 supported=false oldest=false skipped=true", "v2.0.0 supported=false oldest=false skipped=true",
		"v3.0.0 supported=false oldest=false skipped=true", "v4.0.0 supported=true oldest=true skipped=false",
		"v5.0.0 supported=false oldest=false skipped=true", "HEAD supported=false oldest=false skipped=false",
	}
	if d := cmp.Diff(want, marks); d != "" {
		t.Errorf("releases (-want +got):\n%s", d)
	}
	if len(r.AgainstHead) != 1 || r.AgainstHead[0].From != "v4.0.0" || len(r.Steps) != 5 {
		t.Errorf("against the head %d comparisons, steps %d; want only v4.0.0's, and all 5 steps", len(r.AgainstHead), len(r.Steps))
	}
}

// TestHistoryReleaseAtHead: with the last release tagged at the head, its
// step from the release before is what review --base reports there, and
// the head's own step and comparison with that release are the same
// findings and changes.
func TestHistoryReleaseAtHead(t *testing.T) {
	top := newTop(t)
	buildRepo(t, top, "testdata/tagged-head.txtar")
	r := history(t, top)
	if len(r.Steps) != 2 || len(r.AgainstHead) != 2 {
		t.Fatalf("%d steps and %d comparisons with the head, want 2 and 2", len(r.Steps), len(r.AgainstHead))
	}
	st := r.Steps[0]
	if st.From != "v1.0.0" || st.To != "v2.0.0" || len(st.Findings) == 0 || len(st.Changes) == 0 {
		t.Fatalf("step %s -> %s with %d findings and %d changes, want v1.0.0 -> v2.0.0 with both", st.From, st.To, len(st.Findings), len(st.Changes))
	}
	base := []string{"--base", st.From}
	if d := cmp.Diff(reviewFindings(t, top, base...), reportFindings(st.Findings)); d != "" {
		t.Errorf("findings differ from review --base at the head (-review +history):\n%s", d)
	}
	if d := cmp.Diff(reviewChanges(t, top, st.From, base...), reportChanges(st)); d != "" {
		t.Errorf("changes differ from review --base --changelog at the head (-review +history):\n%s", d)
	}
	for _, h := range r.AgainstHead {
		if h.From == st.From && !cmp.Equal(reportFindings(h.Findings), reportFindings(st.Findings)) {
			t.Errorf("the head against %s and the step to %s, the same commit, differ", st.From, st.To)
		}
	}
}
