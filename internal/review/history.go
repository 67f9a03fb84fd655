package review

import (
	"strconv"
	"strings"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// history collects every field number c's .proto file used in the commits up
// to the base (bounded by o.HistoryDepth), plus the lock file's. A version
// that no longer compiles (an import since deleted) is skipped: the history
// only adds evidence, it never blocks the review.
func (r *Repo) history(c FileChange, base Base, lock *rules.History, o Options) (*rules.History, error) {
	h := &rules.History{}
	h.Merge(lock)
	if o.HistoryDepth < 0 || base.Commit == source.EmptyTree {
		return h, nil
	}
	commits, err := r.commitsTouching(base.Commit, c.Old, o.HistoryDepth)
	if err != nil {
		return nil, err
	}
	for _, id := range commits {
		if err := r.addVersion(h, id, c.Old, o.Pipeline); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// commitsTouching lists the commits reachable from rev that changed name,
// newest first, at most depth of them (0: all).
func (r *Repo) commitsTouching(rev, name string, depth int) ([]string, error) {
	args := []string{"log", "--format=%H"}
	if depth > 0 {
		args = append(args, "-n", strconv.Itoa(depth))
	}
	out, err := r.git(append(args, rev, "--", name)...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// addVersion adds the fields of name as commit id had it.
func (r *Repo) addVersion(h *rules.History, id, name string, po pipeline.Options) error {
	src, err := source.OpenRev(r.Top, id)
	if err != nil {
		return err
	}
	defer src.Close()
	if !src.Has(name) {
		return nil // the commit deleted the file
	}
	c, err := pipeline.Load(side(src, name), po)
	if err != nil {
		return nil
	}
	h.Add(c, id[:min(len(id), 12)])
	return nil
}
