package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/contractlint/contractlint/internal/fix"
	"github.com/contractlint/contractlint/rules"
)

// GitHubReview writes the body of one pull request review (POST
// /repos/{owner}/{repo}/pulls/{number}/reviews): a comment on each finding
// whose line the pull request's diff shows, carrying each fix internal/fix
// knows as a ```suggestion block on the lines it replaces, and every other
// finding listed in the review's body. The Action posts it (suggestions:
// true) and updates its earlier review, found by ReviewMarker.
type GitHubReview struct {
	// Sources gives both sides' text; without it nothing can be quoted or
	// placed on the diff, and every finding goes in the body.
	Sources  Sources
	RulesURL string
	// MaxComments bounds the inline comments (0: reviewComments).
	MaxComments int
}

// ReviewMarker starts the body of every review contractlint writes, so the
// Action finds its own review again.
const ReviewMarker = "<!-- contractlint:review -->"

// reviewComments bounds the inline comments of one review: GitHub takes at
// most 50 annotations per request, and a review of more buries the diff.
const reviewComments = 50

type ghReview struct {
	Event    string            `json:"event"`
	Body     string            `json:"body"`
	Comments []ghReviewComment `json:"comments"`
}

type ghReviewComment struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line,omitempty"`
	StartSide string `json:"start_side,omitempty"`
	Line      int    `json:"line"`
	Side      string `json:"side"`
	Body      string `json:"body"`
}

// reviewFile is one file's text on both sides and the head lines its diff
// shows.
type reviewFile struct {
	head  string
	base  string
	shown map[int]bool
}

