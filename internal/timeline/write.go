package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes the report as JSON, the data the HTML page is drawn from,
// indented, one value and a newline as json.Encoder writes it. MarshalIndent
// sizes its output once: an Encoder grows it from nothing, and a history of
// Stripe's spec is 27 MB of JSON (each finding lists every operation it
// reaches), which cost it a second in copies.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes one line per comparison: what each release changed,
// then what the head breaks for each release's clients.
func WriteText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for _, rel := range r.Releases {
		mark := ""
		switch {
		case rel.OldestSupported:
			mark = "  (oldest supported)"
		case rel.Skipped:
			mark = "  (no client calls it)"
		case rel.Uncommitted:
			mark = "  (and the working tree's changes)"
		}
		fmt.Fprintf(bw, "%-12s %s%s\n", rel.Name, short(rel.Commit), mark)
	}
	for _, title := range []string{"each release against the one before", "the head against each release"} {
		steps := r.Steps
		if strings.HasPrefix(title, "the head") {
			steps = r.AgainstHead
		}
		fmt.Fprintf(bw, "\n%s:\n", title)
		for _, st := range steps {
			fmt.Fprintf(bw, "  %s -> %s:", st.From, st.To)
			for _, c := range st.Counts {
				fmt.Fprintf(bw, "  %s %s", c.Format, c)
			}
			fmt.Fprintln(bw)
			for _, v := range st.Versions {
				fmt.Fprintf(bw, "    version: %s\n", v.Text)
			}
		}
	}
	fmt.Fprintf(bw, "\n%d %s still at the head\n", len(r.Breaks), plural(len(r.Breaks), "finding"))
	for _, n := range r.Notes {
		fmt.Fprintln(bw, "note: "+n)
	}
	return bw.Flush()
}

func (c Counts) String() string {
	return fmt.Sprintf("%d %s, %d %s, %d info, %d additive of %d %s", c.Errors, plural(c.Errors, "error"), c.Warnings, plural(c.Warnings, "warning"),
		c.Infos, c.Additive, c.Changes, plural(c.Changes, "change"))
}

func short(commit string) string { return commit[:min(len(commit), 7)] }

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
