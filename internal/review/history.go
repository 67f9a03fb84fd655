package review

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/contractlint/contractlint/internal/cache"
	"github.com/contractlint/contractlint/internal/fieldnums"
	"github.com/contractlint/contractlint/internal/par"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// history collects every field number c's .proto file used in the versions
// it had up to the base (bounded by o.HistoryDepth), plus the lock file's.
// A version that no longer compiles (an import since deleted) is skipped:
// the history only adds evidence, it never blocks the review.
func (r *Repo) history(c FileChange, base Base, baseSrc source.Source, lock *rules.History, o Options) (*rules.History, error) {
	h := &rules.History{}
	h.Merge(lock)
	if o.HistoryDepth < 0 || base.Commit == source.EmptyTree {
		return h, nil
	}
	st := o.Pipeline.Stats
	tags, err := r.releaseTags(o)
	if err != nil {
		return nil, err
	}
	key, keyed := historyKey(c.Old, base.Commit, tags, o)
	if keyed {
		if b, ok := o.Pipeline.Cache.Get(key); ok {
			var used []rules.UsedNumber
			if json.Unmarshal(b, &used) == nil {
				h.Merge(&rules.History{Used: used})
				return h, nil
			}
		}
	}
	walked := &rules.History{}
	measure := st.Measure
	if o.inWalks {
		measure = func(_ string, f func() error) error { return f() }
	}
	err = measure("history", func() error {
		defer walkGC()()
		// Which blobs releases hold is git's work alone: it is read while
		// the versions are.
		released := make(chan releasedOf, 1)
		go func() {
			blobs, err := r.releasedBlobs(c.Old, tags)
			released <- releasedOf{blobs, err}
		}()
		g, _ := baseSrc.(*source.Git)
		po := o.Pipeline
		po.Stats = st.Within() // the loads are inside the walk's phase
		var vs []version
		var read [][]fieldnums.Use
		if o.HistoryDepth > 0 {
			// A bounded walk stops at the depth: a log of that file alone.
			out, err := r.git(append(rawLog("-n", strconv.Itoa(o.HistoryDepth)), base.Commit, "--", c.Old)...)
			if err != nil {
				return err
			}
			log := parseRawLog(out)
			st.Walked(log.commits, 0)
			vs = log.versions[c.Old]
			read = r.versionUses(g, c.Old, vs, po)
		} else {
			// The versions are read as the log lists them: a run of
			// them as soon as the log has listed it.
			x := r.walks.of(r, base.Commit, g, c.Old)
			read = r.versionUsesOf(g, c.Old, func(n int) []version { return x.upto(c.Old, n) }, po)
			all, err := x.wait(st)
			if err != nil {
				return err
			}
			vs = all[c.Old]
		}
		st.Walked(0, len(vs))
		st.AddCache(po.Stats)
		rel := <-released
		if rel.err != nil {
			return rel.err
		}
		addVersions(walked, vs, read, rel.blobs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if keyed {
		if b, err := json.Marshal(walked.Used); err == nil {
			_ = o.Pipeline.Cache.Put(key, b) // a cache that cannot write only costs the next run time
		}
	}
	h.Merge(walked)
	return h, nil
}

// walksHistory reports whether the review of changes is likely to walk
// the whole history of base: a .proto file changed, none is --history-depth
// bounded, and --cache does not hold every such file's walk already.
func (r *Repo) walksHistory(changes []FileChange, base Base, o Options) bool {
	if o.HistoryDepth != 0 || base.Commit == source.EmptyTree {
		return false
	}
	for _, c := range changes {
		if c.Status == Added || c.Status == Deleted || !isProto(c.New) {
			continue
		}
		if o.Pipeline.Cache == nil {
			return true
		}
		tags, err := r.releaseTags(o)
		if err != nil {
			return false // the walk meets the error and says it
		}
		key, _ := historyKey(c.Old, base.Commit, tags, o)
		if _, ok := o.Pipeline.Cache.Get(key); !ok {
			return true
		}
	}
	return false
}

// walkedHistory is one file's history as histories walked it.
type walkedHistory struct {
	h   *rules.History
	err error
}

// walksHistory reports whether the review of c reads its history.
func (c FileChange) walksHistory() bool {
	return c.Status != Added && c.Status != Deleted && isProto(c.New)
}

func walkedKey(c FileChange) string { return c.Old + "\x00" + c.New }

// histories walks the histories of the files that need one at once, when
// there are several: a walk leaves a core idle while it waits
// on git or for its last run of versions, which another file's walk fills.
// The walks early started are waited for and taken, with lock.
func (r *Repo) histories(files []FileChange, base Base, baseSrc source.Source, lock *rules.History, o Options, early *earlyWalks) map[string]walkedHistory {
	var todo []FileChange
	for _, c := range files {
		if c.walksHistory() && !slices.ContainsFunc(todo, func(d FileChange) bool { return walkedKey(d) == walkedKey(c) }) {
			todo = append(todo, c)
		}
	}
	walked := map[string]walkedHistory{}
	if early != nil {
		early.wait()
		var rest []FileChange
		for _, c := range todo {
			w, ok := early.got[c.Old]
			if !ok {
				rest = append(rest, c)
				continue
			}
			if w.err != nil {
				walked[walkedKey(c)] = w
				continue
			}
			h := &rules.History{}
			h.Merge(lock)
			h.Merge(w.h)
			walked[walkedKey(c)] = walkedHistory{h: h}
		}
		todo = rest
	}
	if len(todo) < 2 {
		return walked
	}
	got := make([]walkedHistory, len(todo))
	inner := o
	inner.inWalks = true
	func() {
		defer walkGC()()
		par.Each(len(todo), func(i int) {
			got[i].h, got[i].err = r.history(todo[i], base, baseSrc, lock, inner)
		})
	}()
	for i, c := range todo {
		walked[walkedKey(c)] = got[i]
	}
	return walked
}

// laterWalks are the histories walked in the background while the files
// they belong to are loaded (see walkLater).
type laterWalks struct {
	done chan struct{}
	got  map[string]walkedHistory // by walkedKey, once done is closed
}

// walkLater walks, in the background, the histories histories walks: the
// early ones waited for, the rest at once. The walks are measured where a
// review waits for them (see historyOf), not here: one goroutine records
// the phases.
func (r *Repo) walkLater(files []FileChange, base Base, baseSrc source.Source, lock *rules.History, o Options, early *earlyWalks) *laterWalks {
	l := &laterWalks{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.got = r.histories(files, base, baseSrc, lock, o, early)
	}()
	return l
}

// wait waits for the walks to end.
func (l *laterWalks) wait() { <-l.done }

// earlyWalks are histories walked in the background from when the review
// knows which changed files it compares (see startWalks), by old name,
// without the lock.
type earlyWalks struct {
	done chan struct{}
	got  map[string]walkedHistory
}

// startWalks starts walking the histories of files, at once, while the
// review goes on to find what else the change reaches (istio/api: 0.13-0.19
// s, mostly waiting on git, which the walks fill). A file's history
// depends on its old name alone. nil when no file needs one.
func (r *Repo) startWalks(files []FileChange, base Base, baseSrc source.Source, o Options) *earlyWalks {
	var names []string
	for _, c := range files {
		if c.walksHistory() && !slices.Contains(names, c.Old) {
			names = append(names, c.Old)
		}
	}
	if len(names) == 0 {
		return nil
	}
	e := &earlyWalks{done: make(chan struct{}), got: map[string]walkedHistory{}}
	inner := o
	inner.inWalks = true
	go func() {
		defer close(e.done)
		defer walkGC()()
		got := make([]walkedHistory, len(names))
		par.Each(len(names), func(i int) {
			got[i].h, got[i].err = r.history(FileChange{Status: Modified, Old: names[i], New: names[i]}, base, baseSrc, nil, inner)
		})
		for i, name := range names {
			e.got[name] = got[i]
		}
	}()
	return e
}

// wait waits for the walks to end; nothing to wait for in a nil one.
func (e *earlyWalks) wait() {
	if e != nil {
		<-e.done
	}
}

// historyOf is c's history: the one walked in the background (see
// walkLater), else walked now.
func (r *Repo) historyOf(c FileChange, base Base, baseSrc source.Source, lock *rules.History, o Options) (*rules.History, error) {
	if o.later != nil {
		_ = o.Pipeline.Stats.Measure("history", func() error {
			o.later.wait()
			return nil
		})
		if w, ok := o.later.got[walkedKey(c)]; ok {
			return w.h, w.err
		}
	}
	return r.history(c, base, baseSrc, lock, o)
}

// historyKey keys a full walk's result in --cache: what a commit's history
// holds never changes, so the file, the commit, the release tags that say
// which versions were released and the import roots its versions were
// loaded with name it (the store adds the tool's build).
func historyKey(name, commit string, tags []string, o Options) (cache.Key, bool) {
	if o.Pipeline.Cache == nil || o.HistoryDepth != 0 {
		return cache.Key{}, false
	}
	parts := slices.Concat([]string{"history 2", name, commit}, tags, []string{"\x01"}, o.Pipeline.ProtoPaths)
	return sha256.Sum256([]byte(strings.Join(parts, "\x00"))), true
}

// walkGCPercent is the GC target while a history is walked. Parsing every
// version makes garbage many times what stays live (the last version read
// per core, the imports' symbols): collecting it less often saves CPU for
// a peak that stays low. A review's full walk without the cache, median
// CPU of six: istio/api 1.77 s at 100, 1.61 s at 300 (peak 44 MB, 55 MB);
// milvus-proto 1.19 s, 1.16 s (59 MB, 76 MB).
const walkGCPercent = 300

// walkGC sets the GC target for a walk and returns the function that
// restores it; the target is process-wide, and a GOGC the user set (any but
// the default 100) stays in force.
func walkGC() (restore func()) {
	prev := debug.SetGCPercent(walkGCPercent)
	if prev != 100 {
		debug.SetGCPercent(prev)
		return func() {}
	}
	return func() { debug.SetGCPercent(prev) }
}

// releasedOf is releasedBlobs' answer.
type releasedOf struct {
	blobs map[string]bool
	err   error
}

// addVersions adds the fields of every version in vs to h, read[i] those
// of vs[i] (see versionUses); each is credited to its newest commit. With released set
// (the blobs release tags hold), a version outside it is marked
// unreleased, with the dates it lived: from its commit to the next
// version's.
//
// Most versions repeat the uses of the one before, and h keeps the first
// sighting of a use unless a released one follows an unreleased one: only
// the sightings that can change h reach its Merge, in their order.
func addVersions(h *rules.History, vs []version, read [][]fieldnums.Use, released map[string]bool) {
	held := map[fieldnums.Use]bool{} // a use given to h: whether released
	var used []rules.UsedNumber
	prevReleased := false
	for i := range vs {
		u := sighting(vs, i, released)
		// The uses of the version before, once more: each is held, and
		// held released if that version was; an unreleased sighting, or a
		// released one after a released one, changes nothing.
		again := i > 0 && slices.Equal(read[i], read[i-1]) && (u.Unreleased || prevReleased)
		prevReleased = !u.Unreleased
		if again {
			continue
		}
		used = credit(used, held, u, read[i])
	}
	h.Merge(&rules.History{Used: used})
}

// sighting is what vs[i] tells of each use it has: its commit and, with
// released set, whether it was released and, if not, the dates it lived.
func sighting(vs []version, i int, released map[string]bool) rules.UsedNumber {
	v := vs[i]
	u := rules.UsedNumber{Seen: v.commit[:min(len(v.commit), 12)]}
	if released != nil && !released[v.blob] {
		u.Unreleased, u.Since, u.Until = true, day(v.time), day(v.time)
		if i > 0 {
			u.Until = day(vs[i-1].time)
		}
	}
	return u
}

// credit appends to used the sighting u of each use in uses that changes
// what held records: a use not yet given, or given unreleased and now
// seen released.
func credit(used []rules.UsedNumber, held map[fieldnums.Use]bool, u rules.UsedNumber, uses []fieldnums.Use) []rules.UsedNumber {
	for _, x := range uses {
		if rel, ok := held[x]; ok && (rel || u.Unreleased) {
			continue
		}
		held[x] = !u.Unreleased
		seen := u
		seen.Message, seen.Number, seen.Name, seen.Type = x.Message, x.Number, x.Name, x.Type
		used = append(used, seen)
	}
	return used
}

func day(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.DateOnly) }

// version is one content a file had: its blob, and the newest commit that
// had it with that commit's time.
type version struct {
	commit, blob string
	time         int64
}

// walks keeps, per revision, the versions of every .proto file reachable
// from it, so a review of many files walks the history once.
type walks struct {
	mu  sync.Mutex
	got map[string]*walked
}

// walked is one revision's walk, as its log lists it: the versions listed
// so far, the commits, whether the log has ended (and how), and whether a
// walk that needed it has counted its commits (see Stats.Walked).
type walked struct {
	rev      string
	names    []string // the files its log is limited to, nil for every file
	mu       sync.Mutex
	grew     sync.Cond // a commit's versions were added, or the log ended
	versions map[string][]version
	commits  int
	done     bool
	err      error
	counted  bool
}

// versions lists each .proto file's distinct contents in the commits
// reachable from rev, newest first (see walk), once the log has ended; the
// first call for rev counts the commits listed in st.
func (w *walks) versions(r *Repo, rev string, st *pipeline.Stats, snap *source.Git) (map[string][]version, error) {
	return w.walk(r, rev, snap, nil).wait(st)
}

// prefetch starts walking rev for the files names (see walk), so that git
// lists the history while the review does its other work; the walks that
// need it read it as it comes. An error is left for them to meet and say.
func (w *walks) prefetch(r *Repo, rev string, snap *source.Git, names []string) {
	w.walk(r, rev, snap, names)
}

// of is the walk of rev that lists name: one started for files name is
// among (see prefetch), else the walk of every file.
func (w *walks) of(r *Repo, rev string, snap *source.Git, name string) *walked {
	w.mu.Lock()
	for _, x := range w.got {
		if x.rev == rev && slices.Contains(x.names, name) && !x.failed() {
			w.mu.Unlock()
			return x
		}
	}
	w.mu.Unlock()
	return w.walk(r, rev, snap, nil)
}

// walk is rev's walk of the files names (every .proto file when nil),
// started if it is not under way or done well. One `git log --raw` lists
// the blob every commit gave each file it changed: walking the whole
// history once costs less than one pathspec-limited log per file, and far
// less than listing each commit's tree. Merges are compared with their
// first parent, so a version a merge made is seen too. Its output is read
// as git writes it, a commit at a time.
//
// A log of the files a review changed is limited to them: git then diffs
// only the trees that lead to them (istio/api: 2 MB of changes to read
// became 70 KB), and walks every parent of every merge (--full-history), so
// it lists each of their versions at the commits, and in the order, the log
// of every file does (TestWalkOfNamesIsWalkOfAll).
//
// snap, when it is rev's snapshot (nil otherwise), answers the walk of a
// root commit (a repository's first, with no parent) without git log: its
// versions are its tree's files, which snap listed, at the commit's time,
// which snap's cat-file reads.
func (w *walks) walk(r *Repo, rev string, snap *source.Git, names []string) *walked {
	w.mu.Lock()
	defer w.mu.Unlock()
	names = slices.Sorted(slices.Values(names))
	key := strings.Join(append([]string{rev}, names...), "\x00")
	if x, ok := w.got[key]; ok && !x.failed() {
		return x
	}
	x := &walked{rev: rev, names: names, versions: map[string][]version{}}
	x.grew.L = &x.mu
	if w.got == nil {
		w.got = map[string]*walked{}
	}
	w.got[key] = x
	if log, ok := rootLog(snap, rev); ok {
		x.versions, x.commits, x.done = log.versions, log.commits, true
		return x
	}
	go x.read(r, rev)
	return x
}

// failed reports whether x's log ended in an error.
func (x *walked) failed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.done && x.err != nil
}

// read runs the log of rev (of x.names, when set) and adds what it lists
// to x.
func (x *walked) read(r *Repo, rev string) {
	args := append([]string{"-c", "core.quotepath=off"}, append(rawLog(), rev, "--")...)
	if x.names != nil {
		args = slices.Concat([]string{"--literal-pathspecs", "-c", "core.quotepath=off"}, rawLog("--full-history"), []string{rev, "--"}, x.names)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Top
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		x.end(fmt.Errorf("git log: %v", err))
		return
	}
	p := &rawLogReader{versions: map[string][]version{}, seen: map[[2]string]bool{}}
	in := bufio.NewReaderSize(out, 64<<10)
	for {
		field, rerr := in.ReadBytes(0)
		field = bytes.TrimSuffix(field, []byte{0})
		if len(field) > 0 || rerr == nil {
			if p.field(field) {
				x.add(p)
			}
		}
		if rerr != nil {
			break
		}
	}
	x.add(p)
	if err := cmd.Wait(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		x.end(fmt.Errorf("git log: %s", msg))
		return
	}
	x.end(nil)
}

// add adds the versions p read since the last add.
func (x *walked) add(p *rawLogReader) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for name, vs := range p.versions {
		x.versions[name] = append(x.versions[name], vs...)
		delete(p.versions, name)
	}
	x.commits += p.commits
	p.commits = 0
	x.grew.Broadcast()
}

