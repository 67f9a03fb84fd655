package review

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"path"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/engine"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// LockedRelease is a release recorded in the lock: its contracts' digests
// (sha256 of the text at the release), so a transitive review can tell a
// release a squash removed, or a tag that moved, from one it compared.
type LockedRelease struct {
	Name      string            `json:"name"`
	Commit    string            `json:"commit"`
	Contracts map[string]string `json:"contracts"`
	// Blobs are the contracts' git object ids: after a squash the content
	// may still be in the object store (another branch, objects not yet
	// pruned), and then the release can be compared whole.
	Blobs map[string]string `json:"blobs,omitempty"`
	// Numbers are the field numbers the release's .proto contracts used,
	// kept apart from the lock's union, where another version's sighting
	// of the same field may stand for it.
	Numbers []rules.UsedNumber `json:"numbers,omitempty"`
}

// recordReleases adds every field number the releases' .proto contracts
// use to h (a release's commits may be gone from HEAD's history after a
// squash) and returns the releases with their contracts' digests.
func (r *Repo) recordReleases(h *rules.History, rels []LockedRelease, globs []string, po pipeline.Options) ([]LockedRelease, error) {
	out := make([]LockedRelease, 0, len(rels))
	for _, rel := range rels {
		b, err := r.git("ls-tree", "-r", "-z", "--end-of-options", rel.Commit)
		if err != nil {
			return nil, err
		}
		src, err := source.OpenRev(r.Top, rel.Commit)
		if err != nil {
			return nil, err
		}
		rel.Contracts, rel.Blobs = map[string]string{}, map[string]string{}
		own := &rules.History{}
		for _, rec := range source.SplitZ(b) {
			// <mode> SP <type> SP <oid> TAB <path>
			meta, name, _ := strings.Cut(rec, "\t")
			if f := strings.Fields(meta); len(f) == 3 {
				rel.Blobs[name] = f[2]
			}
			if !isContract(src, name, globs) {
				delete(rel.Blobs, name)
				continue
			}
			text, err := src.ReadFile(name)
			if err != nil {
				src.Close()
				return nil, err
			}
			sum := sha256.Sum256(text)
			rel.Contracts[name] = "sha256:" + hex.EncodeToString(sum[:])
			if isProto(name) {
				if c, err := pipeline.Load(side(src, name), po); err == nil {
					h.Add(c, rel.Name)
					own.Add(c, rel.Name)
				}
			}
		}
		src.Close()
		own.Sort()
		rel.Numbers = own.Used
		out = append(out, rel)
	}
	return out, nil
}

