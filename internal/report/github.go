package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// GitHub writes GitHub Actions workflow commands, one annotation a finding,
// and appends a Markdown job summary to $GITHUB_STEP_SUMMARY when it is set.
type GitHub struct {
	Getenv   func(string) string
	RulesURL string
}

// annotationsPerLevel is how many annotations of each level GitHub shows for
// one step; more are dropped silently, so we stop there and say so.
const annotationsPerLevel = 10

// summaryBudget keeps the job summary under GitHub's 1 MiB per step, with
// room for what other steps append to the same file.
const summaryBudget = 900 << 10

func (g *GitHub) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	if len(r.Problems) > 0 {
		// Nothing was compared: a finding count would read as a pass.
		for _, p := range r.Problems {
			fmt.Fprintln(bw, problemAnnotation(p))
		}
		fmt.Fprintf(bw, "contractlint: %s could not be read; nothing was compared\n", plural(len(r.Problems), "input problem"))
		return bw.Flush()
	}
	shown, hidden := g.annotate(bw, r)
	summaryPath := ""
	if g.Getenv != nil {
		summaryPath = g.Getenv("GITHUB_STEP_SUMMARY")
	}
	if len(hidden) > 0 {
		where := "run contractlint with --format text to see them all"
		if summaryPath != "" {
			where = "the job summary lists them all"
		}
		fmt.Fprintf(bw, "::notice title=%s::%d more findings are not shown as annotations (GitHub shows %d of each level per step); %s\n",
			workflowProperty("contractlint"), len(hidden), annotationsPerLevel, where)
	}
	for _, w := range r.acceptedInPR() {
		fmt.Fprintln(bw, acceptedAnnotation(w))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "::notice title=%s::%s\n", workflowProperty("contractlint"), workflowData(n))
	}
	s := r.Summarize()
	if v := r.Review; v != nil {
		fmt.Fprintf(bw, "contractlint: compared against %s: %s\n", Clean(v.Base), v.Outcome(s))
		for _, n := range v.NotReviewed {
			fmt.Fprintf(bw, "::warning title=%s::not reviewed: %s\n", workflowProperty("contractlint"), workflowData(n))
		}
	}
	bump := ""
	if b := bumpLine(s); b != "" {
		bump = ", " + b
	}
	fmt.Fprintf(bw, "contractlint: %s (%s, %s, %s)%s, %d annotated%s\n",
		plural(s.Findings, "finding"), plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Infos, "info"), acceptedNote(s), shown, bump)
	if err := bw.Flush(); err != nil {
		return err
	}
	if summaryPath == "" {
		return nil
	}
	return g.appendSummary(summaryPath, r, hidden)
}

// annotate prints one workflow command per finding up to the per-level
// limit, errors first, then warnings, then info, and returns the findings
// it left out. When anything overflows, one notice slot is kept free for
// the line that says how many were left out, so that line is itself shown.
func (g *GitHub) annotate(w io.Writer, r *Report) (shown int, hidden []rules.Finding) {
	limit := map[rules.Severity]int{rules.Error: annotationsPerLevel, rules.Warning: annotationsPerLevel, rules.Info: annotationsPerLevel}
	count := map[rules.Severity]int{}
	for _, f := range r.Findings {
		count[f.Severity]++
	}
	for sev, n := range count {
		if n > limit[sev] {
			limit[rules.Info] = annotationsPerLevel - 1
			break
		}
	}
	bySeverity := slices.Clone(r.Findings)
	slices.SortStableFunc(bySeverity, func(a, b rules.Finding) int { return int(b.Severity) - int(a.Severity) })
	used := map[rules.Severity]int{}
	for _, f := range bySeverity {
		if used[f.Severity] >= limit[f.Severity] {
			hidden = append(hidden, f)
			continue
		}
		used[f.Severity]++
		shown++
		fmt.Fprintln(w, annotation(r.Rules, f))
	}
	return shown, hidden
}

