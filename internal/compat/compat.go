// Package compat checks the head against every release still in use, not
// only the last one: a field removed in v3 and added back with another type
// in v5 is "added" against v4 and breaks every v3 client. Each break is
// reported once, naming the oldest release it breaks.
package compat

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/review"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Options shape a transitive review.
type Options struct {
	// Review is the review each release is compared in; its Base is ignored.
	Review review.Options
	// Against are refs to compare with; Tags a glob of tags ("v*").
	Against []string
	Tags    string
	// Each, when set, sees each release's review once it ran (review
	// --changelog lists every release's changes under its name).
	Each func(release string, r *review.Result)
}

// Release is one version compared with the head.
type Release struct {
	Name string
	// Commit is "" for a release only the lock's field numbers describe.
	Commit string
	when   int64
	// locked is the lock's record of a release git no longer has.
	locked *review.LockedRelease
}

// Result is the transitive review's answer.
type Result struct {
	// Checked are the releases compared, oldest first; Skipped those no
	// client calls within the evidence's window.
	Checked, Skipped []Release
	Findings         []rules.Finding
	Unmatched        []readers.Entry
	// Read are the contract files any release's review read, so that an
	// ignore unused by every one of them can be reported.
	Read []string
	// Note says what was checked, for the reader of the report.
	Note string
}

// Run compares the head with every release o names.
func Run(o Options) (*Result, error) {
	rs, err := Find(o)
	if err != nil {
		return nil, err
	}
	return rs.Run(o)
}

// Releases are the releases o names, found in the repository holding
// o.Review.Dir: what Run compares the head with. A caller that lists them
// too (history puts them on its timeline) finds them once and runs them.
type Releases struct {
	Repo *review.Repo
	// Tagged are the refs and tags git resolves, oldest first (Resolve);
	// Locked those of the tag glob that contractlint.lock records (Locked).
	Tagged []Release
	Locked []review.LockedRelease
}

// Find resolves the releases o names.
func Find(o Options) (*Releases, error) {
	repo, err := review.OpenRepo(o.Review.Dir)
	if err != nil {
		return nil, err
	}
	locked, err := Locked(repo.Top, o.Tags)
	if err != nil {
		return nil, err
	}
	tagged, err := Resolve(repo.Top, o.Against, o.Tags, len(locked) > 0)
	if err != nil {
		return nil, err
	}
	return &Releases{Repo: repo, Tagged: tagged, Locked: locked}, nil
}

// Run compares the head with each of rs, with o's review; o's Against and
// Tags are those rs were found with.
func (rs *Releases) Run(o Options) (*Result, error) {
	repo, locked, rels := rs.Repo, rs.Locked, slices.Clone(rs.Tagged)
	gone, moved, err := fromLock(repo.Top, rels, locked)
	if err != nil {
		return nil, err
	}
	rels = placeGone(rels, gone)
	res := &Result{}
	res.Checked, res.Skipped = stillCalled(rels, o.Review.Pipeline.Readers)
	res.Note = note(res, o.Review.Pipeline.Readers) + goneNote(gone)
	if len(moved) > 0 {
		res.Note += fmt.Sprintf("; %s now %s at another commit than %s recorded (a moved tag?)",
			strings.Join(moved, ", "), map[bool]string{true: "points", false: "point"}[len(moved) == 1], review.LockFile)
	}
	lock, err := readLock(repo.Top)
	if err != nil {
		return nil, err
	}
	var per [][]rules.Finding
	for _, r := range res.Checked {
		if r.Commit == "" {
			fs, err := review.LockedNumbers(o.Review, *r.locked, lock)
			if err != nil {
				return nil, err
			}
			per = append(per, fs)
			continue
		}
		ro := o.Review
		ro.Base = r.Commit
		rr, err := runIn(repo, ro)
		if err != nil {
			return nil, err
		}
		if o.Each != nil {
			o.Each(r.Name, rr)
		}
		per = append(per, rr.Findings)
		res.Unmatched = append(res.Unmatched, rr.Unmatched...)
		res.Read = append(res.Read, rr.Read...)
	}
	res.Findings = once(per, res.Checked, o.Review.Pipeline.Registry)
	slices.SortFunc(res.Unmatched, func(a, b readers.Entry) int { return cmp.Compare(a.File+a.Where, b.File+b.Where) })
	res.Unmatched = slices.Compact(res.Unmatched)
	slices.Sort(res.Read)
	res.Read = slices.Compact(res.Read)
	return res, nil
}