// mergeReleases keeps what the lock recorded and adds or refreshes rels:
// a release whose tag a squash deleted stays recorded.
func mergeReleases(old, rels []LockedRelease) []LockedRelease {
	out := slices.Clone(old)
	for _, rel := range rels {
		if i := slices.IndexFunc(out, func(o LockedRelease) bool { return o.Name == rel.Name }); i >= 0 {
			out[i] = rel
		} else {
			out = append(out, rel)
		}
	}
	slices.SortStableFunc(out, func(a, b LockedRelease) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ReadReleases reads the releases recorded in contractlint.lock at the top
// of src; nil when there is no lock or it records none.
func ReadReleases(src source.Source) ([]LockedRelease, error) {
	b, err := src.ReadFile(LockFile)
	if err != nil {
		return nil, nil
	}
	if _, err := ParseLock(b); err != nil {
		return nil, err
	}
	var doc lockDoc
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, err
	}
	return doc.Releases, nil
}

// LockedNumbers checks the head's .proto contracts against the field numbers
// rel used, for a release whose content is gone: a field on a number rel
// gave to another field is reported by field-number-reused, as a diff with
// rel would.
func LockedNumbers(o Options, rel LockedRelease, lock *rules.History) ([]rules.Finding, error) {
	repo, err := OpenRepo(o.Dir)
	if err != nil {
		return nil, err
	}
	// The head, as Run reads it: the index with Staged.
	var wt source.Source
	if o.Staged {
		idx, err := source.OpenIndex(repo.Top)
		if err != nil {
			return nil, err
		}
		defer idx.Close()
		wt = idx
	} else if wt, err = source.OpenDir(repo.Top); err != nil {
		return nil, err
	}
	h := &rules.History{Used: rel.Numbers}
	if len(rel.Numbers) == 0 && lock != nil {
		// A lock written before releases kept their own numbers.
		for _, u := range lock.Used {
			if u.Seen == rel.Name {
				h.Used = append(h.Used, u)
			}
		}
	}
	names, err := pipeline.ProtoFiles(wt, ".")
	if err != nil {
		return nil, err
	}
	var out []rules.Finding
	for _, name := range names {
		if !isContract(wt, name, o.Globs) {
			continue
		}
		c, err := pipeline.Load(side(wt, name), o.Pipeline)
		if err != nil {
			return nil, err
		}
		// An empty old side: every field of the head is new to the release.
		in := &rules.Input{Old: &rules.Contract{}, New: c, History: h}
		for _, m := range c.Messages {
			for _, f := range m.Fields {
				in.Changes = append(in.Changes, rules.Change{Kind: rules.Added, Subject: rules.SubjectField, Format: rules.Proto,
					Name: f.Name, Path: m.Name + "." + f.Name, NewLoc: f.Loc, NewField: f})
			}
		}
		for _, f := range engine.RunMatched(o.Pipeline.Registry, o.Pipeline.Settings, o.Pipeline.Matched, rules.DiffRule, in) {
			if f.Rule == "field-number-reused" {
				out = append(out, f)
			}
		}
	}
	rules.SortFindings(out)
	return out, nil
}

// Restore rebuilds a commit holding rel's contracts as the lock recorded
// them, when every one is still in the repository's object store with the
// recorded digest; "" when one is gone. The commit is unreferenced: git's
// garbage collection removes it. A lock naming a path outside the tree or
// an id that is no object id is an error.
func (rel LockedRelease) Restore(top string) (string, error) {
	if len(rel.Blobs) == 0 || len(rel.Blobs) != len(rel.Contracts) {
		return "", nil
	}
	for name, id := range rel.Blobs {
		if !isObjectID(id) || !cleanName(name) {
			return "", source.Errorf(LockFile, 0, 0, "release %s: %q with blob %q is not a path inside the repository with a git object id; regenerate it with `contractlint lock --releases`", rel.Name, name, id)
		}
		b, err := source.RunGit(top, "cat-file", "blob", id)
		if err != nil {
			return "", nil
		}
		if sum := sha256.Sum256(b); rel.Contracts[name] != "sha256:"+hex.EncodeToString(sum[:]) {
			return "", nil
		}
	}
	// A repository git cannot write to (read-only checkout) leaves the
	// release to its field numbers, as if the blobs were gone.
	tree, err := mkTree(top, rel.Blobs)
	if err != nil {
		return "", nil
	}
	out, err := source.RunGit(top, "-c", "user.name=contractlint", "-c", "user.email=contractlint@localhost",
		"commit-tree", "-m", "contracts of "+rel.Name+" as "+LockFile+" recorded them", tree)
	if err != nil {
		return "", nil
	}
	return strings.TrimSpace(string(out)), nil
}

// mkTree writes the tree of files (path -> blob id), one level at a time.
func mkTree(top string, files map[string]string) (string, error) {
	var in bytes.Buffer
	subs := map[string]map[string]string{}
	for name, id := range files {
		dir, rest, ok := strings.Cut(name, "/")
		if !ok {
			fmt.Fprintf(&in, "100644 blob %s\t%s\x00", id, name)
			continue
		}
		if subs[dir] == nil {
			subs[dir] = map[string]string{}
		}
		subs[dir][rest] = id
	}
	for dir, fs := range subs {
		id, err := mkTree(top, fs)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&in, "040000 tree %s\t%s\x00", id, dir)
	}
	cmd := exec.Command("git", "mktree", "-z")
	cmd.Dir, cmd.Stdin = top, &in
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git mktree: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func isObjectID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// cleanName accepts a relative slash path with no empty, "." or ".." part.
func cleanName(name string) bool {
	return name != "" && path.Clean(name) == name && !path.IsAbs(name) && name != "." &&
		!strings.HasPrefix(name, "../") && name != ".." && !strings.Contains(name, "\x00")
}
