// Package readers loads consumer evidence — Pact files, usage exports and
// recorded traffic (HAR files, OTLP JSON traces, JSON access logs of nginx
// and Envoy), told apart by content — and answers, for the evolution rules,
// who calls which operation and reads or sends which field.
package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// Reads counts reads (usage files) or exchanges (traffic); 0 in a usage
	// file means the field was seen unread, which still tells that the
	// operation is covered.
	Reads int64
	// LastSeen is zero for a Pact file: it describes what the consumer does now.
	LastSeen time.Time
	// FirstSeen is the first exchange of traffic; zero otherwise. Recent
	// counts a traffic entry's exchanges at or after the window's start.
	FirstSeen time.Time
	Recent    int64
	// Side is, for a traffic field, the body it was seen in; Pact and usage
	// fields are response fields read.
	Side Side
	// Format is the format the entry was read from (FormatPact, ...).
	Format string
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
	// Traffic is what each traffic file spans, in the order read.
	Traffic []Coverage
}

// Options says what to read and how.
type Options struct {
	// WD names relative paths (the process's working directory when empty);
	// Root is the repository no path may leave.
	WD, Root string
	Paths    []string
	Window   time.Duration
	Now      time.Time
	// MaxFile bounds a Pact or usage file, read whole; traffic files are
	// streamed in bounded memory whatever their size.
	MaxFile int64
	Mapping Mapping
	// Warn receives what was read but not used; Progress, when set, a line
	// every ProgressEvery bytes (default ProgressEvery) while a traffic file
	// larger than that is read.
	Warn, Progress func(string)
	ProgressEvery  int64
}

// Load reads every file named (a directory contributes its .json, .jsonl,
// .har and .csv files, recursively), none larger than maxFile bytes unless
// it is streamed traffic. Evidence comes with the same untrusted change as
// the contracts, so it is read through the same boundary: only inside root
// (the repository), never through a symbolic link out of it, never from a
// device or pipe. warn receives what was read but not used, so nothing is
// skipped silently.
func Load(root string, paths []string, window time.Duration, now time.Time, maxFile int64, warn func(string)) (*Set, error) {
	return LoadFrom("", root, paths, window, now, maxFile, warn)
}

// LoadFrom is Load with relative paths named from wd, the working directory
// the caller was given (the process's when empty); messages still show them
// as written.
func LoadFrom(wd, root string, paths []string, window time.Duration, now time.Time, maxFile int64, warn func(string)) (*Set, error) {
	return LoadWith(Options{WD: wd, Root: root, Paths: paths, Window: window, Now: now, MaxFile: maxFile, Warn: warn})
}

