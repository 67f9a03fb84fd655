package timeline

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/compat"
	"github.com/contractlint/contractlint/internal/report"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/internal/source"
)

// HeadName names the head (the working tree) on the timeline.
const HeadName = "HEAD"

// Options shape one history.
type Options struct {
	// Review is what each comparison runs with; its Base is ignored.
	Review review.Options
	// Against and Tags select the releases, as review --against and
	// --against-tags do.
	Against []string
	Tags    string
	// Supported is a glob of the releases still supported ("v2.*"); empty
	// leaves it to the evidence's window, when there is evidence.
	Supported string
	// LinkBase prefixes links to files: LINKBASE/COMMIT/FILE#LLINE.
	LinkBase string
}

// Build walks the releases and the head and compares each consecutive pair
// and each release with the head.
func Build(o Options) (*Report, error) {
	// The releases are found once, for the timeline and the transitive
	// review alike.
	co := compat.Options{Review: o.Review, Against: o.Against, Tags: o.Tags}
	rs, err := compat.Find(co)
	if err != nil {
		return nil, err
	}
	repo, locked, tagged := rs.Repo, rs.Locked, rs.Tagged
	col := &collector{reg: o.Review.Pipeline.Registry, settings: o.Review.Pipeline.Settings, linkBase: o.LinkBase}
	r := &Report{Repository: repo.RemoteURI(), LinkBase: o.LinkBase}
	dates := commitDates(repo.Top, tagged)
	head := Release{Name: HeadName, Head: true}
	head.Commit, head.Date = dates.head, dates.of[dates.head]
	if out, err := source.RunGit(repo.Top, "status", "--porcelain"); err == nil && len(out) > 0 {
		head.Uncommitted = true
	}

	// The head against every release: review --against-tags, each
	// release's review kept as a step of its own.
	co.Review.Pipeline.Compared = col.add
	byName := map[string]Release{}
	for _, t := range tagged {
		rel := Release{Name: t.Name, Commit: t.Commit, Date: dates.of[t.Commit]}
		byName[t.Name] = rel
	}
	for _, l := range locked {
		if _, ok := byName[l.Name]; !ok {
			byName[l.Name] = Release{Name: l.Name, Locked: true}
		}
	}
	co.Each = func(name string, rr *review.Result) {
		r.AgainstHead = append(r.AgainstHead, col.step(byName[name], head, rr))
	}
	cres, err := rs.Run(co)
	if err != nil {
		return nil, err
	}
	r.Breaks = col.findings(cres.Findings, Release{}, head, nil)
	r.Notes = append(r.Notes, report.Clean(cres.Note))
	r.Releases = releases(tagged, byName, cres)
	r.Supported = supported(r.Releases, o.Supported, len(cres.Skipped) > 0)

	// Each release against the one before it, in a checkout of the later.
	wt := &workTree{top: repo.Top}
	defer wt.remove()
	var prev *Release
	for i := range r.Releases {
		rel := r.Releases[i]
		if rel.Commit == "" {
			continue // only the lock's field numbers are left of it
		}
		if prev != nil {
			st, ok := againstHead(r, *prev, rel, head)
			if !ok {
				var err error
				if st, err = stepBetween(o, col, wt, *prev, rel); err != nil {
					return nil, err
				}
			}
			r.Steps = append(r.Steps, st)
		}
		prev = &r.Releases[i]
	}
	if prev != nil {
		// The head against the last release is the comparison the
		// transitive review made already, unless evidence skipped it.
		i := slices.IndexFunc(r.AgainstHead, func(s Step) bool { return s.From == prev.Name })
		if i >= 0 {
			r.Steps = append(r.Steps, r.AgainstHead[i])
		} else {
			ro := o.Review
			ro.Base, ro.Pipeline.Compared = prev.Commit, col.add
			rr, err := review.Run(ro)
			if err != nil {
				return nil, err
			}
			r.Steps = append(r.Steps, col.step(*prev, head, rr))
		}
	}
	r.Releases = append(r.Releases, head)
	label(r)
	return r, nil
}

// againstHead is the step from -> to when to is the head's commit and the
// work tree is clean (a release just tagged): the head's comparison with
// from, which the transitive review made already, renamed. A checkout of to
// would hold the same files and review them the same, at the cost of
// loading both releases again.
func againstHead(r *Report, from, to, head Release) (Step, bool) {
	if to.Commit != head.Commit || head.Uncommitted {
		return Step{}, false
	}
	i := slices.IndexFunc(r.AgainstHead, func(s Step) bool { return s.From == from.Name })
	if i < 0 {
		return Step{}, false
	}
	st := r.AgainstHead[i]
	// Its own findings: label marks a step's apart from the head's.
	st.To, st.Findings = to.Name, slices.Clone(st.Findings)
	return st, true
}

