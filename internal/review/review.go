// Package review is the local review: it asks git which contract files
// changed since a base commit, reads each file's old version (and its $refs
// and imports) from that commit, and runs the same pipeline as diff and lint.
package review

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/readers"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/protobuf"
	"github.com/contractlint/contractlint/rules"
)

// Options shape one review.
type Options struct {
	// Dir is where the command runs; Paths are pathspecs relative to it.
	Dir   string
	Base  string
	Paths []string
	// Staged compares the index instead of the working tree, with HEAD
	// unless Base is given: what the commit being made changes.
	Staged bool
	// Head compares this commit instead of the working tree: a range of
	// commits, as a pre-push hook or `pre-commit run --to-ref` names it.
	Head string
	// Globs select the contract files (repository-relative).
	Globs []string
	// GlobsFrom names the config that gave Globs ("" for the built-in
	// ones); a glob of its that matches no file is an error.
	GlobsFrom string
	// HistoryDepth bounds the commits read per .proto file for field
	// numbers; 0 reads all, a negative value none.
	HistoryDepth int
	// HistoryAll (`history: all`) counts a number any commit used as
	// released; by default, in a repository with release tags, a number
	// only commits no tag contains used is a warning, not an error.
	HistoryAll bool
	Pipeline   pipeline.Options
	// ConfigChanges are what the change loosens in .contractlint.yaml (see
	// ConfigWeakened), each reported as config-weakened.
	ConfigChanges []rules.Change
	// Sides, when set, are the two sides already opened for these options
	// (by the caller that read the config from them, see OpenSides): Run
	// compares them instead of resolving the base again, and leaves closing
	// them to the caller.
	Sides *Sides
	// tags, set by Run, lists the release tags once for every .proto
	// file's history in it (see releaseTags).
	tags *tagList
	// later, set by Run, are the histories walked while the files load
	// (see walkLater); inWalks is set for those walks, which the review
	// measures where it waits for them. turn, set by reviewAll for a file
	// reviewed beside others, waits until the files before it are
	// reviewed, false when one of them failed.
	later   *laterWalks
	inWalks bool
	turn    func() bool
}

// Result is what a review found.
type Result struct {
	Base  Base
	Files []FileChange // the contract files reviewed
	// Compared counts the contracts compared (or linted, or reported
	// deleted): 0 means no contract changed.
	Compared int
	// NotReviewed names what changed but was not compared, with why.
	NotReviewed []string
	// repo answers RemoteURI: only a report that names the repository
	// asks, so a review starts no git run for it otherwise.
	repo *Repo
	// Read names the files a comparison read, as far as review knows:
	// the contracts compared and every changed file.
	Read     []string
	Findings []rules.Finding
	// Unmatched are the evidence entries (--readers) that matched no
	// operation or message of any contract compared: one evidence folder
	// serves every contract, so an entry that misses one contract is normal,
	// but one that misses them all is for a contract the change did not
	// touch, or a typo. Each is listed once.
	Unmatched []readers.Entry
}

// RemoteURI is origin's URL without credentials, "" when unknown (see
// Repo.RemoteURI), read from git when first asked, not by every review.
func (res *Result) RemoteURI() string { return res.repo.RemoteURI() }

