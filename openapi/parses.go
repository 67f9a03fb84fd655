package openapi

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/contractlint/contractlint/internal/places"
	"go.yaml.in/yaml/v4"
)

// parses holds what the parser read of each part of an outline (see cut),
// by the part's text: a part written alike on both sides of a diff, or in
// a buffer's base and each of its edits, is parsed once.
type parses struct {
	// base holds the parses of an earlier cut, read only (a Cut's).
	base map[string]*parsed
	done map[string]*parsed
	// after holds the parses of parts read after stand-ins for the
	// anchors they alias, by the text read (see aliased).
	after map[string]*parsed
}

// parsed is what a plan needs of one part, read from the parser's nodes.
type parsed struct {
	// refs are the part's $refs ($ref keys with a scalar value: one whose
	// value is a mapping is a property named $ref); opIDs its operationIds.
	refs, opIDs []string
	// alias: the entry's value is a $ref itself; anchored: it defines or
	// uses a YAML anchor; keep: the part ends in a block scalar that keeps
	// its trailing lines.
	alias, anchored, keep bool
	// object: the value is a mapping, or null.
	object bool
	err    error
	// line is where in the part err is (1-based), 0 for its first line.
	line int
	// syntax: err is the parser's, who may read on into the parts after
	// (a quoted scalar whose line the outline took for a key).
	syntax bool
	// anchors are the names of the anchors the part defines; anchorsIn
	// the chunks whose anchors it aliases (see parses.aliased).
	anchors   []anchorDef
	anchorsIn []string
}

// anchorDef is an anchor a part defines, and the kind of node it names.
type anchorDef struct {
	name string
	kind yaml.Kind
}

func newParses(base map[string]*parsed) *parses {
	return &parses{base: base, done: map[string]*parsed{}, after: map[string]*parsed{}}
}

// partText is a part's text, the key the outline read on its first line,
// which the parser must read there too, and where the part begins in its
// batch's text: the line and the byte.
type partText struct {
	text      []byte
	key       string
	line, off int
}

// batch is parts read in one parse: entries next to each other under one
// key. One parse of a few parts costs little more than the parse of one
// (the parser's start is half a small part's).
type batch struct {
	text  []byte
	parts []partText
}

// maxBatch bounds the parts of a batch, so that the batches of a
// document spread over the cores.
const maxBatch = 16

// batches groups d's parts into batches: runs of the chunks under one
// key, in the text's order; each other part alone.
func (d *pieces) batches(parts []cutPart) []batch {
	var out []batch
	var cur []partText
	first := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, batchOf(d, first, cur))
			cur = nil
		}
	}
	for i, p := range parts {
		if len(cur) > 0 && (p.ptr == "" || parts[i-1].to != p.from || parts[i-1].section != p.section || len(cur) == maxBatch) {
			flush()
		}
		if len(cur) == 0 {
			first = p.from
		}
		cur = append(cur, partText{d.partText(p), p.key, p.from - first, d.lines[p.from].start - d.lines[first].start})
		if p.ptr == "" {
			flush()
		}
	}
	flush()
	return out
}

// batchOf is the batch of parts, the first of which begins on line from.
func batchOf(d *pieces, from int, parts []partText) batch {
	last := parts[len(parts)-1]
	start := d.lines[from].start
	return batch{text: d.src[start : start+last.off+len(last.text)], parts: parts}
}

// parse reads each part not read yet, once however many times its text
// occurs: the parts of a batch still to read are read together, on every
// core.
func (ps *parses) parse(batches []batch) {
	var todo []batch
	queued := map[string]bool{}
	for _, b := range batches {
		var run []int
		split := func() {
			if len(run) > 0 {
				todo = append(todo, b.sub(run))
				run = nil
			}
		}
		for i, pt := range b.parts {
			t := string(pt.text)
			if _, ok := ps.done[t]; ok || queued[t] {
				split()
				continue
			}
			if r, ok := ps.base[t]; ok {
				ps.done[t] = r
				split()
				continue
			}
			queued[t] = true
			run = append(run, i)
		}
		split()
	}
	out := make([][]*parsed, len(todo))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(todo); i = int(next.Add(1) - 1) {
				out[i] = readBatch(todo[i])
			}
		})
	}
	wg.Wait()
	for i, b := range todo {
		for j, pt := range b.parts {
			ps.done[string(pt.text)] = out[i][j]
		}
	}
}

// sub is the batch of b's parts at the indexes in run, which follow one
// another.
func (b batch) sub(run []int) batch {
	if len(run) == len(b.parts) {
		return b
	}
	first, last := b.parts[run[0]], b.parts[run[len(run)-1]]
	parts := make([]partText, len(run))
	for i, j := range run {
		parts[i] = b.parts[j]
		parts[i].line -= first.line
		parts[i].off -= first.off
	}
	return batch{text: b.text[first.off : last.off+len(last.text)], parts: parts}
}