// stepBetween reviews the release to against from, in a throwaway checkout
// of to: exactly what `review --base FROM` reports with to checked out.
func stepBetween(o Options, col *collector, wt *workTree, from, to Release) (Step, error) {
	dir, err := wt.at(to.Commit)
	if err != nil {
		return Step{}, fmt.Errorf("checking out %s: %w", to.Name, err)
	}
	ro := o.Review
	ro.Dir, ro.Base, ro.Pipeline.Compared = dir, from.Commit, col.add
	rr, err := review.Run(ro)
	if err != nil {
		return Step{}, fmt.Errorf("%s against %s: %w", to.Name, from.Name, err)
	}
	return col.step(from, to, rr), nil
}

// workTree is one throwaway checkout for every step of a history, in a
// new temporary directory: a clone that borrows the repository's objects,
// so nothing is copied and the repository itself is left as it was. Made
// on the first step, it moves from release to release: a checkout rewrites
// only the files that differ, and each step after the first costs one git
// start instead of two.
type workTree struct {
	top, dir string
}

// at checks commit out and returns the work tree's directory.
func (w *workTree) at(commit string) (string, error) {
	if w.dir == "" {
		dir, err := os.MkdirTemp("", "contractlint-history-")
		if err != nil {
			return "", err
		}
		w.dir = dir
		if _, err := source.RunGit(w.top, "clone", "--quiet", "--shared", "--no-checkout", "--", w.top, dir); err != nil {
			return "", err
		}
	}
	_, err := source.RunGit(w.dir, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", commit, "--")
	return w.dir, err
}

func (w *workTree) remove() {
	if w.dir != "" {
		os.RemoveAll(w.dir)
	}
}

// dates are the head's commit and the date of it and of each release's.
type dates struct {
	head string
	of   map[string]string
}

// commitDates resolves the head and reads its and the releases' commit
// dates in one git start, not one per release.
func commitDates(top string, rels []compat.Release) dates {
	d := dates{of: map[string]string{}}
	revs := []string{"HEAD"}
	for _, r := range rels {
		if !slices.Contains(revs, r.Commit) {
			revs = append(revs, r.Commit)
		}
	}
	// --no-walk=unsorted shows each commit once, in the order asked: the
	// head's comes first.
	out, err := source.RunGit(top, append([]string{"log", "--no-walk=unsorted", "--format=%H %cI", "--end-of-options"}, revs...)...)
	if err != nil {
		// No commit yet, or a release's commit is gone: each on its own.
		for i, rev := range revs {
			commit, date := commitOf(top, rev)
			if i == 0 {
				d.head = commit
			}
			d.of[commit] = date
		}
		return d
	}
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		commit, date, _ := strings.Cut(line, " ")
		if i == 0 {
			d.head = commit
		}
		d.of[commit] = date
	}
	return d
}

// commitOf resolves rev to its commit id and the commit's date.
func commitOf(top, rev string) (commit, date string) {
	out, err := source.RunGit(top, "log", "-1", "--format=%H %cI", "--end-of-options", rev)
	if err != nil {
		return "", ""
	}
	commit, date, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
	return commit, date
}

// releases lists the tagged releases, oldest first, with those only the
// lock knows placed where the transitive review placed them and the ones
// evidence skipped marked.
func releases(tagged []compat.Release, byName map[string]Release, res *compat.Result) []Release {
	skipped := map[string]bool{}
	for _, s := range res.Skipped {
		skipped[s.Name] = true
	}
	var out []Release
	for _, t := range tagged {
		rel := byName[t.Name]
		rel.Skipped = skipped[t.Name]
		out = append(out, rel)
	}
	for _, list := range [][]compat.Release{res.Checked, res.Skipped} {
		for i, c := range list {
			if slices.ContainsFunc(out, func(r Release) bool { return r.Name == c.Name }) {
				continue
			}
			rel := Release{Name: c.Name, Commit: c.Commit, Locked: true, Skipped: skipped[c.Name]}
			at := len(out)
			for _, next := range list[i+1:] {
				if j := slices.IndexFunc(out, func(r Release) bool { return r.Name == next.Name }); j >= 0 {
					at = j
					break
				}
			}
			out = slices.Insert(out, at, rel)
		}
	}
	return out
}

// supported marks the releases still supported and the oldest of them,
// and says how they were chosen.
func supported(rels []Release, glob string, windowed bool) string {
	if glob == "" && !windowed {
		return ""
	}
	first := true
	for i := range rels {
		r := &rels[i]
		if glob != "" {
			r.Supported, _ = path.Match(glob, r.Name)
		} else {
			r.Supported = !r.Skipped
		}
		if r.Supported && first {
			r.OldestSupported, first = true, false
		}
	}
	if glob != "" {
		return glob
	}
	return "the releases consumer evidence shows called within the readers window"
}
