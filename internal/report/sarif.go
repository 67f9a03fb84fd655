package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// SARIF writes SARIF 2.1.0 for GitHub code scanning and other viewers.
type SARIF struct {
	// MaxResults bounds the results (0: code scanning's limit).
	MaxResults int
	// Root is the directory %SRCROOT% stands for (the top of the git work
	// tree), Dir the one the report's file names are relative to; both
	// absolute, or both "" when the names are already Root-relative.
	Root, Dir string
}

// sarifMaxResults is GitHub code scanning's hard limit per run: a bigger
// file is rejected outright, so the least severe findings are left out.
const sarifMaxResults = 25000

// srcRoot is the base every artifact URI is relative to; GitHub resolves it
// to the checkout.
const srcRoot = "%SRCROOT%"

// fingerprintKey names our partialFingerprints entry; the version lets the
// recipe change without matching old alerts wrongly.
const fingerprintKey = "contractlintFinding/v1"

// changeFingerprintKey holds the change's fingerprint, the one a waiver
// names (`contractlint waive --fingerprint`).
const changeFingerprintKey = "contractlintChange/v1"

type sarifLog struct {
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	// Provenance names the base a review compared against.
	Provenance []sarifVersionControl `json:"versionControlProvenance,omitempty"`
	Results    []sarifResult         `json:"results"`
	// Properties name the base even when provenance cannot (no remote).
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifVersionControl struct {
	RepositoryURI string            `json:"repositoryUri"`
	RevisionID    string            `json:"revisionId,omitempty"`
	Branch        string            `json:"branch,omitempty"`
	Properties    map[string]string `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version,omitempty"`
	Rules   []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     sarifMultiText     `json:"shortDescription"`
	FullDescription      *sarifMultiText    `json:"fullDescription,omitempty"`
	Help                 *sarifMultiText    `json:"help,omitempty"`
	DefaultConfiguration sarifRuleConfig    `json:"defaultConfiguration"`
	Properties           *sarifRuleProperty `json:"properties,omitempty"`
}

type sarifRuleProperty struct {
	Tags []string `json:"tags,omitempty"`
}

type sarifMultiText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          *sarifResultProps `json:"properties,omitempty"`
	// Suppressions mark a waived finding: code scanning shows it dismissed,
	// with the waiver's justification.
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

type sarifResultProps struct {
	// Bump is the version bump the finding's change needs.
	Bump       rules.Bump `json:"bump"`
	Operations []string   `json:"operations,omitempty"`
	// Direction is backward or forward under --compat forward or full.
	Direction string `json:"direction,omitempty"`
	// Usage is what consumer evidence says of the removed element.
	Usage *rules.Usage `json:"usage,omitempty"`
	// Related is what the findings about the same edit this one stands
	// for said (one edit, one finding).
	Related []rules.Related `json:"related,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifMessage         `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

func (s SARIF) Write(w io.Writer, r *Report) error {
	r = s.rebased(r)
	limit := s.MaxResults
	if limit <= 0 {
		limit = sarifMaxResults
	}
	kept := keepMostSevere(r.Findings, limit)
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: toolName(r), Version: r.Version, Rules: []sarifRule{}}}}
	ruleIndex := map[string]int{}
	var waived []rules.Finding
	for _, w := range r.Waived {
		waived = append(waived, w.Finding)
	}
	for _, id := range usedRules(append(slices.Clone(kept), waived...)) {
		ruleIndex[id] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(r.Rules, id))
	}
	seen := map[string]int{}
	run.Results = make([]sarifResult, 0, len(kept))
	for _, f := range kept {
		run.Results = append(run.Results, sarifResultFor(f, ruleIndex[f.Rule], seen))
	}
	for _, w := range r.Waived {
		res := sarifResultFor(w.Finding, ruleIndex[w.Finding.Rule], seen)
		res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: Clean(w.Justification)}}
		run.Results = append(run.Results, res)
	}
	var notes []sarifNotification
	for _, n := range r.Notes {
		notes = append(notes, sarifNotification{Level: "note", Message: sarifMessage{Text: Clean(n)}})
	}
	if left := len(r.Findings) - len(kept); left > 0 {
		notes = append(notes, sarifNotification{
			Level:   "warning",
			Message: sarifMessage{Text: fmt.Sprintf("%d less severe findings left out: at most %d results are written per run", left, limit)},
		})
	}
	if len(notes) > 0 {
		run.Invocations = []sarifInvocation{{ExecutionSuccessful: true, Notifications: notes}}
	}
	if v := r.Review; v != nil && len(v.NotReviewed) > 0 {
		inv := sarifInvocation{ExecutionSuccessful: true}
		if len(run.Invocations) > 0 {
			inv = run.Invocations[0]
		}
		for _, n := range v.NotReviewed {
			inv.Notifications = append(inv.Notifications, sarifNotification{Level: "warning", Message: sarifMessage{Text: "not reviewed: " + Clean(n)}})
		}
		run.Invocations = []sarifInvocation{inv}
	}
	if len(r.Problems) > 0 {
		inv := sarifInvocation{ExecutionSuccessful: false}
		if len(run.Invocations) > 0 {
			inv.Notifications = run.Invocations[0].Notifications
		}
		for _, p := range r.Problems {
			n := sarifNotification{Level: "error", Message: sarifMessage{Text: Clean(p.Msg)}}
			if p.File != "" {
				n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysical(rules.Location{File: p.File, Line: p.Line, Column: p.Column})}}
			}
			inv.Notifications = append(inv.Notifications, n)
		}
		run.Invocations = []sarifInvocation{inv}
	}
	if v := r.Review; v != nil {
		run.Properties = map[string]string{"comparedAgainst": Clean(v.Base), "baseRef": Clean(v.BaseRef), "baseCommit": v.BaseCommit}
	}
	if v := r.Review; v != nil && v.RepositoryURI != "" {
		run.Provenance = []sarifVersionControl{{RepositoryURI: v.RepositoryURI, RevisionID: v.BaseCommit,
			Branch: Clean(v.BaseRef), Properties: map[string]string{"role": "base", "comparedAgainst": Clean(v.Base)}}}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Version: "2.1.0", Runs: []sarifRun{run}})
}