// Run reviews the contract files changed in the repository holding o.Dir.
func Run(o Options) (*Result, error) {
	sd := o.Sides
	if sd == nil {
		repo, err := OpenRepo(o.Dir)
		if err != nil {
			return nil, err
		}
		if sd, err = repo.OpenSides(o); err != nil {
			return nil, err
		}
		defer sd.Close()
	}
	repo, base, head, oldSrc, newSrc := sd.repo, sd.Base, sd.head, sd.Old, sd.New
	o.tags = sd.tags
	if o.tags == nil {
		o.tags = &tagList{}
	}
	rels, err := repo.repoPaths(o.Dir, o.Paths)
	if err != nil {
		return nil, err
	}
	if err := repo.checkPaths(o.Dir, o.Paths, rels, oldSrc); err != nil {
		return nil, err
	}
	if err := repo.checkGlobs(o.Globs, o.GlobsFrom, base.Commit, sd.files); err != nil {
		return nil, err
	}
	var changes []FileChange
	if head != "" {
		changes, err = gitDiff(o.Dir, base.Commit, head)
	} else {
		changes, err = repo.changedFiles(o.Dir, base.Commit, o.Staged, sd.files)
	}
	if err != nil {
		return nil, err
	}
	if repo.walksHistory(changes, base, o) {
		// The files whose histories the review may walk: those changed
		// (a deleted one may pair with an added one as a move).
		var names []string
		for _, c := range changes {
			if c.Status != Added && isProto(c.Old) && !slices.Contains(names, c.Old) {
				names = append(names, c.Old)
			}
		}
		g, _ := oldSrc.(*source.Git)
		repo.walks.prefetch(repo, base.Commit, g, names)
	}
	inPaths := pathFilter(rels)
	lock, weakened, err := readLocks(oldSrc, newSrc)
	if err != nil {
		return nil, err
	}
	res := &Result{Base: base, repo: repo}
	if weakened != nil {
		if res.Findings, err = reportChange("lock-file-weakened", *weakened, o.Pipeline); err != nil {
			return nil, err
		}
	}
	for _, ch := range o.ConfigChanges {
		fs, err := reportChange("config-weakened", ch, o.Pipeline)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, fs...)
	}
	misses := &evidenceMisses{count: map[readers.Entry]int{}, compared: map[rules.Format]int{}}
	if o.Pipeline.Readers != nil {
		o.Pipeline.Unmatched = misses.add
	}
	var outside []FileChange // contracts that changed outside the paths
	for _, c := range changes {
		switch {
		case !inPaths(c.New) && !inPaths(c.Old):
			if !c.Submodule && c.New != "" && c.selected(oldSrc, newSrc, o.Globs, o.Pipeline.Limits) {
				outside = append(outside, c)
			}
		case c.Submodule:
			res.NotReviewed = append(res.NotReviewed, fmt.Sprintf(
				"%s is a submodule whose commit changed; review its contracts in its own repository", c.New))
		case !c.selected(oldSrc, newSrc, o.Globs, o.Pipeline.Limits):
		case excludedHere(c, o, oldSrc, newSrc) != "":
			// Exclusions come from the base: what it reviewed stays
			// reviewed, and leaving it out now is removing it.
			res.NotReviewed = append(res.NotReviewed, excludedHere(c, o, oldSrc, newSrc))
			res.Files = append(res.Files, FileChange{Status: Deleted, Old: c.Old})
		case o.GlobsFrom == "" && vendored(c, o.Paths) != "":
			res.NotReviewed = append(res.NotReviewed, copyNote(cmp.Or(c.New, c.Old), vendored(c, o.Paths)))
		case bufExcluded(newSrc, c):
			res.NotReviewed = append(res.NotReviewed, fmt.Sprintf(
				"%s is excluded from its module by buf.yaml (excludes), so buf does not build it either", c.New))
		default:
			res.Files = append(res.Files, c)
		}
	}
	res.Files = pairByIdentity(res.Files, o.Pipeline.Limits.Guard(oldSrc, nil), o.Pipeline.Limits.Guard(newSrc, nil))
	// The histories of the files known to be compared are walked while the
	// review looks for what else the change reaches.
	early := repo.startWalks(res.Files, base, oldSrc, o)
	defer early.wait()
	reached, copies := repo.reachedRoots(changes, res.Files, outside, sd, inPaths, o)
	res.Files = append(res.Files, reached...)
	res.NotReviewed = append(res.NotReviewed, copies...)
	for _, c := range slices.Concat(res.Files, changes) {
		res.Read = append(res.Read, c.Old, c.New)
		res.Read = append(res.Read, c.Also...)
	}
	var unread []unreadable
	// Only the rules read a history: the files are loaded while their
	// histories are walked, and each waits for its history before its rules
	// (see review).
	o.later = repo.walkLater(res.Files, base, oldSrc, lock, o, early)
	defer o.later.wait()
	check := sd.checkLater(res.Files, o)
	defer check.wait()
	got := repo.reviewAll(res.Files, base, oldSrc, newSrc, lock, o)
	for i, c := range res.Files {
		fs, err := got[i].fs, got[i].err
		var ps source.Problems
		switch {
		case errors.As(err, &ps):
			unread = append(unread, unreadable{c, ps})
		case err != nil:
			return nil, err
		}
		res.Findings = append(res.Findings, fs...)
	}
	cut, err := repo.historyCut(res.Files, base, o)
	if err != nil {
		return nil, err
	}
	res.Findings = append(res.Findings, cut...)
	same, err := check.get()
	if err != nil {
		return nil, err
	}
	unread = append(unread, same...)
	if len(unread) > 0 {
		fs, err := unreadableFindings(unread, len(res.Files)+len(same), o.Pipeline)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, fs...)
	}
	res.Findings = dedupe(res.Findings)
	rules.SortFindings(res.Findings)
	res.Compared = len(res.Files)
	res.Unmatched = misses.everywhere()
	return res, nil
}