// runIn reviews o in repo, found once for every release.
func runIn(repo *review.Repo, o review.Options) (*review.Result, error) {
	sd, err := repo.OpenSides(o)
	if err != nil {
		return nil, err
	}
	defer sd.Close()
	o.Sides = sd
	return review.Run(o)
}

func readLock(top string) (*rules.History, error) {
	wt, err := source.OpenDir(top)
	if err != nil {
		return nil, err
	}
	return review.ReadLock(wt)
}

// Locked reads the releases contractlint.lock records whose names match
// the tag glob, in version order.
func Locked(top, tagGlob string) ([]review.LockedRelease, error) {
	if tagGlob == "" {
		return nil, nil
	}
	wt, err := source.OpenDir(top)
	if err != nil {
		return nil, err
	}
	all, err := review.ReadReleases(wt)
	if err != nil {
		return nil, err
	}
	var out []review.LockedRelease
	for _, l := range all {
		if ok, _ := path.Match(tagGlob, l.Name); ok {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b review.LockedRelease) int { return versionCompare(a.Name, b.Name) })
	return out, nil
}

// Resolve finds the refs and the tags matching a glob, oldest commit first;
// tags listed in version order keep it among commits made in one second.
// A glob that matches no tag is an error unless inLock: the lock still
// records releases a squash took away.
func Resolve(top string, against []string, tagGlob string, inLock bool) ([]Release, error) {
	var out []Release
	add := func(n string, commit func() (string, int64, error)) error {
		if slices.ContainsFunc(out, func(r Release) bool { return r.Name == n }) {
			return nil
		}
		c, when, err := commit()
		if err != nil {
			return err
		}
		out = append(out, Release{Name: n, Commit: c, when: when})
		return nil
	}
	var tags []tag
	if tagGlob != "" {
		var err error
		if tags, err = listTags(top, tagGlob); err != nil {
			return nil, err
		}
		if len(tags) == 0 && !inLock {
			return nil, &review.MissingError{Msg: fmt.Sprintf("tag pattern %q matches no tag; fetch tags with `git fetch --tags`", tagGlob)}
		}
	}
	for _, n := range against {
		if strings.HasPrefix(n, "-") {
			return nil, fmt.Errorf("--against %q: a ref cannot start with '-'", n)
		}
		if err := add(n, func() (string, int64, error) { return commitOf(top, n) }); err != nil {
			return nil, err
		}
	}
	for _, tg := range tags {
		err := add(tg.name, func() (string, int64, error) {
			if tg.commit != "" {
				return tg.commit, tg.when, nil
			}
			return commitOf(top, tg.name)
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b Release) int {
		// Only a tie asks git (cmp.Or would run ancestry for every pair).
		if c := cmp.Compare(a.when, b.when); c != 0 {
			return c
		}
		return ancestry(top, a.Commit, b.Commit)
	})
	return out, nil
}

// tag is a tag matching Resolve's glob: the commit it names, with the
// commit's time, or no commit when the tag names something else, or a tag
// of a tag (commitOf peels those).
type tag struct {
	name, commit string
	when         int64
}

// listTags lists the tags matching glob in version order, each with its
// commit, in one git run: a repository may hold hundreds.
func listTags(top, glob string) ([]tag, error) {
	if strings.HasPrefix(glob, "-") {
		return nil, fmt.Errorf("tag pattern %q cannot start with '-'", glob)
	}
	out, err := source.RunGit(top, "tag", "--list", "--sort=v:refname",
		"--format=%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(committerdate:unix)%00%(*objecttype)%00%(*objectname)%00%(*committerdate:unix)", glob)
	if err != nil {
		return nil, err
	}
	var tags []tag
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 7 {
			continue
		}
		tg := tag{name: f[0]}
		switch {
		case f[1] == "commit":
			tg.commit, tg.when = f[2], unix(f[3])
		case f[1] == "tag" && f[4] == "commit":
			tg.commit, tg.when = f[5], unix(f[6])
		}
		tags = append(tags, tg)
	}
	return tags, nil
}

