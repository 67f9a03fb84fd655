// Package review is the local review: it asks git which contract files
// changed since a base commit, reads each file's old version (and its $refs
// and imports) from that commit, and runs the same pipeline as diff and lint.
package review

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Options shape one review.
type Options struct {
	// Dir is where the command runs; Paths are pathspecs relative to it.
	Dir   string
	Base  string
	Paths []string
	// Staged compares the index with the base instead of the working tree.
	Staged bool
	// Globs select the contract files (repository-relative).
	Globs []string
	// HistoryDepth bounds the commits read per .proto file for field
	// numbers; 0 reads all, a negative value none.
	HistoryDepth int
	Pipeline     pipeline.Options
}

// Result is what a review found.
type Result struct {
	Base     Base
	Files    []FileChange // the contract files reviewed
	Findings []rules.Finding
	// Unmatched are the evidence entries (--readers) that matched no
	// operation or message of any contract compared: one evidence folder
	// serves every contract, so an entry that misses one contract is normal,
	// but one that misses them all is for a contract the change did not
	// touch, or a typo. Each is listed once.
	Unmatched []readers.Entry
}

// Run reviews the contract files changed in the repository holding o.Dir.
func Run(o Options) (*Result, error) {
	repo, err := OpenRepo(o.Dir)
	if err != nil {
		return nil, err
	}
	base, err := repo.ResolveBase(o.Base)
	if err != nil {
		return nil, err
	}
	changes, err := repo.changedFiles(o.Dir, base.Commit, o.Staged, o.Paths)
	if err != nil {
		return nil, err
	}
	oldSrc, err := source.OpenRev(repo.Top, base.Commit)
	if err != nil {
		return nil, err
	}
	defer oldSrc.Close()
	var newSrc source.Source
	if o.Staged {
		idx, err := source.OpenIndex(repo.Top)
		if err != nil {
			return nil, err
		}
		defer idx.Close()
		newSrc = idx
	} else if newSrc, err = source.OpenDir(repo.Top); err != nil {
		return nil, err
	}
	lock, err := ReadLock(newSrc)
	if err != nil {
		return nil, err
	}
	res := &Result{Base: base}
	misses := &evidenceMisses{count: map[readers.Entry]int{}, compared: map[rules.Format]int{}}
	if o.Pipeline.Readers != nil {
		o.Pipeline.Unmatched = misses.add
	}
	var unread []unreadable
	for _, c := range changes {
		if !c.selected(oldSrc, newSrc, o.Globs) || bufExcluded(newSrc, c) {
			continue
		}
		res.Files = append(res.Files, c)
		fs, err := repo.review(c, base, oldSrc, newSrc, lock, o)
		var ps source.Problems
		switch {
		case errors.As(err, &ps):
			unread = append(unread, unreadable{c, ps})
		case err != nil:
			return nil, err
		}
		res.Findings = append(res.Findings, fs...)
	}
	if len(unread) > 0 {
		fs, err := unreadableFindings(unread, len(res.Files), o.Pipeline)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, fs...)
	}
	rules.SortFindings(res.Findings)
	res.Unmatched = misses.everywhere()
	return res, nil
}

// evidenceMisses counts, for each evidence entry, the compared contracts of
// its format that it matched nothing in.
type evidenceMisses struct {
	count    map[readers.Entry]int
	compared map[rules.Format]int
}

// add counts one compared contract and its misses; an entry the evidence
// holds twice (a file named twice, or through its directory too) is still
// one miss.
func (m *evidenceMisses) add(f rules.Format, es []readers.Entry) {
	m.compared[f]++
	seen := map[readers.Entry]bool{}
	for _, e := range es {
		if !seen[e] {
			seen[e] = true
			m.count[e]++
		}
	}
}

// everywhere lists the entries that missed every contract of their format.
func (m *evidenceMisses) everywhere() []readers.Entry {
	var out []readers.Entry
	for e, n := range m.count {
		f := rules.OpenAPI
		if e.Message != "" {
			f = rules.Proto
		}
		if n == m.compared[f] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b readers.Entry) int {
		return cmp.Or(strings.Compare(a.File, b.File), strings.Compare(a.Where, b.Where), strings.Compare(a.Field, b.Field))
	})
	return out
}

// selected reports whether a change touches a contract on either side.
func (c FileChange) selected(oldSrc, newSrc source.Source, globs []string) bool {
	if c.New != "" && isContract(newSrc, c.New, globs) {
		return true
	}
	return c.Old != "" && isContract(oldSrc, c.Old, globs)
}

func (r *Repo) review(c FileChange, base Base, oldSrc, newSrc source.Source, lock *rules.History, o Options) ([]rules.Finding, error) {
	po := o.Pipeline
	if c.Status != Added && c.Status != Deleted && isProto(c.New) {
		h, err := r.history(c, base, lock, o)
		if err != nil {
			return nil, err
		}
		po.History = h
	}
	switch c.Status {
	case Deleted:
		return removed(c.Old, po)
	case Added:
		return pipeline.Lint(side(newSrc, c.New), po)
	}
	return pipeline.Diff(side(oldSrc, c.Old), side(newSrc, c.New), po)
}

func side(src source.Source, name string) pipeline.Side {
	return pipeline.Side{Src: src, Files: []string{name}, Display: func(s string) string { return s }}
}

func isProto(name string) bool { return strings.EqualFold(path.Ext(name), ".proto") }

// removed reports a deleted contract through the contract-file-removed rule,
// so config, severity overrides and path ignores apply to it as to any rule.
func removed(name string, po pipeline.Options) ([]rules.Finding, error) {
	r, ok := po.Registry.Get("contract-file-removed")
	if !ok {
		return nil, fmt.Errorf("rule contract-file-removed is not registered")
	}
	reg, err := rules.NewRegistry([]*rules.Rule{r})
	if err != nil {
		return nil, err
	}
	format := rules.OpenAPI
	if isProto(name) {
		format = rules.Proto
	}
	ch := rules.Change{Kind: rules.Removed, Subject: rules.SubjectContract, Format: format,
		Name: name, Path: name, OldLoc: rules.Location{File: name, Line: 1, Column: 1}}
	return rules.Run(reg, po.Settings, rules.DiffRule, &rules.Input{Changes: []rules.Change{ch}}), nil
}