// Sides are the two versions a review compares: the base (the merge base
// with --head's commit when one is given) and the head (the working tree,
// the index with --staged, or --head's commit). The config and the lock
// are read from the same two as the contracts.
type Sides struct {
	repo     *Repo
	Base     Base
	Old, New source.Source
	head     string // --head's commit, "" for the working tree or index
	// files lists the working tree when it is the new side (nil for the
	// index or a commit): taken once, with the side.
	files *source.Listing
	// headNames lists the commit or the index when it is the new side:
	// taken from the listing that opened it.
	headNames []string
	// tags are the release tags listed while choosing the base, nil when
	// that listed none: the review then lists them itself.
	tags    *tagList
	closers []func() error
}

// OpenSides resolves and opens o's two sides; Close ends their git
// processes.
func (r *Repo) OpenSides(o Options) (*Sides, error) {
	var base Base
	var err error
	if o.Staged && o.Base == "" {
		base = r.ResolveStaged()
	} else if base, err = r.ResolveBase(o.Base); err != nil {
		return nil, err
	}
	head, err := r.resolveHead(o.Head, &base)
	if err != nil {
		return nil, err
	}
	sd := &Sides{repo: r, Base: base, head: head, tags: r.listedTags}
	r.listedTags = nil
	old, err := source.OpenRev(r.Top, base.Commit)
	if err != nil {
		return nil, err
	}
	sd.Old, sd.closers = old, append(sd.closers, old.Close)
	switch {
	case head != "":
		rev, err := source.OpenRev(r.Top, head)
		if err != nil {
			sd.Close()
			return nil, err
		}
		rev.ShareCat(old)
		sd.New, sd.headNames, sd.closers = rev, rev.Listed(), append(sd.closers, rev.Close)
	case o.Staged:
		idx, err := source.OpenIndex(r.Top)
		if err != nil {
			sd.Close()
			return nil, err
		}
		idx.ShareCat(old)
		sd.New, sd.headNames, sd.closers = idx, idx.Listed(), append(sd.closers, idx.Close)
	default:
		files, err := source.ListWorkTree(r.Top)
		if err != nil {
			sd.Close()
			return nil, err
		}
		wt, closeWT, err := source.OpenWorkTree(r.Top, files)
		if err != nil {
			sd.Close()
			return nil, err
		}
		sd.New, sd.files, sd.closers = wt, files, append(sd.closers, closeWT)
	}
	return sd, nil
}

// Repo is the repository the sides were read from.
func (sd *Sides) Repo() *Repo { return sd.repo }

// Close ends the git processes that read the sides.
func (sd *Sides) Close() {
	for _, c := range sd.closers {
		_ = c()
	}
}