func unix(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// commitOf is the commit a release names, with its time.
func commitOf(top, name string) (string, int64, error) {
	b, err := source.RunGit(top, "log", "-1", "--format=%H %ct", "--end-of-options", name+"^{commit}")
	f := strings.Fields(string(b))
	if err != nil || len(f) != 2 {
		return "", 0, &review.MissingError{Msg: fmt.Sprintf("release %s: no such commit in this repository; fetch it with `git fetch origin %s`", name, name)}
	}
	return f[0], unix(f[1]), nil
}

// ancestry orders two commits made in the same second: an ancestor first.
func ancestry(top, a, b string) int {
	switch {
	case a == b:
		return 0
	case isAncestor(top, a, b):
		return -1
	case isAncestor(top, b, a):
		return 1
	}
	return 0
}

func isAncestor(top, a, b string) bool {
	_, err := source.RunGit(top, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// fromLock turns the locked releases git no longer has (a squash, a deleted
// tag) into releases to check, oldest first: compared whole when the lock's
// blobs are still in the object store, else (no Commit) through the field
// numbers the lock keeps. moved names those whose tag now names another
// commit than the lock recorded.
func fromLock(top string, rels []Release, locked []review.LockedRelease) (gone []Release, moved []string, err error) {
	for _, l := range locked {
		i := slices.IndexFunc(rels, func(r Release) bool { return r.Name == l.Name })
		if i >= 0 {
			if rels[i].Commit != l.Commit {
				moved = append(moved, l.Name)
			}
			continue
		}
		commit, err := l.Restore(top)
		if err != nil {
			return nil, nil, err
		}
		gone = append(gone, Release{Name: l.Name, Commit: commit, locked: &l})
	}
	return gone, moved, nil
}

// placeGone puts each release git no longer has, whose date is unknown,
// before the first release whose version is later.
func placeGone(rels, gone []Release) []Release {
	for _, g := range gone {
		i := slices.IndexFunc(rels, func(r Release) bool { return versionCompare(g.Name, r.Name) < 0 })
		if i < 0 {
			i = len(rels)
		}
		rels = slices.Insert(rels, i, g)
	}
	return rels
}

// goneNote says, for the report, how each release git no longer has was
// checked.
func goneNote(gone []Release) string {
	var restored, numbers, lost []string
	for _, r := range gone {
		if r.Commit != "" {
			restored = append(restored, r.Name)
			continue
		}
		numbers = append(numbers, r.Name)
		for name := range r.locked.Contracts {
			if !strings.EqualFold(path.Ext(name), ".proto") {
				lost = append(lost, r.Name+" "+name)
			}
		}
	}
	var s string
	if len(restored) > 0 {
		s += fmt.Sprintf("; %s, recorded in %s, %s no longer tagged: compared with the contracts the lock recorded, still in git's object store",
			strings.Join(restored, ", "), review.LockFile, isAre(len(restored)))
	}
	if len(numbers) > 0 {
		s += fmt.Sprintf("; %s, recorded in %s, %s no longer in this repository: only the field numbers the lock keeps were checked",
			strings.Join(numbers, ", "), review.LockFile, isAre(len(numbers)))
	}
	if len(lost) > 0 {
		slices.Sort(lost)
		s += fmt.Sprintf("; not compared, their content is gone from history: the OpenAPI contracts %s", strings.Join(lost, ", "))
	}
	return s
}

// versionCompare orders release names by their numbers ("v2.10.0" after
// "v2.9.0"), as git's v:refname does.
func versionCompare(a, b string) int {
	na, nb := numbers(a), numbers(b)
	return cmp.Or(slices.Compare(na, nb), strings.Compare(a, b))
}

func numbers(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// stillCalled splits the releases by whether a client built against them
// still calls: usage evidence names a consumer's release after an @
// ("ios-app@v3.2.0"). Without evidence, or when it names no release,
// every release counts.
func stillCalled(rels []Release, ev *readers.Set) (checked, skipped []Release) {
	if ev == nil {
		return rels, nil
	}
	named, called := map[string]bool{}, map[string]bool{}
	since := ev.Now.Add(-ev.Window)
	for _, e := range ev.Entries {
		_, rel, ok := strings.Cut(e.Consumer, "@")
		if !ok {
			continue
		}
		named[rel] = true
		if e.LastSeen.IsZero() || !e.LastSeen.Before(since) {
			called[rel] = true
		}
	}
	if len(named) == 0 {
		return rels, nil
	}
	for _, r := range rels {
		if called[r.Name] {
			checked = append(checked, r)
		} else {
			skipped = append(skipped, r)
		}
	}
	return checked, skipped
}

func note(res *Result, ev *readers.Set) string {
	s := fmt.Sprintf("checked against %d %s: %s", len(res.Checked), plural(len(res.Checked), "release"), names(res.Checked))
	if len(res.Skipped) > 0 {
		days := int(ev.Window / (24 * time.Hour))
		s = fmt.Sprintf("checked against the %d %s still called in the last %d days: %s; skipped %s, which no client calls",
			len(res.Checked), plural(len(res.Checked), "release"), days, names(res.Checked), names(res.Skipped))
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

func names(rs []Release) string {
	if len(rs) == 0 {
		return "none"
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return strings.Join(out, ", ")
}

// once keeps one finding per break across the releases, the one found
// against the oldest release, and says which releases it breaks. A break is
// the same rule on the same element (and, on the new side, the same line):
// a removal points into each release's own copy of the file. A finding that
// is no break (a lint rule's, about the head alone, or an info) only says
// which releases it was found against.
func once(per [][]rules.Finding, rels []Release, reg *rules.Registry) []rules.Finding {
	type seen struct {
		f    rules.Finding
		hits []int
	}
	byKey := map[string]*seen{}
	var order []string
	for i, fs := range per {
		for _, f := range fs {
			k := breakKey(f)
			s, ok := byKey[k]
			if !ok {
				s = &seen{f: f}
				byKey[k] = s
				order = append(order, k)
			}
			if !slices.Contains(s.hits, i) {
				s.hits = append(s.hits, i)
			}
		}
	}
	out := make([]rules.Finding, 0, len(order))
	for _, k := range order {
		s := byKey[k]
		verb := "breaks clients built against"
		switch {
		case !isBreak(s.f, reg):
			verb = "found against"
		case s.f.Compat == rules.Forward:
			verb = "breaks new clients of servers still on"
		}
		s.f.Message += "; " + breaks(verb, s.hits, rels)
		out = append(out, s.f)
	}
	rules.SortFindings(out)
	return out
}

func breakKey(f rules.Finding) string {
	k := f.Rule + "\x00" + f.Path
	// The version gate judges each release's own version: one finding each.
	if f.Path == "" || f.Rule == rules.VersionBumpMissingID {
		k += "\x00" + f.Message
	}
	if !f.Removed {
		k += "\x00" + f.Where.String()
	}
	return k
}

// isBreak reports whether f is a diff rule's warning or error.
func isBreak(f rules.Finding, reg *rules.Registry) bool {
	if f.Severity == rules.Info || f.Rule == rules.VersionBumpMissingID {
		return false
	}
	if reg == nil {
		return true
	}
	r, ok := reg.Get(f.Rule)
	return ok && r.Mode == rules.DiffRule
}

// breaks names the releases a break reaches: the oldest, and how far it goes.
func breaks(verb string, hits []int, rels []Release) string {
	first, last := hits[0], hits[len(hits)-1]
	switch {
	case len(hits) == 1:
		return verb + " " + rels[first].Name
	case last-first+1 == len(hits):
		return fmt.Sprintf("%s %s and later up to %s", verb, rels[first].Name, rels[last].Name)
	}
	var ns []string
	for _, i := range hits {
		ns = append(ns, rels[i].Name)
	}
	return verb + " " + strings.Join(ns, ", ")
}
