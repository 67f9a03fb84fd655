package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// Text prints `file:line:col: severity rule-id: message`, one finding a line,
// then the operations a shared change reaches and a summary line.
type Text struct {
	Color bool
}

// operationsShown is how many affected operations a text line names.
const operationsShown = 3

func (t *Text) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	if r.Review != nil {
		fmt.Fprintf(bw, "compared against %s\n", Clean(r.Review.Base))
		for _, n := range r.Review.NotReviewed {
			fmt.Fprintf(bw, "not reviewed: %s\n", Clean(n))
		}
	}
	for _, p := range r.Passes {
		fmt.Fprintf(bw, "%s: pass %s: %s\n", Clean(p.Where.String()), Clean(p.Rule), Clean(p.Message))
	}
	for _, f := range r.Findings {
		fmt.Fprintf(bw, "%s: %s %s%s: %s\n", Clean(findingPlace(f)), t.paint(f.Severity), Clean(f.Rule), compatLabel(f), Clean(f.Message))
		if n := len(f.Operations); n > 1 {
			shown := f.Operations[:min(n, operationsShown)]
			more := ""
			if n > operationsShown {
				more = fmt.Sprintf(", and %d more", n-operationsShown)
			}
			fmt.Fprintf(bw, "    affects %d operations: %s%s\n", n, Clean(strings.Join(shown, ", ")), more)
		}
	}
	for _, w := range r.acceptedInPR() {
		fmt.Fprintln(bw, acceptedLine(w))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "note: %s\n", Clean(n))
	}
	s := r.Summarize()
	switch {
	case r.Review != nil:
		fmt.Fprintln(bw, r.Review.Outcome(s))
	case s.Findings == 0:
		fmt.Fprintln(bw, "no findings"+acceptedNote(s))
	default:
		fmt.Fprintln(bw, findingCounts(s))
	}
	if b := bumpLine(s); b != "" {
		fmt.Fprintln(bw, b)
	}
	return bw.Flush()
}

func (t *Text) paint(s rules.Severity) string {
	if !t.Color {
		return s.String()
	}
	code := map[rules.Severity]string{rules.Error: "31", rules.Warning: "33", rules.Info: "36"}[s]
	return "\x1b[" + code + "m" + s.String() + "\x1b[0m"
}