// reachedRoots lists the contracts the change did not touch that reach a
// file it did, through $refs or imports: each is compared whole, so a
// change to a shared schema is judged by the operations that use it. A
// contract that changed outside the paths (outside) joins when it reaches a
// change inside them, its own change included: a root is compared whether
// or not it changed too. A vendored contract a change reaches is not
// compared; it is named as not reviewed (copies), as a vendored contract
// that changed itself is.
func (r *Repo) reachedRoots(changes, compared, outside []FileChange, sd *Sides,
	inPaths func(string) bool, o Options) (reached []FileChange, copies []string) {
	oldSrc, newSrc := sd.Old, sd.New
	changed := map[string]bool{}
	var bumped []string // submodules whose commit changed: every file in them did
	for _, c := range changes {
		// A $ref may name a file of any extension, or none: every changed
		// file may be part of a contract.
		for _, name := range []string{c.Old, c.New} {
			switch {
			case name != "" && c.Submodule:
				bumped = append(bumped, name)
			case name != "":
				changed[name] = true
			}
		}
	}
	if len(changed) == 0 && len(bumped) == 0 {
		return nil, nil
	}
	isChanged := func(n string) bool { return changed[n] || under(n, bumped) }
	selected := map[string]bool{}
	for _, c := range compared {
		changed[c.New], selected[c.New] = true, true
	}
	names := sd.headFiles()
	g := newGraph(o.Pipeline.Limits.Guard(newSrc, nil), o.Pipeline.ProtoPaths)
	var roots, theirs []string
	for _, name := range names {
		if changed[name] || !selects(o.Globs, name) {
			continue
		}
		if _, err := oldSrc.Stat(name); err != nil {
			continue // new on this side: a change of its own
		}
		if o.GlobsFrom == "" && vendored(FileChange{New: name}, o.Paths) != "" {
			theirs = append(theirs, name) // a copy of someone else's: not compared as ours
			continue
		}
		roots = append(roots, name)
	}
	g.prefetch(roots)
	for _, name := range theirs {
		if via := g.reachesIf(name, isChanged); len(via) > 0 && isContractWithin(newSrc, name, o.Globs, o.Pipeline.Limits) {
			copies = append(copies, copyNote(name, vendored(FileChange{New: name}, o.Paths)))
		}
	}
	for _, c := range outside {
		via := g.reachesIf(c.New, isChanged)
		if !slices.ContainsFunc(via, inPaths) {
			continue
		}
		if isProto(c.New) && c.Status != Added {
			c.Also = alsoCompared(via, selected, oldSrc, newSrc)
		}
		reached = append(reached, c)
	}
	for _, name := range roots {
		via := g.reachesIf(name, isChanged)
		// A path argument selects changes: one under it is judged through
		// every contract that reaches it, inside the paths or not.
		if len(via) == 0 || !inPaths(name) && !slices.ContainsFunc(via, inPaths) || !isContractWithin(newSrc, name, o.Globs, o.Pipeline.Limits) {
			continue
		}
		c := FileChange{Status: Modified, Old: name, New: name}
		if isProto(name) {
			// A proto diff compares the files it is given, not their
			// imports: the changed imports that exist on both sides join.
			// One compared on its own already says all a join would, so
			// a widely imported file does not recompile every importer.
			c.Also = alsoCompared(via, selected, oldSrc, newSrc)
			if len(c.Also) == 0 {
				continue
			}
		}
		reached = append(reached, c)
	}
	return reached, copies
}

// copyNote says why a vendored contract a change touches is not reviewed.
func copyNote(name, dir string) string {
	return fmt.Sprintf("%s is under %s, a copy of someone else's contracts; list it in contracts: in .contractlint.yaml, or name it as a path, to review it", name, dir)
}

// headFiles lists the head's files: the commit's (--head), the index's
// (--staged), else the working tree's, tracked or untracked and not ignored.
// The listings that opened the side answer; no git runs again.
func (sd *Sides) headFiles() []string {
	if sd.files != nil {
		return sd.files.Names
	}
	return sd.headNames
}

// checked is checkUnchanged's answer, found in the background or when
// asked.
type checked struct {
	done chan struct{} // nil when it is found when asked
	get  func() ([]unreadable, error)
}

