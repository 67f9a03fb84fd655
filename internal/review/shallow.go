package review

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// shallowEdge names the commit at which a shallow clone's history of base
// stops ("" in a full clone, or when base's history is whole): the
// field-number history walked from base reads nothing older.
func (r *Repo) shallowEdge(base string) (string, error) {
	out, err := r.git("rev-parse", "--is-shallow-repository")
	if err != nil || strings.TrimSpace(string(out)) != "true" {
		return "", err
	}
	out, err = r.git("rev-parse", "--git-path", "shallow")
	if err != nil {
		return "", err
	}
	file := strings.TrimSpace(string(out))
	if !filepath.IsAbs(file) {
		file = filepath.Join(r.Top, file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	edges := strings.Fields(string(b))
	slices.Sort(edges) // one answer, whatever order git wrote them in
	for _, e := range edges {
		if _, err := r.git("merge-base", "--is-ancestor", e, base); err == nil {
			return e, nil
		}
	}
	return "", nil
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
	edge, err := r.shallowEdge(base.Commit)
	if err != nil || edge == "" {
		return nil, err
	}
	name := files[i].New
	ch := rules.Change{Kind: rules.Modified, Subject: rules.SubjectContract, Aspect: rules.AspectHistoryCut, Format: rules.Proto,
		Name: name, Path: name, New: rules.Value{Text: edge[:min(len(edge), 12)]}, NewLoc: rules.Location{File: name, Line: 1, Column: 1}}
	return reportChange("history-cut", ch, o.Pipeline)
}