// LoadWith reads the evidence o names.
func LoadWith(o Options) (*Set, error) {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}
	src, err := source.OpenDir(root)
	if err != nil {
		return nil, err
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	s := &Set{Window: o.Window, Now: o.Now}
	var probs source.Problems
	for _, p := range o.Paths {
		files, err := expand(src, root, fromDir(o.WD, p), p, o.Warn)
		if err != nil {
			probs = append(probs, source.Problem{File: p, Msg: err.Error()})
			continue
		}
		for _, f := range files {
			es, cov, err := loadFile(src, f, o)
			if err != nil {
				probs = append(probs, asProblems(f.shown, err)...)
				continue
			}
			s.Entries = append(s.Entries, es...)
			if cov != nil {
				s.Traffic = append(s.Traffic, *cov)
			}
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return s, nil
}

// sniffSize is how much of a file is read to tell its format.
const sniffSize = 64 << 10

// loadFile reads one evidence file: traffic as a stream, anything else
// whole (within MaxFile).
func loadFile(src source.Source, f file, o Options) ([]Entry, *Coverage, error) {
	shown := filepath.ToSlash(f.shown)
	prefix, err := source.ReadPrefix(src, f.rel, sniffSize)
	if err != nil {
		return nil, nil, source.Errorf(shown, 0, 0, "cannot read: %v", withoutName(err))
	}
	if format := Sniff(shown, prefix); format == FormatHAR || format == FormatOTLP || format == FormatAccessLog {
		r, size, err := source.OpenStream(src, f.rel)
		if err != nil {
			return nil, nil, source.Errorf(shown, 0, 0, "cannot read: %v", withoutName(err))
		}
		defer r.Close()
		return ReadTraffic(shown, format, r, o.Mapping, o.Now.Add(-o.Window), progressLine(o.Progress, shown, size, o.ProgressEvery), o.Warn)
	}
	data, err := readMax(src, f.rel, o.MaxFile)
	if err != nil {
		return nil, nil, source.Errorf(shown, 0, 0, "%v", err)
	}
	es, err := Parse(shown, data, o.Warn)
	return es, nil, err
}

// ReadTraffic streams one traffic file of the given format from r: the
// calls it shows, counted in all and from since on, and what it spans.
// progress (nil for none) is told how many bytes were read.
func ReadTraffic(name, format string, r io.Reader, m Mapping, since time.Time, progress func(int64), warn func(string)) ([]Entry, *Coverage, error) {
	s := newStream(name, r, progress)
	var t *tally
	var err error
	switch format {
	case FormatHAR:
		t = newTally(name, format, since)
		err = readHAR(s, m, t)
	case FormatOTLP:
		t, err = readOTLP(s, m, name, since)
	case FormatAccessLog:
		t = newTally(name, format, since)
		err = readAccessLog(s, m, t)
	default:
		return nil, nil, source.Errorf(name, 0, 0, "%s is not a traffic format", format)
	}
	if err == nil && s.more() {
		err = s.errorf("unexpected data after the %s document", format)
	}
	if err != nil {
		return nil, nil, source.Errorf(name, 0, 0, "%v", err)
	}
	es, cov := t.entries(warn)
	return es, &cov, nil
}

// Sniff tells an evidence file's format from its name and first bytes:
// a usage CSV by its extension; otherwise JSON — a HAR file (an object
// whose first key is "log"), OTLP traces (first key "resourceSpans"), a
// usage file (an array), a JSON access log (one object per line, none a
// Pact file), or a Pact file.
func Sniff(name string, prefix []byte) string {
	if strings.EqualFold(filepath.Ext(name), ".csv") {
		return FormatUsage
	}
	trimmed := bytes.TrimLeft(prefix, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return FormatUsage
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return FormatPact // not an object: Parse says what is wrong
	}
	key, _ := dec.Token()
	switch key {
	case "log":
		return FormatHAR
	case "resourceSpans":
		return FormatOTLP
	}
	line, _, _ := bytes.Cut(trimmed, []byte("\n"))
	var first map[string]json.RawMessage
	if json.Unmarshal(line, &first) != nil {
		return FormatPact // a document over several lines
	}
	for _, k := range []string{"interactions", "messages", "consumer", "metadata"} {
		if _, ok := first[k]; ok {
			return FormatPact
		}
	}
	return FormatAccessLog
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
		case ".json", ".jsonl", ".ndjson", ".har", ".log", ".csv":
			out = append(out, file{f, shown})
		default:
			warn(fmt.Sprintf("%s: not a .json, .jsonl, .har, .log or .csv file; not read as evidence", filepath.ToSlash(shown)))
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

// Parse reads one evidence file held in memory, of any format Sniff
// tells: CSV by its extension, otherwise JSON — traffic (read with the
// default mapping), a Pact file (an object) or a usage file (an array of
// rows).
func Parse(name string, data []byte, warn func(string)) ([]Entry, error) {
	if strings.EqualFold(filepath.Ext(name), ".csv") {
		return parseUsageCSV(name, data)
	}
	if f := Sniff(name, data[:min(len(data), sniffSize)]); f == FormatHAR || f == FormatOTLP || f == FormatAccessLog {
		es, _, err := ReadTraffic(name, f, bytes.NewReader(data), Mapping{}, time.Time{}, nil, warn)
		return es, err
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