// checkLater starts checkUnchanged of files, which reads no history, in
// the background, beside the walks and the loads: the rest of the review
// then only takes its answer. Not with --stats, whose phases one goroutine
// records: it is checked when asked.
func (sd *Sides) checkLater(files []FileChange, o Options) *checked {
	if o.Pipeline.Stats != nil {
		return &checked{get: func() ([]unreadable, error) { return sd.checkUnchanged(files, o) }}
	}
	c := &checked{done: make(chan struct{})}
	var same []unreadable
	var err error
	go func() {
		defer close(c.done)
		same, err = sd.checkUnchanged(files, o)
	}()
	c.get = func() ([]unreadable, error) {
		<-c.done
		return same, err
	}
	return c
}

// wait waits for a check started in the background.
func (c *checked) wait() {
	if c.done != nil {
		<-c.done
	}
}

// checkUnchanged compiles the head's .proto contracts that no compare of
// this review read, when it compared any: as a diff of the two trees
// does, and as buf breaking builds the whole module, a file that did not
// change but does not compile is reported (contract-unreadable), never
// hidden because nothing changed in it. Its problems are grouped by file;
// those in a compared file are its compare's to report.
func (sd *Sides) checkUnchanged(files []FileChange, o Options) ([]unreadable, error) {
	newSrc := sd.New
	read := map[string]bool{}
	anyProto := false
	for _, c := range files {
		anyProto = anyProto || isProto(c.New) && c.Status != Deleted
		read[c.New] = true
		for _, a := range c.Also {
			read[a] = true
		}
	}
	if !anyProto {
		return nil, nil
	}
	names := sd.headFiles()
	var rest []string
	dep := importPathFiles(newSrc, o.Pipeline.ProtoPaths)
	for _, n := range names {
		c := FileChange{Status: Modified, Old: n, New: n}
		if read[n] || !isProto(n) || !selects(o.Globs, n) || dep(n) ||
			o.GlobsFrom == "" && vendored(c, o.Paths) != "" || bufExcluded(newSrc, c) {
			continue
		}
		if _, err := newSrc.Stat(n); err != nil {
			continue // tracked, but gone from the working tree
		}
		rest = append(rest, n)
	}
	var ps source.Problems
	for _, files := range moduleGroups(newSrc, rest, o.Pipeline.ProtoPaths) {
		s, err := asModule(side(newSrc, files[0], files[1:]...), o.Pipeline.ProtoPaths)
		if err != nil {
			return nil, err
		}
		s.Label = pipeline.BothSides
		var some source.Problems
		if err := pipeline.CheckProto(s, o.Pipeline); err != nil && !errors.As(err, &some) {
			return nil, err
		}
		ps = append(ps, some...)
	}
	var out []unreadable
	at := map[string]int{}
	for _, p := range ps {
		if read[p.File] {
			continue
		}
		i, ok := at[p.File]
		if !ok {
			i, at[p.File] = len(out), len(out)
			out = append(out, unreadable{file: FileChange{Status: Modified, Old: p.File, New: p.File}})
		}
		out[i].probs = append(out[i].probs, p)
	}
	return out, nil
}

// moduleGroups splits files into those under a buf configuration and
// those under none, which asModule compiles from the repository's top
// (with --proto-path or proto.paths, one group, as given).
func moduleGroups(src source.Source, files, paths []string) [][]string {
	groups := [][]string{files}
	if len(paths) == 0 {
		var configured, top []string
		for _, f := range files {
			if ok, err := protobuf.Configured(src, f); err != nil || ok {
				configured = append(configured, f) // a bad buf.yaml is its compile's to report
			} else {
				top = append(top, f)
			}
		}
		groups = [][]string{configured, top}
	}
	return slices.DeleteFunc(groups, func(g []string) bool { return len(g) == 0 })
}

// importPathFiles reports whether a file lies under one of the extra
// import roots (--proto-path, proto.paths), reached through a symbolic
// link or not: such a file is compiled under its import name when a
// contract imports it, and compiling it under its path as well would
// declare every symbol in it twice.
func importPathFiles(src source.Source, paths []string) func(string) bool {
	var dirs []string
	for _, p := range paths {
		if d, err := source.Resolve(src, p); err == nil && d != "." {
			dirs = append(dirs, d)
		}
	}
	return func(name string) bool { return under(name, dirs) }
}

