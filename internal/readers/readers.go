// Package readers loads consumer evidence — Pact files and usage exports —
// and answers, for the evolution rules, who reads which field.
package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/limits"
	"github.com/contractlint/contractlint/internal/source"
)

// DefaultWindow is how recent a read must be to count (--readers-window).
const DefaultWindow = 30 * 24 * time.Hour

// Entry is one piece of evidence: a consumer reads a field of an operation
// (HTTP) or of a message (proto).
type Entry struct {
	Consumer string
	// Method and Path name an HTTP operation; Path is a concrete request path
	// (Pact) or a template (usage file). Empty for a proto message.
	Method, Path string
	// Message is a proto message full name.
	Message string
	// RPC is an rpc's full name (pkg.Service.Method): a usage row that
	// records calls of an rpc rather than reads of a field.
	RPC string
	// Field is the dotted path of the field; "*" matches any one name. It is
	// empty for a row that records calls of an operation or rpc.
	Field string
	// Reads counts reads (usage files); 0 in a usage file means the field was
	// seen unread, which still tells that the operation is covered.
	Reads int64
	// LastSeen is zero for a Pact file: it describes what the consumer does now.
	LastSeen time.Time
	// File and Where name the file and entry, for messages.
	File, Where string
}

// Set is the evidence of one run: every entry, and the window that decides
// which reads still count.
type Set struct {
	Entries []Entry
	Window  time.Duration
	// Now anchors the window; the CLI sets the wall clock, tests a fixed day.
	Now time.Time
}

// Load reads every file named (a directory contributes its .json and .csv
// files, recursively), none larger than maxFile bytes. Evidence comes with
// the same untrusted change as the contracts, so it is read through the same
// boundary: only inside root (the repository), never through a symbolic
// link out of it, never from a device or pipe. warn receives what was read
// but not used, so nothing is skipped silently.
func Load(root string, paths []string, window time.Duration, now time.Time, maxFile int64, warn func(string)) (*Set, error) {
	return LoadFrom("", root, paths, window, now, maxFile, warn)
}

// LoadFrom is Load with relative paths named from wd, the working directory
// the caller was given (the process's when empty); messages still show them
// as written.
func LoadFrom(wd, root string, paths []string, window time.Duration, now time.Time, maxFile int64, warn func(string)) (*Set, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	src, err := source.OpenDir(root)
	if err != nil {
		return nil, err
	}
	s := &Set{Window: window, Now: now}
	var probs source.Problems
	for _, p := range paths {
		files, err := expand(src, root, fromDir(wd, p), p, warn)
		if err != nil {
			probs = append(probs, source.Problem{File: p, Msg: err.Error()})
			continue
		}
		for _, f := range files {
			data, err := readMax(src, f.rel, maxFile)
			if err != nil {
				probs = append(probs, source.Problem{File: f.shown, Msg: err.Error()})
				continue
			}
			es, err := Parse(filepath.ToSlash(f.shown), data, warn)
			if err != nil {
				probs = append(probs, asProblems(f.shown, err)...)
				continue
			}
			s.Entries = append(s.Entries, es...)
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return s, nil
}

// file is one evidence file: its name in the repository and as the user
// wrote it, for messages.
type file struct{ rel, shown string }

// readMax reads a regular file of at most max bytes.
func readMax(src source.Source, rel string, max int64) ([]byte, error) {
	b, err := source.ReadFileMax(src, rel, max)
	var tl *source.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, fmt.Errorf("%d bytes is larger than the limit of %s on one file (raise it with %s)",
			tl.Size, limits.FormatSize(max), limits.FileSizeFlag)
	case err != nil:
		return nil, fmt.Errorf("cannot read: %w", withoutName(err))
	}
	return b, nil
}

// withoutName drops the "name: " a Source puts before its reason: the
// problem already names the file.
func withoutName(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	if _, after, ok := strings.Cut(err.Error(), ": "); ok {
		return errors.New(after)
	}
	return err
}

func asProblems(file string, err error) source.Problems {
	if ps, ok := err.(source.Problems); ok {
		return ps
	}
	return source.Problems{{File: file, Msg: err.Error()}}
}

// expand lists the evidence files under p: p itself, or the .json and .csv
// files below a directory, in name order. at is where p is (relative to the
// process's working directory or absolute) and must lie inside root; p is
// shown.
func expand(src source.Source, root, at, p string, warn func(string)) ([]file, error) {
	rel, err := inside(root, at)
	if err != nil {
		return nil, err
	}
	fi, err := src.Stat(rel)
	if errors.Is(err, source.ErrOutside) {
		return nil, fmt.Errorf("refused, not read: %w (through a symbolic link)", source.ErrOutside)
	}
	if err != nil {
		return nil, fmt.Errorf("no such readers file or directory")
	}
	if !fi.IsDir() {
		return []file{{rel, p}}, nil
	}
	var out []file
	err = fs.WalkDir(dirFS{src}, rel, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		shown := filepath.Join(p, filepath.FromSlash(strings.TrimPrefix(f, rel+"/")))
		switch strings.ToLower(path.Ext(f)) {
		case ".json", ".csv":
			out = append(out, file{f, shown})
		default:
			warn(fmt.Sprintf("%s: not a .json or .csv file; not read as evidence", filepath.ToSlash(shown)))
		}
		return nil
	})
	slices.SortFunc(out, func(a, b file) int { return strings.Compare(a.rel, b.rel) })
	return out, err
}

// inside makes p (absolute, or relative to the working directory) relative
// to root, refusing a path that leaves it.
// fromDir names p from wd unless p is absolute or wd is empty.
func fromDir(wd, p string) string {
	if wd == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(wd, p)
}

func inside(root, p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", fmt.Errorf("refused, not read: %w", source.ErrOutside)
	}
	c, err := source.Clean(filepath.ToSlash(rel))
	if err != nil {
		return "", fmt.Errorf("refused, not read: %w", source.ErrOutside)
	}
	return c, nil
}

// dirFS lets fs.WalkDir list a Source.
type dirFS struct{ src source.Source }

func (d dirFS) Open(string) (fs.File, error)          { return nil, fs.ErrInvalid }
func (d dirFS) Stat(name string) (fs.FileInfo, error) { return d.src.Stat(name) }
func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return d.src.ReadDir(name)
}

// Parse reads one evidence file: CSV by its extension, otherwise JSON — a
// Pact file (an object) or a usage file (an array of rows).
func Parse(name string, data []byte, warn func(string)) ([]Entry, error) {
	if strings.EqualFold(filepath.Ext(name), ".csv") {
		return parseUsageCSV(name, data)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, source.Errorf(name, 0, 0, "empty file: expected a Pact file or a usage file")
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		if se, ok := err.(*json.SyntaxError); ok {
			line, col := position(data, se.Offset-1) // Offset is just past the bad byte
			return nil, source.Errorf(name, line, col, "not JSON: %v", se)
		}
		return nil, source.Errorf(name, 0, 0, "not JSON: %v", err)
	}
	if trimmed[0] == '[' {
		return parseUsageJSON(name, data)
	}
	if trimmed[0] == '{' {
		return parsePact(name, data, warn)
	}
	return nil, source.Errorf(name, 0, 0, "expected a Pact file (a JSON object) or a usage file (a JSON array)")
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// ParseWindow reads a window: a Go duration ("720h") or a number of days
// ("30d") or weeks ("4w").
func ParseWindow(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("bad window %q: want a number of days (30d), weeks (4w) or a duration (720h)", s)
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad window %q: want a number of days (30d), weeks (4w) or a duration (720h)", s)
	}
	return d, nil
}