func (x *walked) end(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.done, x.err = true, err
	x.grew.Broadcast()
}

// upto waits until the log has listed n versions of name, or has ended,
// and returns those it has listed.
func (x *walked) upto(name string, n int) []version {
	x.mu.Lock()
	defer x.mu.Unlock()
	for !x.done && len(x.versions[name]) < n {
		x.grew.Wait()
	}
	return x.versions[name]
}

// wait waits for the log to end and returns every file's versions; the
// first call counts the commits listed in st.
func (x *walked) wait(st *pipeline.Stats) (map[string][]version, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for !x.done {
		x.grew.Wait()
	}
	if x.err != nil {
		return nil, x.err
	}
	if !x.counted {
		x.counted = true
		st.Walked(x.commits, 0)
	}
	return x.versions, nil
}

// rootLog is what parseRawLog reads of `git log --root` when rev, snap's
// commit, is a root commit: that one commit, adding every file of its
// tree. ok is false when rev has a parent (or snap is not rev's, or cat-file
// cannot tell): git log then walks it.
func rootLog(snap *source.Git, rev string) (log rawLogOf, ok bool) {
	if snap == nil || snap.Label() != rev {
		return rawLogOf{}, false
	}
	var body []byte
	err := snap.WithCat(func(c *source.Cat) error {
		header, err := c.Ask("contents " + rev)
		if err != nil {
			return err
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "commit" {
			return fmt.Errorf("git cat-file: %s is %q", rev, header) // nothing follows such an answer
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		body = make([]byte, n+1) // the commit, then a newline
		_, err = io.ReadFull(c.Out, body)
		return err
	})
	if err != nil {
		return rawLogOf{}, false
	}
	head, _, _ := bytes.Cut(body, []byte("\n\n"))
	var at int64 = -1
	for line := range strings.SplitSeq(string(head), "\n") {
		if strings.HasPrefix(line, "parent ") {
			return rawLogOf{}, false
		}
		// committer <name> <email> <time> <zone>
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "committer" {
			if t, err := strconv.ParseInt(f[len(f)-2], 10, 64); err == nil {
				at = t
			}
		}
	}
	if at < 0 {
		return rawLogOf{}, false
	}
	vs := map[string][]version{}
	for _, name := range snap.Listed() {
		if oid, mode, _ := snap.Entry(name); isRegular(mode) && isProto(name) {
			vs[name] = []version{{commit: rev, blob: oid, time: at}}
		}
	}
	return rawLogOf{versions: vs, commits: 1}, true
}

// rawLog is the git log that lists, per commit, the blob of every file it
// changed; parseRawLog reads it.
func rawLog(extra ...string) []string {
	return append([]string{"log", "--format=%x01%H %ct", "--raw", "--no-abbrev", "--no-renames", "--root",
		"--diff-merges=first-parent", "-z"}, append(extra, "--end-of-options")...)
}

// parseRawLog reads `git log --format=%x01%H %ct --raw -z`: a commit is
// "\x01<id> <time>", each of its changes ":<modes> <oids> <status>" then the path.
// It keeps regular .proto files, each blob once, at the newest commit.
func parseRawLog(out []byte) rawLogOf {
	p := &rawLogReader{versions: map[string][]version{}, seen: map[[2]string]bool{}}
	for field := range bytes.SplitSeq(out, []byte{0}) {
		p.field(field)
	}
	return rawLogOf{versions: p.versions, commits: p.commits}
}

// rawLogReader reads a raw log a field (NUL-separated) at a time.
type rawLogReader struct {
	versions map[string][]version
	commits  int
	seen     map[[2]string]bool
	commit   string
	at       int64
	meta     []byte // a change's, whose path is the next field
}

// field reads one field; true when it starts a commit (the ones before
// are whole). The fields are read as bytes: a log of every commit is
// megabytes of changes, mostly to other files (istio/api's 2,330 commits:
// 2 MB, once a string per field and one per word of each change).
func (p *rawLogReader) field(b []byte) bool {
	if p.meta != nil {
		meta := p.meta
		p.meta = nil
		if !protoName(b) {
			return false
		}
		// :<old mode> <new mode> <old oid> <new oid> <status>
		f := bytes.Fields(meta)
		if len(f) != 5 || !isRegular(string(f[1])) {
			return false
		}
		name, blob := string(b), string(f[3])
		if p.seen[[2]string{name, blob}] {
			return false
		}
		p.seen[[2]string{name, blob}] = true
		p.versions[name] = append(p.versions[name], version{commit: p.commit, blob: blob, time: p.at})
		return false
	}
	f := bytes.TrimLeft(b, "\n")
	switch {
	case len(f) > 0 && f[0] == 1:
		id, t, _ := bytes.Cut(f[1:], []byte(" "))
		p.commit, p.at = string(id), 0
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(t)), 10, 64); err == nil {
			p.at = n
		}
		p.commits++
		return true
	case len(f) > 0 && f[0] == ':':
		p.meta = f
	}
	return false
}