// alsoCompared are the changed imports of a proto root that join its
// compare: those on both sides that are not compared on their own.
func alsoCompared(via []string, selected map[string]bool, oldSrc, newSrc source.Source) []string {
	return slices.DeleteFunc(via, func(v string) bool {
		_, errOld := oldSrc.Stat(v)
		_, errNew := newSrc.Stat(v)
		return !isProto(v) || selected[v] || errOld != nil || errNew != nil
	})
}

// dedupe keeps one finding per rule, place and message: two roots reaching
// one changed schema report its change once, with the operations of both.
func dedupe(fs []rules.Finding) []rules.Finding {
	type key struct {
		rule, msg string
		at        rules.Location
	}
	seen := map[key]int{}
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Rule, f.Message, f.Where}
		if i, ok := seen[k]; ok {
			ops := slices.Concat(out[i].Operations, f.Operations)
			slices.Sort(ops)
			out[i].Operations = slices.Compact(ops)
			continue
		}
		seen[k] = len(out)
		out = append(out, f)
	}
	return out
}

// evidenceMisses counts, for each evidence entry, the compared contracts of
// its format that it matched nothing in.
type evidenceMisses struct {
	mu       sync.Mutex // files loaded at once add theirs at once (see reviewAll)
	count    map[readers.Entry]int
	compared map[rules.Format]int
}

