package report

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// Markdown writes a pull-request comment: a heading with the counts, then
// one table per file with its findings, most severe first. Every string that
// came from a contract goes through markdownText first.
type Markdown struct {
	// RulesURL is where a rule ID links to: the list of rules.
	RulesURL string
	// MaxBytes bounds the output (0: unbounded); findings past it are
	// counted, not shown.
	MaxBytes int
}

// DefaultRulesURL is the page that lists every rule.
const DefaultRulesURL = "https://github.com/contractlint/contractlint/blob/main/docs/rules.md#every-rule"

// ruleLink is the rule's own anchor on the rules page: docs/rules.md gives
// every rule ID one, so a link lands on the rule, not on the list's top. An
// ID that is not kebab-case (none of ours) links the page as given.
func ruleLink(page, rule string) string {
	if !ruleIDRE.MatchString(rule) {
		return page
	}
	page, _, _ = strings.Cut(page, "#")
	return page + "#" + rule
}

var ruleIDRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// commentBudget keeps a PR comment under GitHub's 65,536-character limit.
const commentBudget = 60000

// footerRoom is kept free under MaxBytes for the overflow line and footer.
const footerRoom = 512

func (m *Markdown) Write(w io.Writer, r *Report) error {
	s := r.Summarize()
	var notes strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&notes, "\n_%s_\n", markdownText(n))
	}
	accepted := acceptedSection(r.acceptedInPR())
	if s.Findings == 0 {
		head := "no findings" + acceptedNote(s)
		if r.Review != nil {
			head = r.Review.Outcome(s)
		}
		_, err := io.WriteString(w, "## contractlint: "+head+"\n"+markdownBump(s)+reviewLines(r.Review)+notes.String()+accepted)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## contractlint: %s, %s, %s%s\n", plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"), acceptedNote(s))
	b.WriteString(markdownBump(s))
	b.WriteString(reviewLines(r.Review))
	b.WriteString(notes.String())
	b.WriteString(accepted)
	left := m.writeFiles(&b, groupByFile(r.Findings))
	if left > 0 {
		fmt.Fprintf(&b, "\n%s not shown here; run `contractlint` with `--format text` to see them all.\n", plural(left, "more finding"))
	}
	fmt.Fprintf(&b, "\nRule documentation: `contractlint rules RULE-ID`")
	if m.RulesURL != "" {
		fmt.Fprintf(&b, " or [the list of rules](%s)", m.RulesURL)
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFiles writes a section per file while the budget lasts and returns
// how many findings it had no room for. A file's header is written only
// with its first row, so a section is never empty.
func (m *Markdown) writeFiles(b *strings.Builder, files []fileFindings) (left int) {
	for i, file := range files {
		header := fileHeader(file.name)
		for j, f := range file.findings {
			row := m.row(f)
			need := len(row)
			if j == 0 {
				need += len(header)
			}
			if m.MaxBytes > 0 && b.Len()+need+footerRoom > m.MaxBytes {
				left = len(file.findings) - j
				for _, rest := range files[i+1:] {
					left += len(rest.findings)
				}
				return left
			}
			if j == 0 {
				b.WriteString(header)
			}
			b.WriteString(row)
		}
	}
	return 0
}

// acceptedSection lists the findings the change itself accepted, each with
// who accepted it and why; "" when there are none. It comes before the
// findings, so the comment's budget never cuts it.
func acceptedSection(ws []Waived) string {
	if len(ws) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Accepted in this PR\n\n")
	for _, w := range ws {
		f := w.Finding
		fmt.Fprintf(&b, "- %s %s: %s — %s\n", inlineCode(findingPlace(f)), inlineCode(f.Rule), markdownText(f.Message), markdownText(w.Justification))
	}
	return b.String()
}

// reviewLines names the base and what was not reviewed, under the heading.
func reviewLines(v *Review) string {
	if v == nil {
		return ""
	}
	s := "\nCompared against " + inlineCode(v.Base) + ".\n"
	for _, n := range v.NotReviewed {
		s += "\n**Not reviewed:** " + markdownText(n) + "\n"
	}
	return s
}

// inlineCode puts text in a code span, where Markdown, HTML and mentions
// are inert; the span's backticks outnumber any run inside it.
func inlineCode(s string) string {
	f := strings.Repeat("`", longestBackticks(s)+1)
	return f + " " + strings.ReplaceAll(Clean(s), "\n", " ") + " " + f
}

// markdownBump is the summary's line about the version the run needs.
func markdownBump(s Summary) string {
	if b := bumpLine(s); b != "" {
		return "\n" + strings.ToUpper(b[:1]) + b[1:] + ".\n"
	}
	return ""
}

func plural(n int, noun string) string {
	if n == 1 || noun == "info" {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

type fileFindings struct {
	name     string
	findings []rules.Finding
}

// groupByFile groups findings by file (files sorted), most severe first
// within a file, then by line.
func groupByFile(fs []rules.Finding) []fileFindings {
	by := map[string][]rules.Finding{}
	for _, f := range fs {
		by[f.Where.File] = append(by[f.Where.File], f)
	}
	out := make([]fileFindings, 0, len(by))
	for name, list := range by {
		slices.SortStableFunc(list, func(a, b rules.Finding) int {
			return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.Where.Line, b.Where.Line), cmp.Compare(a.Where.Column, b.Where.Column))
		})
		out = append(out, fileFindings{name, list})
	}
	slices.SortFunc(out, func(a, b fileFindings) int { return cmp.Compare(a.name, b.name) })
	return out
}

func fileHeader(name string) string {
	if name == "" {
		name = "(no file)"
	}
	return "\n### " + markdownText(name) + "\n\n| Severity | Line | Rule | Message |\n| --- | --- | --- | --- |\n"
}

func (m *Markdown) row(f rules.Finding) string {
	line := ""
	if f.Where.Line > 0 {
		line = fmt.Sprint(f.Where.Line)
		if f.Removed {
			line += " (base)"
		}
	}
	rule := markdownText(f.Rule)
	if m.RulesURL != "" {
		rule = "[" + rule + "](" + ruleLink(m.RulesURL, f.Rule) + ")"
	}
	rule += markdownText(compatLabel(f))
	msg := markdownText(f.Message)
	if f.Old != nil && f.Old.Line > 0 {
		msg += fmt.Sprintf(" (base version: line %d)", f.Old.Line)
	}
	if n := len(f.Operations); n > 1 {
		shown := make([]string, 0, operationsShown)
		for _, op := range f.Operations[:min(n, operationsShown)] {
			shown = append(shown, markdownText(op))
		}
		more := ""
		if n > operationsShown {
			more = fmt.Sprintf(", and %d more", n-operationsShown)
		}
		msg += fmt.Sprintf("<br>affects %d operations: %s%s", n, strings.Join(shown, ", "), more)
	}
	return fmt.Sprintf("| %s | %s | %s | %s |\n", f.Severity, line, rule, msg)
}
