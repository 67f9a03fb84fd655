// Package readers loads consumer evidence — Pact files and usage exports —
// and answers, for the evolution rules, who reads which field.
package readers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
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
// files, recursively), none larger than maxFile bytes. warn receives what was
// read but not used, so nothing is skipped silently.
func Load(paths []string, window time.Duration, now time.Time, maxFile int64, warn func(string)) (*Set, error) {
	s := &Set{Window: window, Now: now}
	var probs source.Problems
	for _, p := range paths {
		files, err := expand(p, warn)
		if err != nil {
			probs = append(probs, source.Problem{File: p, Msg: err.Error()})
			continue
		}
		for _, f := range files {
			data, err := readMax(f, maxFile)
			if err != nil {
				probs = append(probs, source.Problem{File: f, Msg: err.Error()})
				continue
			}
			es, err := Parse(filepath.ToSlash(f), data, warn)
			if err != nil {
				probs = append(probs, asProblems(f, err)...)
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

// readMax reads a regular file of at most max bytes: evidence files come from
// the same untrusted pull request as the contracts.
func readMax(name string, max int64) ([]byte, error) {
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot read: %w", err)
	case !fi.Mode().IsRegular():
		return nil, source.ErrNotRegular
	case fi.Size() > max:
		return nil, fmt.Errorf("%d bytes is larger than the limit of %s on one file (raise it with %s)",
			fi.Size(), limits.FormatSize(max), limits.FileSizeFlag)
	}
	return os.ReadFile(name)
}

func asProblems(file string, err error) source.Problems {
	if ps, ok := err.(source.Problems); ok {
		return ps
	}
	return source.Problems{{File: file, Msg: err.Error()}}
}

// expand lists the evidence files under p: p itself, or the .json and .csv
// files below a directory, in name order.
func expand(p string, warn func(string)) ([]string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("no such readers file or directory")
	}
	if !fi.IsDir() {
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		switch strings.ToLower(filepath.Ext(f)) {
		case ".json", ".csv":
			out = append(out, f)
		default:
			warn(fmt.Sprintf("%s: not a .json or .csv file; not read as evidence", filepath.ToSlash(f)))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
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
