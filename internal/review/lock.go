package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// LockFile is the name of the lock, at the top of the repository.
const LockFile = "contractlint.lock"

// lockVersion is the lock's format version; a newer one is refused.
const lockVersion = 1

type lockDoc struct {
	Comment string             `json:"//"`
	Version int                `json:"version"`
	Numbers []rules.UsedNumber `json:"numbers"`
	// Releases are the versions `lock --releases` recorded.
	Releases []LockedRelease `json:"releases,omitempty"`
}

const lockComment = "every proto field number ever used; written by `contractlint lock`, never by hand"

// ReadLock reads contractlint.lock from the top of src; nil when absent.
func ReadLock(src source.Source) (*rules.History, error) {
	b, err := src.ReadFile(LockFile)
	if err != nil {
		if _, statErr := src.Stat(LockFile); statErr != nil {
			return nil, nil
		}
		return nil, source.Errorf(LockFile, 0, 0, "cannot read: %v", err)
	}
	return ParseLock(b)
}

// readLocks reads the lock on both sides. The base's is the protection: the
// change under review may add to it, never take from it, so the history is
// the union of both. weakened describes what the new side dropped (nil when
// nothing). A base lock that does not parse protects nothing; the new
// side's must parse.
func readLocks(oldSrc, newSrc source.Source) (h *rules.History, weakened *rules.Change, err error) {
	base, _ := ReadLock(oldSrc)
	head, err := ReadLock(newSrc)
	if err != nil {
		return nil, nil, err
	}
	h = &rules.History{}
	h.Merge(base)
	h.Merge(head)
	if base == nil || len(base.Used) == 0 {
		return h, nil, nil
	}
	kept := &rules.History{}
	kept.Merge(head)
	var lost []string
	for _, u := range base.Used {
		if !slices.ContainsFunc(kept.Uses(u.Message, u.Number), func(k rules.UsedNumber) bool {
			return k.Name == u.Name && k.Type == u.Type
		}) {
			lost = append(lost, fmt.Sprintf("%s %d (%s)", u.Message, u.Number, u.Name))
		}
	}
	if len(lost) == 0 {
		return h, nil, nil
	}
	shown := strings.Join(lost[:min(len(lost), 3)], ", ")
	if len(lost) > 3 {
		shown += fmt.Sprintf(", and %d more", len(lost)-3)
	}
	at := rules.Location{File: LockFile, Line: 1, Column: 1}
	ch := &rules.Change{Kind: rules.Modified, Subject: rules.SubjectLock, Format: rules.Proto, Name: LockFile, Path: LockFile,
		Old: rules.Value{Text: fmt.Sprintf("%d field numbers the base's lock held: %s", len(lost), shown)}, OldLoc: at, NewLoc: at}
	if head == nil {
		ch.Kind, ch.NewLoc = rules.Removed, rules.Location{}
	}
	return h, ch, nil
}

// ParseLock reads the lock's JSON; a problem names the line and column.
func ParseLock(b []byte) (*rules.History, error) {
	var doc lockDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		line, col := position(b, errorOffset(b, err, dec.InputOffset()))
		return nil, source.Errorf(LockFile, line, col, "%v; regenerate it with `contractlint lock`", err)
	}
	if doc.Version != lockVersion {
		return nil, source.Errorf(LockFile, 0, 0, "version %d is not one this contractlint reads (%d)", doc.Version, lockVersion)
	}
	return &rules.History{Used: doc.Numbers}, nil
}

// WriteLock records in the lock every field number that every .proto file
// matching globs uses now or used in any commit or release, and keeps what
// the lock already held: history a squash erased stays recorded.
func WriteLock(dir string, globs []string, po pipeline.Options, releases ...LockedRelease) (string, int, error) {
	repo, err := OpenRepo(dir)
	if err != nil {
		return "", 0, err
	}
	wt, err := source.OpenDir(repo.Top)
	if err != nil {
		return "", 0, err
	}
	h := &rules.History{}
	old, err := ReadLock(wt)
	if err != nil {
		return "", 0, err
	}
	h.Merge(old)
	names, err := repo.protoNames(wt, globs)
	if err != nil {
		return "", 0, err
	}
	head := repo.commit("HEAD")
	var versions map[string][]version
	var headSrc *source.Git
	if head != "" {
		if versions, err = repo.walks.versions(repo, head, nil, nil); err != nil {
			return "", 0, err
		}
		if headSrc, err = source.OpenRev(repo.Top, head); err != nil {
			return "", 0, err
		}
		defer headSrc.Close()
	}
	for _, name := range names {
		if fi, err := wt.Stat(name); err == nil && fi.Mode().IsRegular() {
			c, err := pipeline.Load(side(wt, name), po)
			if err != nil {
				return "", 0, err
			}
			h.Add(c, "working tree")
		}
		vs := versions[name]
		addVersions(h, vs, repo.versionUses(headSrc, name, vs, po), nil) // the lock records every use as released
	}
	recorded, err := repo.recordReleases(h, releases, globs, po)
	if err != nil {
		return "", 0, err
	}
	kept, err := ReadReleases(wt)
	if err != nil {
		return "", 0, err
	}
	h.Sort()
	b, err := json.MarshalIndent(lockDoc{Comment: lockComment, Version: lockVersion, Numbers: h.Used,
		Releases: mergeReleases(kept, recorded)}, "", "  ")
	if err != nil {
		return "", 0, err
	}
	file := filepath.Join(repo.Top, LockFile)
	return file, len(h.Used), writeInTop(file, append(b, '\n'))
}

// writeInTop replaces file, at the top of the repository, with b. A
// committed symbolic link there is refused, never written through (it could
// point anywhere outside the repository, or nowhere yet); the bytes go to a
// new file beside it, renamed over the old, so a reader never sees half.
func writeInTop(file string, b []byte) error {
	if fi, err := os.Lstat(file); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s): refused, not written through; remove it and run lock again", filepath.Base(file), fi.Mode().Type())
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// protoNames lists the .proto files matching globs in the working tree and
// in every commit reachable from HEAD, deleted ones included.
func (r *Repo) protoNames(wt *source.Dir, globs []string) ([]string, error) {
	names, err := pipeline.ProtoFiles(wt, ".")
	if err != nil {
		return nil, err
	}
	if r.commit("HEAD") != "" {
		out, err := r.git("log", "--format=", "--name-only", "-z", "HEAD", "--", "*.proto")
		if err != nil {
			return nil, err
		}
		names = append(names, source.SplitZ(out)...)
	}
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	names = slices.DeleteFunc(names, func(n string) bool {
		return n == "" || !selects(globs, n)
	})
	slices.Sort(names)
	return slices.Compact(names), nil
}

// errorOffset finds where in b a decoding error is: the bad byte of a
// syntax error, the start of a value of the wrong type, the key of an
// unknown field. encoding/json reports the offset after the first two and
// none for the third. end is where the decoder stopped, the fallback.
func errorOffset(b []byte, err error, end int64) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset - 1
	case errors.As(err, &te):
		// Back from the value's end to the ':', '[' or ',' before it.
		i := min(max(te.Offset, 0), int64(len(b)))
		for i > 0 && !bytes.ContainsRune([]byte(":[,"), rune(b[i-1])) {
			i--
		}
		for i < te.Offset && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
			i++
		}
		return i
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.Index(b, []byte(name+":")); i >= 0 {
			return int64(i)
		}
		if i := bytes.Index(b, []byte(name)); i >= 0 {
			return int64(i)
		}
	}
	return end
}

func position(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	return bytes.Count(before, []byte("\n")) + 1, int(off) - bytes.LastIndexByte(before, '\n')
}