// notAnnotated is the job summary's list of the findings GitHub was not
// given as annotations, within budget bytes.
func notAnnotated(hidden []rules.Finding, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Not annotated\n\nGitHub shows %d annotations of each level per step; %s without an annotation on the pull request:\n\n",
		annotationsPerLevel, plural(len(hidden), "finding"))
	for i, f := range hidden {
		at := f.Where.File
		if f.Where.Line > 0 {
			at += fmt.Sprintf(":%d", f.Where.Line)
		}
		line := fmt.Sprintf("- %s %s %s: %s\n", inlineCode(at), f.Severity, inlineCode(f.Rule), markdownText(f.Message))
		if b.Len()+len(line)+footerRoom > budget {
			fmt.Fprintf(&b, "- and %d more (`contractlint --format text` lists them all)\n", len(hidden)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func annotation(reg *rules.Registry, f rules.Finding) string {
	cmd := "notice"
	switch f.Severity {
	case rules.Error:
		cmd = "error"
	case rules.Warning:
		cmd = "warning"
	}
	title := f.Rule + compatLabel(f)
	if rule, ok := ruleDoc(reg, f.Rule); ok && rule.Doc.Title != "" {
		title += ": " + rule.Doc.Title
	}
	return workflowCommand(cmd, title+bumpNote(f), f, f.Message+removedNote(f))
}

// acceptedAnnotation is a ::notice at a finding the change itself
// accepted, saying who accepted it and why.
func acceptedAnnotation(w Waived) string {
	f := w.Finding
	return workflowCommand("notice", "accepted in this PR: "+f.Rule, f, f.Message+removedNote(f)+" ("+w.Justification+")")
}

// workflowCommand is the workflow command cmd at where f is shown, with
// title and msg escaped: contract text never ends the command early.
func workflowCommand(cmd, title string, f rules.Finding, msg string) string {
	var props []string
	at, onLine := shownAt(f)
	if at.File != "" {
		props = append(props, "file="+workflowProperty(at.File))
	}
	if onLine {
		props = append(props, fmt.Sprintf("line=%d", at.Line))
		if at.Column > 0 {
			props = append(props, fmt.Sprintf("col=%d", at.Column))
		}
	}
	props = append(props, "title="+workflowProperty(title))
	return fmt.Sprintf("::%s %s::%s", cmd, strings.Join(props, ","), workflowData(msg))
}

// problemAnnotation is an ::error at an input that could not be read.
func problemAnnotation(p Problem) string {
	var props []string
	if p.File != "" {
		props = append(props, "file="+workflowProperty(p.File))
		if p.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", p.Line))
			if p.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", p.Column))
			}
		}
	}
	props = append(props, "title="+workflowProperty("contractlint: cannot read the contract"))
	return fmt.Sprintf("::error %s::%s", strings.Join(props, ","), workflowData(p.Msg))
}

// shownAt is where a finding is shown in the files as they are now, and
// whether on a line: a removal at its anchor (the element of the new file
// that held the removed one), else in its file without a line, since Where
// is a line of the OLD file.
func shownAt(f rules.Finding) (rules.Location, bool) {
	switch {
	case f.Removed && f.Anchor != nil:
		return *f.Anchor, f.Anchor.Line > 0
	case f.Removed:
		return rules.Location{File: f.Where.File}, false
	}
	return f.Where, f.Where.Line > 0
}

// removedNote names a removal's line, which is in the OLD file: pointing
// the new file at that line would show something unrelated.
func removedNote(f rules.Finding) string {
	if !f.Removed || f.Where.Line == 0 {
		return ""
	}
	return fmt.Sprintf(" (base version, line %d)", f.Where.Line)
}

func ruleDoc(reg *rules.Registry, id string) (*rules.Rule, bool) {
	if reg == nil {
		return nil, false
	}
	return reg.Get(id)
}

// appendSummary adds the Markdown report to the job summary file; other
// steps write to it too, so it is appended to, never truncated.
func (g *GitHub) appendSummary(path string, r *Report, hidden []rules.Finding) error {
	list := ""
	if len(hidden) > 0 {
		list = notAnnotated(hidden, summaryBudget/8)
	}
	var buf bytes.Buffer
	md := &Markdown{RulesURL: g.RulesURL, MaxBytes: summaryBudget - len(list)}
	if err := md.Write(&buf, r); err != nil {
		return err
	}
	buf.WriteString(list)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	_, werr := f.Write(buf.Bytes())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("job summary: %w", werr)
	}
	return nil
}