// readBatch reads each part of b: in one parse, which must find each
// part's key on its first line, or each alone when it does not, or when
// a part defines or uses an anchor (which the parse of it alone must
// place).
func readBatch(b batch) []*parsed {
	out := make([]*parsed, len(b.parts))
	if len(b.parts) > 1 && readTogether(b, out) {
		return out
	}
	for i, pt := range b.parts {
		out[i] = readPart(pt.text, pt.key)
	}
	return out
}

// readTogether is readBatch's one parse; false when it cannot stand.
func readTogether(b batch, out []*parsed) bool {
	d, err := places.Read(b.text)
	if err != nil || d.Documents() != 1 {
		return false
	}
	root := d.Root()
	if root.Kind != yaml.MappingNode || len(root.Content) != 2*len(b.parts) {
		return false
	}
	for i, pt := range b.parts {
		k := root.Content[2*i]
		if k.Value != pt.key || k.Line != pt.line+1 {
			return false
		}
		r := readValue(b.text, root.Content[2*i+1])
		if r.anchored {
			return false
		}
		if r.line > 0 {
			r.line -= pt.line
		}
		out[i] = r
	}
	return true
}

// readPart parses one part: a key at its indentation and what is under it.
func readPart(text []byte, key string) *parsed {
	v, err := places.ReadEntry(text, key)
	if err != nil {
		return &parsed{err: err, syntax: true}
	}
	return readValue(text, v)
}

// readValue is what a plan needs of one part's value v.
func readValue(text []byte, v *yaml.Node) *parsed {
	target := v
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		target = v.Alias
	}
	r := &parsed{object: target.Kind == yaml.MappingNode || target.Kind == yaml.ScalarNode && target.Tag == "!!null"}
	if v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			r.alias = r.alias || v.Content[i].Value == "$ref" && v.Content[i+1].Kind == yaml.ScalarNode
		}
	}
	r.walk(v)
	if last := lastNode(v); r.err == nil && last.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		r.keep = keepRE.Match(headerAt(text, last))
	}
	return r
}

// lastNode is the last node under n in the text's order.
func lastNode(n *yaml.Node) *yaml.Node {
	for (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n
}

// headerAt is the rest of the line from block scalar n's header on (the
// column counts characters, so it may begin before the header, not after).
func headerAt(text []byte, n *yaml.Node) []byte {
	for range n.Line - 1 {
		_, text, _ = bytes.Cut(text, []byte("\n"))
	}
	line, _, _ := bytes.Cut(text, []byte("\n"))
	return line[min(max(n.Column-1, 0), len(line)):]
}

// keepRE finds a block scalar's header with keep chomping (|+, >2+): its
// value takes the blank lines after it, which blanking the next chunk
// would give it.
var keepRE = regexp.MustCompile(`[|>][1-9]?\+`)

// walk notes what n and the nodes under it hold. A tag, or a $ref whose
// value is a list, is an error: kin-openapi's loader reads either
// otherwise than a plain value, or refuses it, and a part the plan leaves
// out must be one the whole load reads as the parser does here.
func (r *parsed) walk(n *yaml.Node) {
	if r.err != nil {
		return
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		r.anchored = true
	}
	if n.Anchor != "" {
		r.anchors = append(r.anchors, anchorDef{n.Anchor, n.Kind})
	}
	if n.Style&yaml.TaggedStyle != 0 {
		r.err, r.line = fmt.Errorf("a tag (%s)", n.Tag), n.Line
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode {
				switch {
				case k.Value == "$ref" && v.Kind == yaml.SequenceNode:
					r.err, r.line = errors.New("a $ref whose value is a list"), k.Line
					return
				case k.Value == "$ref" && v.Kind == yaml.ScalarNode:
					r.refs = append(r.refs, v.Value)
				case k.Value == "operationId" && v.Kind == yaml.ScalarNode:
					r.opIDs = append(r.opIDs, v.Value)
				}
			}
			r.walk(k)
			r.walk(v)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			r.walk(c)
		}
	}
}

// maxMerge bounds how many parts after one the parser refused are read
// with it, each merge one more parse of the run.
const maxMerge = 8

