package review

import (
	"slices"

	"github.com/contractlint/contractlint/rules"
)

// shallowEdge names the commit at which a shallow clone's history of base
// stops ("" in a full clone, or when base's history is whole): the
// field-number history walked from base reads nothing older.
func (r *Repo) shallowEdge(base string) string {
	for _, e := range r.shallowEdges() {
		if _, err := r.git("merge-base", "--is-ancestor", e, base); err == nil {
			return e
		}
	}
	return ""
}

// historyCut is the warning that the field-number history of the .proto
// files this review compared stops at a shallow clone's edge, placed at the
// first of them; none when no history was read or it is whole.
func (r *Repo) historyCut(files []FileChange, base Base, o Options) ([]rules.Finding, error) {
	i := slices.IndexFunc(files, func(c FileChange) bool {
		return isProto(c.New) && c.Status != Added && c.Status != Deleted
	})
	if i < 0 || o.HistoryDepth < 0 || base.Commit == "" {
		return nil, nil
	}
	edge := r.shallowEdge(base.Commit)
	if edge == "" {
		return nil, nil
	}
	name := files[i].New
	ch := rules.Change{Kind: rules.Modified, Subject: rules.SubjectContract, Aspect: rules.AspectHistoryCut, Format: rules.Proto,
		Name: name, Path: name, New: rules.Value{Text: edge[:min(len(edge), 12)]}, NewLoc: rules.Location{File: name, Line: 1, Column: 1}}
	return reportChange("history-cut", ch, o.Pipeline)
}