func (g GitHubReview) Write(w io.Writer, r *Report) error {
	limit := g.MaxComments
	if limit <= 0 {
		limit = reviewComments
	}
	files := map[string]*reviewFile{}
	var comments []ghReviewComment
	var inBody []rules.Finding
	over := 0 // findings past the comment limit, most severe first
	for _, f := range bySeverity(r.Findings) {
		cs := g.comments(r.Rules, &f, g.file(files, &f))
		switch {
		case len(cs) == 0:
			inBody = append(inBody, f)
		case len(comments)+len(cs) > limit:
			over++
			inBody = append(inBody, f)
		default:
			comments = append(comments, cs...)
		}
	}
	out := ghReview{Event: "COMMENT", Body: g.body(r, inBody, over, limit), Comments: comments}
	if out.Comments == nil {
		out.Comments = []ghReviewComment{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// file reads f's file on both sides once; nil when the head cannot be read.
func (g GitHubReview) file(files map[string]*reviewFile, f *rules.Finding) *reviewFile {
	if g.Sources == nil || f.Removed || f.Where.File == "" || f.Where.Line < 1 {
		return nil
	}
	key := f.Where.File + "\x00" + fix.OldAt(f).File
	if rf, ok := files[key]; ok {
		return rf
	}
	var rf *reviewFile
	if head, err := g.Sources.Head(f.Where.File); err == nil {
		base, _ := g.Sources.Base(fix.OldAt(f).File)
		rf = &reviewFile{head: string(head), base: string(base), shown: diffLines(string(base), string(head))}
	}
	files[key] = rf
	return rf
}

// comments are f's inline comments: one per fix whose lines the diff
// shows, or one plain comment on f's line when none is; none when f's line
// is not in the diff.
func (g GitHubReview) comments(reg *rules.Registry, f *rules.Finding, rf *reviewFile) []ghReviewComment {
	if rf == nil || !rf.shown[f.Where.Line] {
		return nil
	}
	head := g.findingText(reg, f)
	var out []ghReviewComment
	var elsewhere []string
	for _, x := range fix.For(rf.head, rf.base, f) {
		c, ok := suggestion(rf, x)
		if !ok {
			elsewhere = append(elsewhere, x.Title)
			continue
		}
		c.Path = Clean(f.Where.File)
		c.Body = head + "\n\n" + markdownText(x.Title) + ":\n\n" + c.Body
		out = append(out, c)
	}
	if len(out) > 0 {
		return out
	}
	body := head
	for _, t := range elsewhere {
		body += "\n\nFix (in the editor: its lines are not all in this diff, or hold text not shown raw): " + markdownText(t)
	}
	return []ghReviewComment{{Path: Clean(f.Where.File), Line: f.Where.Line, Side: "RIGHT", Body: body}}
}

// suggestion places a one-edit fix: a replacement of lines on those lines,
// an insertion on the line above it (below it at the top of the file),
// which the suggestion repeats. It is not offered when a line is outside
// the diff, or when the text holds what a reader must not see raw.
func suggestion(rf *reviewFile, x fix.Fix) (ghReviewComment, bool) {
	if len(x.Edits) != 1 {
		return ghReviewComment{}, false
	}
	e := x.Edits[0]
	from, to, text := e.Start, e.End, strings.TrimSuffix(e.Text, "\n")
	if from == to {
		if from > 0 {
			from--
			text = fix.LineAt(rf.head, from) + "\n" + text
		} else {
			to++
			text += "\n" + fix.LineAt(rf.head, 0)
		}
	}
	for l := from + 1; l <= to; l++ {
		if !rf.shown[l] {
			return ghReviewComment{}, false
		}
	}
	if strings.ContainsFunc(text, func(r rune) bool { return r != '\n' && needsClean(r) }) {
		return ghReviewComment{}, false
	}
	fence := codeFence(text)
	c := ghReviewComment{Line: to, Side: "RIGHT", Body: fence + "suggestion\n" + text + "\n" + fence}
	if to-from > 1 {
		c.StartLine, c.StartSide = from+1, "RIGHT"
	}
	return c, true
}

// findingText is how a comment names a finding: its severity, rule (linked)
// and message, all escaped.
func (g GitHubReview) findingText(reg *rules.Registry, f *rules.Finding) string {
	rule := inlineCode(f.Rule)
	if g.RulesURL != "" && ruleIDRE.MatchString(f.Rule) {
		rule = "[" + rule + "](" + ruleLink(g.RulesURL, f.Rule) + ")"
	}
	title := ""
	if rd, ok := ruleDoc(reg, f.Rule); ok && rd.Doc.Title != "" {
		title = " (" + markdownText(rd.Doc.Title) + ")"
	}
	return fmt.Sprintf("**%s** %s%s: %s%s%s", f.Severity, rule, markdownText(compatLabel(*f)), markdownText(f.Message+removedNote(*f)), title, bumpNote(*f))
}

// body is the review's summary: the verdict, then every finding without an
// inline comment (over of them for want of room among the comments),
// within GitHub's comment size.
func (g GitHubReview) body(r *Report, inBody []rules.Finding, over, limit int) string {
	var b strings.Builder
	b.WriteString(ReviewMarker + "\n")
	s := r.Summarize()
	verdict := findingCounts(s)
	if r.Review != nil {
		verdict = "compared against " + markdownText(r.Review.Base) + ": " + r.Review.Outcome(s)
	}
	if bump := bumpLine(s); bump != "" {
		verdict += "; " + bump
	}
	fmt.Fprintf(&b, "### contractlint\n\n%s\n", verdict)
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "\n- cannot read %s: %s", inlineCode(fmt.Sprintf("%s:%d", p.File, p.Line)), markdownText(p.Msg))
	}
	// What the change accepted itself is listed before what the diff does
	// not show, so no budget can cut it.
	b.WriteString(acceptedSection(r.acceptedInPR()))
	if len(inBody) > 0 {
		b.WriteString("\nNot commented on a line: outside this pull request's diff")
		if over > 0 {
			fmt.Fprintf(&b, ", or %d past the %d comments of one review", over, limit)
		}
		b.WriteString(":\n\n")
	}
	hidden := 0
	for i, f := range inBody {
		at := f.Where.File
		if f.Where.Line > 0 {
			at += fmt.Sprintf(":%d", f.Where.Line)
		}
		line := fmt.Sprintf("- %s %s\n", inlineCode(at), g.findingText(r.Rules, &f))
		if b.Len()+len(line)+footerRoom > commentBudget {
			hidden += len(inBody) - i
			break
		}
		b.WriteString(line)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n%d more not shown: a review's body holds %d characters (`contractlint review --format text` lists them all).\n",
			hidden, commentBudget)
	}
	return b.String()
}
