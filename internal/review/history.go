package review

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/contractlint/contractlint/internal/cache"
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
	key, keyed := historyKey(c.Old, base.Commit, o)
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
	err := st.Measure("history", func() error {
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
			all, err := r.walks.versions(r, base.Commit, st)
			if err != nil {
				return err
			}
			vs = all[c.Old]
		}
		st.Walked(0, len(vs))
		g, _ := baseSrc.(*source.Git)
		po := o.Pipeline
		po.Stats = st.Within() // the loads are inside the walk's phase
		r.addVersions(walked, g, c.Old, vs, po)
		st.AddCache(po.Stats)
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

// historyKey keys a full walk's result in --cache: what a commit's history
// holds never changes, so the file, the commit and the import roots its
// versions were loaded with name it (the store adds the tool's build).
func historyKey(name, commit string, o Options) (cache.Key, bool) {
	if o.Pipeline.Cache == nil || o.HistoryDepth != 0 {
		return cache.Key{}, false
	}
	return sha256.Sum256([]byte(strings.Join(append([]string{"history 1", name, commit}, o.Pipeline.ProtoPaths...), "\x00"))), true
}

// addVersions adds the fields of every version in vs of name to h, loading
// them on every core; each is credited to its newest commit.
func (r *Repo) addVersions(h *rules.History, base *source.Git, name string, vs []version, po pipeline.Options) {
	loaded := make([]*rules.Contract, len(vs))
	par.Each(len(vs), func(i int) { loaded[i] = r.loadVersion(base, name, vs[i], po) })
	for i, v := range vs {
		h.Add(loaded[i], v.commit[:min(len(v.commit), 12)])
	}
}

// version is one content a file had: its blob, and the newest commit that
// had it.
type version struct{ commit, blob string }

// loadVersion lowers name as v had it. Its imports are read from the base
// tree, which holds them for almost every version at the cost of no tree
// listing; a version whose imports the base lacks is loaded from its own
// commit, as it was. nil when neither compiles.
func (r *Repo) loadVersion(base *source.Git, name string, v version, po pipeline.Options) *rules.Contract {
	if base != nil {
		if c, err := pipeline.Load(side(base.Pinned(name, v.blob, v.commit), name), po); err == nil {
			return c
		}
	}
	src, err := source.OpenRev(r.Top, v.commit)
	if err != nil {
		return nil
	}
	defer src.Close()
	c, err := pipeline.Load(side(src, name), po)
	if err != nil {
		return nil
	}
	return c
}

// walks keeps, per revision, the versions of every .proto file reachable
// from it, so a review of many files walks the history once.
type walks struct {
	mu  sync.Mutex
	got map[string]map[string][]version
}

// versions lists each .proto file's distinct contents in the commits
// reachable from rev, newest first. One `git log --raw` lists the blob every
// commit gave each file it changed: walking the whole history once costs
// less than one pathspec-limited log per file, and far less than listing
// each commit's tree. Merges are compared with their first parent, so a
// version a merge made is seen too.
func (w *walks) versions(r *Repo, rev string, st *pipeline.Stats) (map[string][]version, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if vs, ok := w.got[rev]; ok {
		return vs, nil
	}
	out, err := r.git(append(rawLog(), rev, "--")...)
	if err != nil {
		return nil, err
	}
	log := parseRawLog(out)
	st.Walked(log.commits, 0)
	if w.got == nil {
		w.got = map[string]map[string][]version{}
	}
	w.got[rev] = log.versions
	return log.versions, nil
}

// rawLog is the git log that lists, per commit, the blob of every file it
// changed; parseRawLog reads it.
func rawLog(extra ...string) []string {
	return append([]string{"log", "--format=%x01%H", "--raw", "--no-abbrev", "--no-renames", "--root",
		"--diff-merges=first-parent", "-z"}, append(extra, "--end-of-options")...)
}

// parseRawLog reads `git log --format=%x01%H --raw -z`: a commit is
// "\x01<id>", each of its changes ":<modes> <oids> <status>" then the path.
// It keeps regular .proto files, each blob once, at the newest commit.
func parseRawLog(out []byte) rawLogOf {
	vs := map[string][]version{}
	commits := 0
	seen := map[[2]string]bool{}
	var commit string
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := strings.TrimLeft(string(fields[i]), "\n")
		switch {
		case strings.HasPrefix(f, "\x01"):
			commit = f[1:]
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
			vs[name] = append(vs[name], version{commit: commit, blob: meta[3]})
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
