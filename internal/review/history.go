package review

import (
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
		var vs []version
		if o.HistoryDepth > 0 {
			// A bounded walk stops at the depth: a log of that file alone.
			out, err := r.git(append(rawLog("-n", strconv.Itoa(o.HistoryDepth)), base.Commit, "--", c.Old)...)
			if err != nil {
				return err
			}
			log := parseRawLog(out)
			st.Walked(log.commits, 0)
			vs = log.versions[c.Old]
		} else {
			g, _ := baseSrc.(*source.Git)
			all, err := r.walks.versions(r, base.Commit, st, g)
			if err != nil {
				return err
			}
			vs = all[c.Old]
		}
		st.Walked(0, len(vs))
		g, _ := baseSrc.(*source.Git)
		po := o.Pipeline
		po.Stats = st.Within() // the loads are inside the walk's phase
		read := r.versionUses(g, c.Old, vs, po)
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

// histories walks the histories of the files that need one at once, as one
// phase, when there are several: a walk leaves a core idle while it waits
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
		_ = o.Pipeline.Stats.Measure("history", func() error {
			early.wait()
			return nil
		})
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
	_ = o.Pipeline.Stats.Measure("history", func() error {
		defer walkGC()()
		par.Each(len(todo), func(i int) {
			got[i].h, got[i].err = r.history(todo[i], base, baseSrc, lock, inner)
		})
		return nil
	})
	for i, c := range todo {
		walked[walkedKey(c)] = got[i]
	}
	return walked
}

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

// historyOf is c's history: histories', else walked now.
func (r *Repo) historyOf(c FileChange, base Base, baseSrc source.Source, lock *rules.History, o Options) (*rules.History, error) {
	if w, ok := o.walked[walkedKey(c)]; ok {
		return w.h, w.err
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
	for i, v := range vs {
		u := rules.UsedNumber{Seen: v.commit[:min(len(v.commit), 12)]}
		if released != nil && !released[v.blob] {
			u.Unreleased, u.Since, u.Until = true, day(v.time), day(v.time)
			if i > 0 {
				u.Until = day(vs[i-1].time)
			}
		}
		for _, x := range read[i] {
			if rel, ok := held[x]; ok && (rel || u.Unreleased) {
				continue
			}
			held[x] = !u.Unreleased
			seen := u
			seen.Message, seen.Number, seen.Name, seen.Type = x.Message, x.Number, x.Name, x.Type
			used = append(used, seen)
		}
	}
	h.Merge(&rules.History{Used: used})
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

// walked is one revision's walk: its versions, the commits it listed and
// whether a walk that needed it has counted them (see Stats.Walked).
type walked struct {
	versions map[string][]version
	commits  int
	counted  bool
}

// versions lists each .proto file's distinct contents in the commits
// reachable from rev, newest first (see walk); the first call for rev
// counts the commits listed in st.
func (w *walks) versions(r *Repo, rev string, st *pipeline.Stats, snap *source.Git) (map[string][]version, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	got, err := w.walk(r, rev, snap)
	if err != nil {
		return nil, err
	}
	if !got.counted {
		got.counted = true
		st.Walked(got.commits, 0)
	}
	return got.versions, nil
}

// prefetch walks rev on its own goroutine, so that git lists the history
// while the review does its other work; the walk that needs it waits for
// it. An error is left for that walk to meet and say.
func (w *walks) prefetch(r *Repo, rev string, snap *source.Git) {
	go func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, _ = w.walk(r, rev, snap)
	}()
}

// walk reads the versions of rev's history once; w.mu is held. One `git
// log --raw` lists the blob every commit gave each file it changed:
// walking the whole history once costs less than one pathspec-limited log
// per file, and far less than listing each commit's tree. Merges are
// compared with their first parent, so a version a merge made is seen too.
//
// snap, when it is rev's snapshot (nil otherwise), answers the walk of a
// root commit (a repository's first, with no parent) without git log: its
// versions are its tree's files, which snap listed, at the commit's time,
// which snap's cat-file reads.
func (w *walks) walk(r *Repo, rev string, snap *source.Git) (*walked, error) {
	if got, ok := w.got[rev]; ok {
		return got, nil
	}
	log, ok := rootLog(snap, rev)
	if !ok {
		out, err := r.git(append(rawLog(), rev, "--")...)
		if err != nil {
			return nil, err
		}
		log = parseRawLog(out)
	}
	if w.got == nil {
		w.got = map[string]*walked{}
	}
	got := &walked{versions: log.versions, commits: log.commits}
	w.got[rev] = got
	return got, nil
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
	vs := map[string][]version{}
	commits := 0
	seen := map[[2]string]bool{}
	var commit string
	var at int64
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := strings.TrimLeft(string(fields[i]), "\n")
		switch {
		case strings.HasPrefix(f, "\x01"):
			id, t, _ := strings.Cut(f[1:], " ")
			commit, at = id, 0
			if n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64); err == nil {
				at = n
			}
			commits++
		case strings.HasPrefix(f, ":") && i+1 < len(fields):
			i++
			name := string(fields[i])
			meta := strings.Fields(f)
			// :<old mode> <new mode> <old oid> <new oid> <status>
			if len(meta) != 5 || !isRegular(meta[1]) || !isProto(name) || seen[[2]string{name, meta[3]}] {
				continue
			}
			seen[[2]string{name, meta[3]}] = true
			vs[name] = append(vs[name], version{commit: commit, blob: meta[3], time: at})
		}
	}
	return rawLogOf{versions: vs, commits: commits}
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
