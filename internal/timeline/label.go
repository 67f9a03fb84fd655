package timeline

import "strings"

// label names, for each break, the oldest release it breaks, as review
// --against-tags does in its message: against the head, the first release
// whose comparison found it; in a step, that release when the break is
// still there at the head, else the step's older side.
func label(r *Report) {
	hits := map[string][]string{}
	firstLoose := map[string]string{}
	for _, st := range r.AgainstHead {
		for _, f := range st.Findings {
			if !f.Breaking {
				continue
			}
			if h := hits[f.key]; len(h) == 0 || h[len(h)-1] != st.From {
				hits[f.key] = append(h, st.From)
			}
			if _, ok := firstLoose[f.loose]; !ok {
				firstLoose[f.loose] = st.From
			}
		}
	}
	for i := range r.AgainstHead {
		fs := r.AgainstHead[i].Findings
		for j := range fs {
			if h := hits[fs[j].key]; fs[j].Breaking && len(h) > 0 {
				fs[j].Oldest, fs[j].Reaches = h[0], h
			}
		}
	}
	index := map[string]int{}
	for i, rel := range r.Releases {
		index[rel.Name] = i
	}
	for i := range r.Steps {
		st := &r.Steps[i]
		for j := range st.Findings {
			f := &st.Findings[j]
			if !f.Breaking {
				continue
			}
			f.Oldest = st.From
			if old, ok := firstLoose[f.loose]; ok && index[old] <= index[st.From] {
				f.Oldest = old
			}
		}
	}
	for i := range r.Breaks {
		enrich(&r.Breaks[i], r.AgainstHead)
	}
}

// enrich fills a transitive finding from the comparison it was found in:
// the transitive review keeps the oldest release's finding and adds to its
// message the releases it reaches.
func enrich(b *Finding, against []Step) {
	for _, st := range against {
		for _, f := range st.Findings {
			if f.Rule != b.Rule || f.File != b.File || f.Line != b.Line || f.Column != b.Column || f.Side != b.Side ||
				!strings.HasPrefix(b.Message, f.Message+"; ") {
				continue
			}
			msg := b.Message
			*b = f
			b.Message = msg
			return
		}
	}
}