// merge reads each part the parser refused again: with the anchors it
// aliases from the parts before (aliased), or together with the parts
// after it under the same key, as the parser would read on: a quoted
// scalar whose later line the outline took for a key ends there. A merge
// that parses as the one entry of the first part's key replaces those
// parts. Each part is given what was read of it.
func (ps *parses) merge(d *pieces, parts []cutPart) []cutPart {
	out := parts[:0:0]
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		p.r = ps.done[string(d.partText(p))]
		if p.r.syntax {
			if r := ps.aliased(d, out, p); r != nil {
				p.r = r
			}
		}
		if !p.r.syntax {
			out = append(out, p)
			continue
		}
		for j := i + 1; j < len(parts) && j <= i+maxMerge && parts[j].from == parts[j-1].to && parts[j].section == p.section && parts[j].kind == p.kind && (parts[j].ptr == "") == (p.ptr == ""); j++ {
			m := p
			m.to = parts[j].to
			text := d.partText(m)
			ps.parse([]batch{{text, []partText{{text, m.key, 0, 0}}}})
			if r := ps.done[string(text)]; !r.syntax {
				p, i = m, j
				p.r = r
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// unknownAnchorRE reads the parser's error for an alias whose anchor the
// text does not hold.
var unknownAnchorRE = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

// aliasNameRE finds what may be an alias in a part's text: the parser says
// which are.
var aliasNameRE = regexp.MustCompile(`\*([^\s,\[\]{}]+)`)

// aliased reads part p, which aliases anchors defined in the parts before
// it (js-yaml's &ref_0, PyYAML's &id001), after a stand-in for each: an
// empty node of the anchored node's kind, enough for the parser to read p
// as the whole document gives it (the walk does not follow an alias). The
// anchor a name stands for is the last defined before the alias (an
// anchor p defines itself is later, and wins after it); the chunks
// holding them are p's to keep (anchorsIn). nil when p's error is
// another, or an anchor is defined nowhere before it.
func (ps *parses) aliased(d *pieces, before []cutPart, p cutPart) *parsed {
	if !unknownAnchorRE.MatchString(p.r.err.Error()) {
		return nil
	}
	text := d.partText(p)
	var stand bytes.Buffer
	var from []string
	seen := map[string]bool{}
	for _, m := range aliasNameRE.FindAllSubmatch(text, -1) {
		name := string(m[1])
		if seen[name] {
			continue
		}
		seen[name] = true
		q, kind, ok := definedBefore(before, name)
		if !ok {
			continue
		}
		empty := map[yaml.Kind]string{yaml.MappingNode: "{}", yaml.SequenceNode: "[]"}[kind]
		fmt.Fprintf(&stand, "__contractlint_anchor_%d: &%s %s\n", len(seen), name, cmp.Or(empty, "''"))
		if q.ptr != "" && !slices.Contains(from, q.ptr) {
			from = append(from, q.ptr)
		}
	}
	key := stand.String() + string(text)
	r, ok := ps.after[key]
	if !ok {
		r = readAfter(stand.Bytes(), text, p.key)
		ps.after[key] = r
	}
	if r.syntax {
		return nil
	}
	c := *r // the parse is shared by the sides; where its anchors are is each side's
	c.anchorsIn, c.anchored = from, true
	return &c
}

// definedBefore is the last part in before that defines the anchor name,
// and the kind of the node anchored.
func definedBefore(before []cutPart, name string) (cutPart, yaml.Kind, bool) {
	for i := len(before) - 1; i >= 0; i-- {
		for _, a := range before[i].r.anchors {
			if a.name == name {
				return before[i], a.kind, true
			}
		}
	}
	return cutPart{}, 0, false
}

// readAfter parses a part's text after stand, top-level entries that
// define the anchors it aliases; an indented part is put under a key of
// its own.
func readAfter(stand, text []byte, key string) *parsed {
	var all bytes.Buffer
	all.Write(stand)
	wrapped := len(text) > 0 && text[0] == ' '
	if wrapped {
		all.WriteString("__contractlint_part:\n")
	}
	all.Write(text)
	doc, err := places.Read(all.Bytes())
	if err != nil {
		return &parsed{err: err, syntax: true}
	}
	root := doc.Root()
	if root == nil || root.Kind != yaml.MappingNode || len(root.Content) < 2 {
		return &parsed{err: errors.New("not a mapping"), syntax: true}
	}
	k, v := root.Content[len(root.Content)-2], root.Content[len(root.Content)-1]
	if wrapped {
		if v.Kind != yaml.MappingNode || len(v.Content) != 2 {
			return &parsed{err: errors.New("not one entry"), syntax: true}
		}
		k, v = v.Content[0], v.Content[1]
	}
	if k.Value != key {
		return &parsed{err: fmt.Errorf("not the one entry %q", key), syntax: true}
	}
	r := readValue(all.Bytes(), v)
	if r.line > 0 {
		r.line -= bytes.Count(stand, []byte("\n"))
		if wrapped {
			r.line--
		}
	}
	return r
}