// add counts one compared contract and its misses; an entry the evidence
// holds twice (a file named twice, or through its directory too) is still
// one miss.
func (m *evidenceMisses) add(f rules.Format, es []readers.Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
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
func (c FileChange) selected(oldSrc, newSrc source.Source, globs []string, l limits.Limits) bool {
	if c.New != "" && isContractWithin(newSrc, c.New, globs, l) {
		return true
	}
	return c.Old != "" && isContractWithin(oldSrc, c.Old, globs, l)
}

// reviewed is one file's review: its findings, or why it has none.
type reviewed struct {
	fs  []rules.Finding
	err error
}

// fatal reports whether err ends the review (a file that does not read
// is reported, not fatal).
func fatal(err error) bool {
	var ps source.Problems
	return err != nil && !errors.As(err, &ps)
}

// reviewAll reviews files, up to the first whose review fails. Without
// --stats (whose phases one goroutine records) and when every file reads a
// history, the files load at once, beside their histories' walks: a core
// the walk leaves idle (waiting on git, or on its last run of versions)
// loads one. What follows the load (the history handed to the rules, the
// rules, and what they record for the whole command) still goes file by
// file in order, each after the files before it are done, and not at all
// after one failed (see Options.turn).
func (r *Repo) reviewAll(files []FileChange, base Base, oldSrc, newSrc source.Source, lock *rules.History, o Options) []reviewed {
	got := make([]reviewed, len(files))
	together := o.Pipeline.Stats == nil && len(files) > 1 &&
		!slices.ContainsFunc(files, func(c FileChange) bool { return !c.walksHistory() })
	if !together {
		for i, c := range files {
			if got[i].fs, got[i].err = r.review(c, base, oldSrc, newSrc, lock, o); fatal(got[i].err) {
				break
			}
		}
		return got
	}
	done := make([]chan struct{}, len(files)) // closed when a file and those before it are reviewed
	for i := range done {
		done[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for i, c := range files {
		wg.Go(func() {
			defer func() {
				if i > 0 {
					<-done[i-1]
				}
				close(done[i])
			}()
			oi := o
			oi.turn = func() bool {
				if i == 0 {
					return true
				}
				<-done[i-1]
				return !slices.ContainsFunc(got[:i], func(x reviewed) bool { return fatal(x.err) })
			}
			got[i].fs, got[i].err = r.review(c, base, oldSrc, newSrc, lock, oi)
		})
	}
	wg.Wait()
	return got
}

// errNotTurn ends a file's review when one before it failed: the review
// ends with that one's error.
var errNotTurn = errors.New("an earlier file's review failed")

func (r *Repo) review(c FileChange, base Base, oldSrc, newSrc source.Source, lock *rules.History, o Options) ([]rules.Finding, error) {
	po := o.Pipeline
	turn := o.turn
	if turn == nil {
		turn = func() bool { return true }
	}
	var history func() (*rules.History, error)
	if c.walksHistory() {
		var once sync.Once
		var h *rules.History
		var err error
		history = func() (*rules.History, error) {
			once.Do(func() { h, err = r.historyOf(c, base, oldSrc, lock, o) })
			return h, err
		}
	}
	// The history is handed to the rules once both sides are loaded (Diff
	// calls Compared between the two); a history that failed, or a turn
	// that never came, cancels them: the review ends with that error.
	ctx, cancel := context.WithCancel(cmp.Or(po.Context, context.Background()))
	defer cancel()
	po.Context = ctx
	if prev := po.Compared; history != nil || o.turn != nil {
		po.Compared = func(in *rules.Input) {
			if !turn() {
				cancel()
				return
			}
			if history != nil {
				h, err := history()
				if err != nil {
					cancel()
					return
				}
				in.History = h
			}
			if prev != nil {
				prev(in)
			}
		}
	}
	fs, err := r.compareFile(c, base, oldSrc, newSrc, po, turn, history)
	if history != nil {
		if _, herr := history(); herr != nil {
			return nil, herr
		}
	}
	if !turn() {
		return nil, errNotTurn
	}
	return fs, err
}

// compareFile is review's comparison of c; turn waits for the files before
// it (false when one failed), history is c's (nil when c has none), taken
// when its rules run.
func (r *Repo) compareFile(c FileChange, base Base, oldSrc, newSrc source.Source, po pipeline.Options, turn func() bool, history func() (*rules.History, error)) ([]rules.Finding, error) {
	if c.Status != Added && c.Status != Deleted && c.Old != c.New && isProto(c.New) {
		out, err := leftModules(c.New, newSrc)
		if err != nil {
			return nil, err
		}
		if out {
			c.Status = Deleted
		}
	}
	if c.Status == Deleted || c.Status == Added {
		// No load to wait on: the rule runs in turn, with the history.
		if !turn() {
			return nil, errNotTurn
		}
		if history != nil {
			h, err := history()
			if err != nil {
				return nil, err
			}
			po.History = h
		}
	}
	switch c.Status {
	case Deleted:
		return removed(c.Old, po)
	case Added:
		s, err := asModule(labelled(side(newSrc, c.New), headLabel(newSrc)), po.ProtoPaths)
		if err != nil {
			return nil, err
		}
		return pipeline.Lint(s, po)
	}
	oldSide, err := asModule(labelled(side(oldSrc, c.Old, c.Also...), "base "+base.Ref), po.ProtoPaths)
	if err != nil {
		return nil, err
	}
	newSide, err := asModule(labelled(side(newSrc, c.New, c.Also...), headLabel(newSrc)), po.ProtoPaths)
	if err != nil {
		return nil, err
	}
	// A moved .proto file is deleted at its old path, as diff of the two
	// trees and buf see it; its elements are still compared by name.
	oldSide.ByName = c.Old != c.New
	if oldSide.ByName && isProto(c.New) && len(po.ProtoPaths) > 0 {
		whole, err := repositoryIsModule(c, oldSrc, newSrc)
		if err != nil {
			return nil, err
		}
		if whole {
			if oldSide, err = namedFromTop(oldSide); err == nil {
				newSide, err = namedFromTop(newSide)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return pipeline.Diff(oldSide, newSide, po)
}

// leftModules reports a .proto file moved to where the buf configuration
// above it holds it in no module: buf builds it no more, so to buf
// breaking and to diff of the two trees the module lost the file, however
// its new path would name it.
func leftModules(name string, src source.Source) (bool, error) {
	configured, err := protobuf.Configured(src, name)
	if err != nil || !configured {
		return false, err
	}
	declared, err := protobuf.Declared(src, name)
	return !declared, err
}

// asModule names a .proto side's files from the repository's top when no
// buf.yaml or buf.work.yaml lies above the first of them and neither
// --proto-path nor proto.paths is given: the repository is then the
// module, as the directory handed to buf breaking or to diff is, and
// imports resolve from its top only. An import that resolves only from a
// subdirectory is an error at its import line naming where it was looked
// for and how to declare the root, as diff of the two trees fails on it:
// a root guessed here would compare, and maybe pass, what diff refuses.
func asModule(s pipeline.Side, paths []string) (pipeline.Side, error) {
	if len(paths) > 0 || !isProto(s.Files[0]) {
		return s, nil
	}
	configured, err := protobuf.Configured(s.Src, s.Files[0])
	if err != nil || configured {
		return s, err
	}
	s.Dir = "."
	return s, nil
}

// repositoryIsModule reports whether a moved .proto file is named by its
// path in the repository: no buf.yaml or buf.work.yaml holds it on either
// side, so the repository is the module, as the directory handed to buf
// breaking is, and a move to another directory under the same file name
// deletes the old path (FILE_NO_DELETE), though the name relative to the
// file's own directory stays.
func repositoryIsModule(c FileChange, oldSrc, newSrc source.Source) (bool, error) {
	for _, s := range []struct {
		src  source.Source
		name string
	}{{oldSrc, c.Old}, {newSrc, c.New}} {
		declared, err := protobuf.Declared(s.src, s.name)
		if err != nil || declared {
			return false, err
		}
	}
	return true, nil
}

// namedFromTop names a side's files by their path in the repository, the
// top being the first import root, and keeps the root its imports resolve
// from after it: imports by a path relative to the file's own directory
// still resolve, whatever name the file is compared under.
func namedFromTop(s pipeline.Side) (pipeline.Side, error) {
	roots, err := protobuf.FindRoots(s.Src, s.Files[0])
	if err != nil {
		return s, err
	}
	s.Dir = "."
	s.ProtoPaths = slices.DeleteFunc(roots, func(r string) bool { return r == "." })
	return s, nil
}

// labelled names a side in its problems: both sides show one name.
func labelled(s pipeline.Side, label string) pipeline.Side {
	s.Label = label
	return s
}

// headLabel names the side under review: the working tree, the index or
// the commit (--head).
func headLabel(src source.Source) string {
	l := src.Label()
	if len(l) == 40 && strings.Trim(l, "0123456789abcdef") == "" {
		l = l[:7] // a commit, shortened as git shows it
	}
	return "head: " + l
}

func side(src source.Source, name string, also ...string) pipeline.Side {
	return pipeline.Side{Src: src, Files: append([]string{name}, also...), Display: func(s string) string { return s }}
}

func isProto(name string) bool { return strings.EqualFold(path.Ext(name), ".proto") }

// removed reports a deleted contract through the contract-file-removed rule.
func removed(name string, po pipeline.Options) ([]rules.Finding, error) {
	format := rules.OpenAPI
	if isProto(name) {
		format = rules.Proto
	}
	ch := rules.Change{Kind: rules.Removed, Subject: rules.SubjectContract, Format: format,
		Name: name, Path: name, OldLoc: rules.Location{File: name, Line: 1, Column: 1}}
	return reportChange("contract-file-removed", ch, po)
}

// reportChange runs one rule over one change that only review sees (a
// file deleted, the lock weakened), so config, severity overrides and path
// ignores apply to it as to any rule.
func reportChange(id string, ch rules.Change, po pipeline.Options) ([]rules.Finding, error) {
	r, ok := po.Registry.Get(id)
	if !ok {
		return nil, fmt.Errorf("rule %s is not registered", id)
	}
	reg, err := rules.NewRegistry([]*rules.Rule{r})
	if err != nil {
		return nil, err
	}
	return engine.RunMatched(reg, po.Settings, po.Matched, rules.DiffRule, &rules.Input{Changes: []rules.Change{ch}}), nil
}
