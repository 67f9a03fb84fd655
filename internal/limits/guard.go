package limits

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/contractlint/contractlint/internal/source"
)

// Guard wraps the source of one side so that every read it makes, the
// contract's own files and each $ref or import they pull in, is held to l.
// A limit hit is a source.Problems naming the file (shown through display),
// the limit and the flag that raises it.
func (l Limits) Guard(src source.Source, display func(string) string) source.Source {
	if display == nil {
		display = func(s string) string { return s }
	}
	return &guarded{Source: src, l: l.OrDefault(), display: display, seen: map[string]bool{}, counted: map[string]error{}}
}

type guarded struct {
	source.Source
	l       Limits
	display func(string) string
	mu      sync.Mutex
	seen    map[string]bool
	// counted holds the files whose elements and kinds are in total and
	// kinds, each with its refusal (nil when within the totals): a file
	// read twice counts once, and one refused stays refused.
	counted map[string]error
	total   int
	kinds   Counts
}

// Resolve follows the links of the source guarded: guarding changes what
// may be read, not which file a name is.
func (g *guarded) Resolve(name string) (string, error) { return source.Resolve(g.Source, name) }

func (g *guarded) ReadFile(name string) ([]byte, error) {
	if err := g.count(name); err != nil {
		return nil, err
	}
	b, err := source.ReadFileMax(g.Source, name, g.l.FileSize)
	var tl *source.TooLargeError
	if errors.As(err, &tl) {
		return nil, source.Errorf(g.display(name), 0, 0, "%s is larger than the limit of %s on one file (raise it with %s)",
			FormatSize(tl.Size), FormatSize(g.l.FileSize), FileSizeFlag)
	}
	if err != nil {
		return nil, err
	}
	sh, err := g.shape(name, b)
	if err != nil {
		return nil, err
	}
	return b, g.add(name, sh)
}

// add counts one file's elements and kinds into its side's totals, and
// refuses the file that takes a total past its limit.
func (g *guarded) add(name string, sh Shape) error {
	c, _ := source.Clean(name)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err, ok := g.counted[c]; ok {
		return err
	}
	err := g.total1(name, sh)
	g.counted[c] = err
	return err
}

// total1 adds one file's counts to the side's totals.
func (g *guarded) total1(name string, sh Shape) error {
	g.total += sh.Elements
	if g.total > g.l.TotalElements {
		return source.Errorf(g.display(name), 0, 0, "not read: it takes the elements of this side to %d, more than the limit of %d on one side (raise it with %s)",
			g.total, g.l.TotalElements, TotalFlag)
	}
	for _, k := range Kinds {
		if k == Properties {
			continue
		}
		if g.kinds[k] += sh.Counts[k]; g.kinds[k] > g.l.Counts[k] {
			return source.Errorf(g.display(name), 0, 0, "not read: it takes the %s of this side to %d, more than the limit of %d on one side (raise it with %s)",
				kindNouns[k], g.kinds[k], g.l.Counts[k], countHint(k))
		}
	}
	return nil
}

// shape refuses a file nested past the depth limit or holding more elements
// than the element limit, counted before any parser builds them.
func (g *guarded) shape(name string, b []byte) (Shape, error) {
	sh, err := g.scan(name, b)
	if err == nil && sh.Counts[Properties] > g.l.Counts[Properties] {
		err = source.Errorf(g.display(name), sh.PropsLine, 0, "one schema's properties number %d, more than the limit of %d (raise it with %s)",
			sh.Counts[Properties], g.l.Counts[Properties], countHint(Properties))
	}
	return sh, err
}

// scan runs the pre-parse scan of one file and applies the per-file limits.
func (g *guarded) scan(name string, b []byte) (Shape, error) {
	proto := strings.EqualFold(path.Ext(name), ".proto")
	var sh Shape
	json := false // read whole by the JSON tokenizer
	limit := g.l.Elements
	if proto {
		if line := LongLine(b, g.l.ProtoLine); line > 0 {
			return sh, source.Errorf(g.display(name), line, 0, "line longer than the limit of %s (raise it with %s)", FormatSize(int64(g.l.ProtoLine)), ProtoLineFlag)
		}
		sh = ProtoShape(b, g.l.Depth)
		limit = g.l.ProtoElements
	} else if sh, json = jsonDocShape(b, g.l.Depth, g.l.Keys); !json {
		sh = Scan(b, g.l.Depth, g.l.Keys)
	}
	shown := g.display(name)
	if sh.DeepLine > 0 {
		return sh, source.Errorf(shown, sh.DeepLine, 0, "nested deeper than the limit of %d levels (raise it with %s)", g.l.Depth, DepthFlag)
	}
	if sh.WideLine > 0 {
		return sh, source.Errorf(shown, sh.WideLine, 0, "one mapping holds more than the limit of %d keys (raise it with %s)", g.l.Keys, KeysFlag)
	}
	if sh.Elements > limit {
		what := "keys and list items"
		if proto {
			what = "declarations and list entries"
		}
		return sh, source.Errorf(shown, 0, 0, "%d %s is more than the limit of %d in one file (raise it with %s)", sh.Elements, what, limit, ElementsFlag)
	}
	if proto || json {
		// JSON read whole holds one value, no alias and no name twice.
		return sh, nil
	}
	if sh.SecondDocument > 0 {
		return sh, source.Errorf(shown, sh.SecondDocument, 0, "a second YAML document begins here, which would be ignored: keep one document per file")
	}
	n, line := 0, 0
	if sh.Anchors {
		n, line = Expanded(b, limit)
	}
	sh.Elements = max(sh.Elements, n) // what the side's total counts
	if n > limit {
		return sh, source.Errorf(shown, line, 0, "YAML aliases expand to more than the limit of %d keys and list items in one file (raise it with %s)", limit, ElementsFlag)
	}
	if line, col, key := DuplicateKey(b); line > 0 {
		return sh, source.Errorf(shown, line, col, "key %q appears twice in one JSON object: JSON readers disagree on which wins, so it is refused as YAML refuses it", key)
	}
	return sh, nil
}

// count refuses the first file past the limit on files per side.
func (g *guarded) count(name string) error {
	c, err := source.Clean(name)
	if err != nil {
		return nil // ReadFile reports it
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen[c] {
		return nil
	}
	if len(g.seen) >= g.l.Files {
		return source.Errorf(g.display(name), 0, 0, "not read: more than the limit of %d files on one side (raise it with %s)", g.l.Files, FilesFlag)
	}
	g.seen[c] = true
	return nil
}

// CheckFiles refuses a side that lists more files than the limit, before
// any is read.
func (l Limits) CheckFiles(dir string, n int) error {
	l = l.OrDefault()
	if n > l.Files {
		return source.Errorf(dir, 0, 0, "%d files is more than the limit of %d on one side (raise it with %s)", n, l.Files, FilesFlag)
	}
	return nil
}

// String shows the limits as the flags that set them.
func (l Limits) String() string {
	l = l.OrDefault()
	out := fmt.Sprintf("%s %s %s %d %s %d %s %d (.proto %d) %s %d %s %s %s %d", FileSizeFlag, FormatSize(l.FileSize), DepthFlag, l.Depth, FilesFlag, l.Files,
		ElementsFlag, l.Elements, l.ProtoElements, KeysFlag, l.Keys, ProtoLineFlag, FormatSize(int64(l.ProtoLine)), TotalFlag, l.TotalElements)
	for _, k := range Kinds {
		out += fmt.Sprintf(" %s %s=%d", CountFlag, k, l.Counts[k])
	}
	return out
}