func toolName(r *Report) string {
	if r.Tool == "" {
		return "contractlint"
	}
	return r.Tool
}

// keepMostSevere returns at most limit findings, dropping the least severe
// first, in their original order.
func keepMostSevere(fs []rules.Finding, limit int) []rules.Finding {
	if len(fs) <= limit {
		return fs
	}
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(fs[b].Severity) - int(fs[a].Severity) })
	order = order[:limit]
	slices.Sort(order)
	kept := make([]rules.Finding, len(order))
	for i, j := range order {
		kept[i] = fs[j]
	}
	return kept
}

// usedRules lists the rule IDs findings name, sorted, each once.
func usedRules(fs []rules.Finding) []string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func sarifLevel(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "error"
	case rules.Warning:
		return "warning"
	}
	return "note"
}

// sarifRuleFor describes rule id from its documentation. Code scanning
// wants a short and a full description and help text on every rule, so a
// finding whose rule is not registered (an engine finding such as
// unused-ignore, when the registry lacks it) gets them too, pointing at the
// command that documents it.
func sarifRuleFor(reg *rules.Registry, id string) sarifRule {
	rule, ok := ruleDoc(reg, id)
	if !ok {
		about := "Reported by contractlint; `contractlint rules " + id + "` documents it."
		return sarifRule{ID: Clean(id), ShortDescription: sarifMultiText{Text: Clean(id)},
			FullDescription:      &sarifMultiText{Text: Clean(about)},
			Help:                 &sarifMultiText{Text: Clean(about)},
			DefaultConfiguration: sarifRuleConfig{Level: "warning"}}
	}
	title := cmpOr(rule.Doc.Title, rule.ID)
	doc := cmpOr(rule.Doc.Text, title)
	out := sarifRule{
		ID:                   Clean(rule.ID),
		ShortDescription:     sarifMultiText{Text: Clean(title)},
		FullDescription:      &sarifMultiText{Text: doc},
		Help:                 &sarifMultiText{Text: helpText(rule, doc), Markdown: helpMarkdown(rule, doc)},
		DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(rule.Severity)},
	}
	if rule.Pack != "" {
		out.Properties = &sarifRuleProperty{Tags: []string{string(rule.Pack)}}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func helpText(rule *rules.Rule, doc string) string {
	var b strings.Builder
	b.WriteString(doc)
	if rule.Doc.Bad != "" {
		fmt.Fprintf(&b, "\n\nBad:\n%s", strings.TrimRight(rule.Doc.Bad, "\n"))
	}
	if rule.Doc.Good != "" {
		fmt.Fprintf(&b, "\n\nGood:\n%s", strings.TrimRight(rule.Doc.Good, "\n"))
	}
	return b.String()
}

func helpMarkdown(rule *rules.Rule, doc string) string {
	var b strings.Builder
	b.WriteString(doc)
	for _, ex := range []struct{ name, body string }{{"Bad", rule.Doc.Bad}, {"Good", rule.Doc.Good}} {
		if ex.body == "" {
			continue
		}
		fence := codeFence(ex.body)
		fmt.Fprintf(&b, "\n\n%s:\n\n%s\n%s\n%s", ex.name, fence, strings.TrimRight(ex.body, "\n"), fence)
	}
	return b.String()
}

// codeFence returns a backtick fence longer than any run of backticks in s,
// so an example can never close its own block.
func codeFence(s string) string {
	return strings.Repeat("`", max(3, longestBackticks(s)+1))
}

func longestBackticks(s string) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

func sarifResultFor(f rules.Finding, ruleIndex int, seen map[string]int) sarifResult {
	res := sarifResult{
		RuleID:              Clean(f.Rule),
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(f.Severity),
		Message:             sarifMessage{Text: Clean(cmpOr(f.Message, f.Rule) + removedNote(f))},
		PartialFingerprints: map[string]string{fingerprintKey: fingerprint(f, seen), changeFingerprintKey: f.ChangeFingerprint()},
	}
	if f.Removed {
		// Where is a line of the OLD file: the alert belongs to the file as it
		// is now (at the anchor, else its first line), with the removed lines
		// as related location.
		at, _ := shownAt(f)
		res.Locations = []sarifLocation{{PhysicalLocation: sarifPrimary(at)}}
		res.RelatedLocations = []sarifLocation{relatedOld(f.Where, "removed from the base version here")}
	} else {
		res.Locations = []sarifLocation{{PhysicalLocation: sarifPrimary(f.Where)}}
		if f.Old != nil {
			res.RelatedLocations = []sarifLocation{relatedOld(*f.Old, "the base version")}
		}
	}
	res.Properties = &sarifResultProps{Bump: bumpOf(f), Operations: cleanAll(f.Operations), Direction: f.Compat.String(),
		Usage: cleanUsage(f.Usage), Related: cleanRelated(f.Related)}
	return res
}

func relatedOld(l rules.Location, what string) sarifLocation {
	id := 1
	return sarifLocation{ID: &id, PhysicalLocation: sarifPhysical(l), Message: &sarifMessage{Text: what}}
}

// sarifPrimary is the location an alert is shown at. Code scanning places an
// alert only by its region's startLine, so a finding about a whole file (or
// a removal) is shown on line 1 rather than dropped or rejected.
func sarifPrimary(l rules.Location) sarifPhysicalLocation {
	if l.Line < 1 {
		l.Line, l.Column = 1, 0
	}
	return sarifPhysical(l)
}

func sarifPhysical(l rules.Location) sarifPhysicalLocation {
	p := sarifPhysicalLocation{ArtifactLocation: sarifArtifact{URI: fileURI(l.File), URIBaseID: srcRoot}}
	if strings.HasPrefix(l.File, fileScheme) {
		// Outside the root %SRCROOT% stands for (see place): an absolute
		// URI, which a relative one with ../ would only pretend to place.
		p.ArtifactLocation = sarifArtifact{URI: l.File}
	}
	if l.Line > 0 {
		p.Region = &sarifRegion{StartLine: l.Line, StartColumn: max(l.Column, 0)}
	}
	return p
}

// rebased is r with every file named relative to Root: a name relative to
// a working directory below it (diff run in a subdirectory: ../api.yaml)
// would place the alert in the wrong file, or be rejected, since code
// scanning resolves %SRCROOT% to the checkout. A file outside Root keeps
// its absolute name, which sarifPhysical writes as a file URI.
func (s SARIF) rebased(r *Report) *Report {
	if s.Root == "" {
		return r
	}
	out := *r
	loc := func(l rules.Location) rules.Location {
		l.File = s.place(l.File)
		return l
	}
	fix := func(f rules.Finding) rules.Finding {
		f.Where = loc(f.Where)
		if f.Old != nil {
			old := loc(*f.Old)
			f.Old = &old
		}
		if f.Anchor != nil {
			anchor := loc(*f.Anchor)
			f.Anchor = &anchor
		}
		return f
	}
	out.Findings = make([]rules.Finding, len(r.Findings))
	for i, f := range r.Findings {
		out.Findings[i] = fix(f)
	}
	out.Waived = make([]Waived, len(r.Waived))
	for i, w := range r.Waived {
		w.Finding = fix(w.Finding) // whatever else it says (InPR) stays
		out.Waived[i] = w
	}
	out.Problems = make([]Problem, len(r.Problems))
	for i, p := range r.Problems {
		if p.File != "" {
			p.File = s.place(p.File)
		}
		out.Problems[i] = p
	}
	return &out
}

// fileScheme starts the name place gives a file outside Root: a cleaned
// relative name never holds "//".
const fileScheme = "file://"

// place names a file relative to Root (slash-separated), or by an absolute
// file URI when it lies outside.
func (s SARIF) place(name string) string {
	if name == "" {
		return name
	}
	abs := filepath.FromSlash(name)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.Dir, abs)
	}
	rel, err := filepath.Rel(s.Root, abs)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// fileURI turns a repo-relative slash path into a relative URI reference:
// each segment percent-encoded, so a name with spaces, `#`, `?` or a colon
// in its first segment stays one relative path.
func fileURI(file string) string {
	file = strings.TrimLeft(strings.ReplaceAll(file, `\`, "/"), "/")
	if file == "" {
		return "."
	}
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}

// fingerprint identifies a finding across runs without its line, so an alert
// survives lines moving above it; a repeat of the same identity in one run
// gets an ordinal so distinct findings never share a fingerprint.
func fingerprint(f rules.Finding, seen map[string]int) string {
	h := sha256.New()
	for _, part := range []string{f.Rule, f.Where.File, f.Message, f.Path} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	sum := hex.EncodeToString(h.Sum(nil))[:32]
	seen[sum]++
	if n := seen[sum]; n > 1 {
		return fmt.Sprintf("%s:%d", sum, n)
	}
	return sum
}