// protoName is isProto of a name read as bytes.
func protoName(b []byte) bool {
	return len(b) >= len(".proto") && bytes.EqualFold(b[len(b)-len(".proto"):], []byte(".proto"))
}

// rawLogOf is what a raw log told: each .proto file's versions, newest
// first, and how many commits it listed.
type rawLogOf struct {
	versions map[string][]version
	commits  int
}

func isRegular(mode string) bool { return mode == "100644" || mode == "100755" }

// releaseTags lists the repository's tags, each with the object it names,
// when the released policy applies: none with `history: all`, and none in a
// repository without tags, where every commit counts as released.
func (r *Repo) releaseTags(o Options) ([]string, error) {
	if o.HistoryAll {
		return nil, nil
	}
	if o.tags == nil {
		return r.listTags()
	}
	o.tags.once.Do(func() { o.tags.list, o.tags.err = r.listTags() })
	return o.tags.list, o.tags.err
}

func (r *Repo) listTags() ([]string, error) {
	out, err := r.git("for-each-ref", "--format=%(objectname) %(refname)", "refs/tags")
	if err != nil {
		return nil, err
	}
	return strings.Fields(strings.ReplaceAll(string(out), " ", "\x00")), nil
}

// tagList is releaseTags' answer, read once per review: the tags do not
// change while one runs.
type tagList struct {
	once sync.Once
	list []string
	err  error
}

// releasedBlobs lists the blobs name had in the trees of tags, read by one
// `git cat-file --batch-check`; nil when there are no tags (every version
// released).
func (r *Repo) releasedBlobs(name string, tags []string) (map[string]bool, error) {
	if len(tags) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, t := range tags {
		id, _, _ := strings.Cut(t, "\x00")
		in.WriteString(id + ":" + name + "\n")
	}
	cmd := exec.Command("git", "cat-file", "--batch-check=%(objectname) %(objecttype)")
	cmd.Dir, cmd.Stdin = r.Top, &in
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %v", err)
	}
	released := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		// A tag without the file answers "<id>:<name> missing".
		if id, kind, ok := strings.Cut(line, " "); ok && kind == "blob" {
			released[id] = true
		}
	}
	return released, nil
}
