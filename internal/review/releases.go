package review

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

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
}

// recordReleases adds every field number the releases' .proto contracts
// use to h (a release's commits may be gone from HEAD's history after a
// squash) and returns the releases with their contracts' digests.
func (r *Repo) recordReleases(h *rules.History, rels []LockedRelease, globs []string, po pipeline.Options) ([]LockedRelease, error) {
	out := make([]LockedRelease, 0, len(rels))
	for _, rel := range rels {
		b, err := r.git("ls-tree", "-r", "-z", "--name-only", "--end-of-options", rel.Commit)
		if err != nil {
			return nil, err
		}
		src, err := source.OpenRev(r.Top, rel.Commit)
		if err != nil {
			return nil, err
		}
		rel.Contracts = map[string]string{}
		for _, name := range source.SplitZ(b) {
			if !isContract(src, name, globs) {
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
				}
			}
		}
		src.Close()
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
