package openapi

import (
	"bytes"
	"sync"

	"cmp"
	"github.com/contractlint/contractlint/internal/places"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cutPair splits old and new into their chunks (see subset.go). Block
// YAML is outlined by its keys' indentation (places.Lazy) and every part of
// the outline is read by the parser, which confirms it and gives each
// chunk's $refs: the plan is made from the parser's nodes, a part written
// alike on both sides parsed once. It says why not (NoPlan) when the parser
// reads a part otherwise than the outline.
func cutPair(old, new []byte) (o, n *pieces, owhy, nwhy *NoPlan) {
	ds, whys := newParses(nil).cut(old, new)
	return ds[0], ds[1], whys[0], whys[1]
}

// outlined is one text's pieces before its parts are parsed.
type outlined struct {
	d     *pieces
	parts []cutPart
	why   *NoPlan
}

// cut cuts each text, parsing its parts on every core. Of two texts (a
// pair's old and new) whose headers differ, neither is parsed.
func (ps *parses) cut(srcs ...[]byte) ([]*pieces, []*NoPlan) {
	outs := make([]outlined, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		wg.Go(func() { outs[i] = outline(src) })
	}
	wg.Wait()
	if len(outs) == 2 && outs[0].why == nil && outs[1].why == nil && !sameHeaderText(outs[0].header(), outs[1].header()) {
		// No plan can be made (see planable): the parse is not paid.
		return make([]*pieces, 2), []*NoPlan{nil, headerDiffers()}
	}
	var batches []batch
	for _, o := range outs {
		if o.d != nil {
			batches = append(batches, o.d.batches(o.parts)...)
		}
	}
	ps.parse(batches)
	ds, whys := make([]*pieces, len(srcs)), make([]*NoPlan, len(srcs))
	for i, o := range outs {
		if o.why == nil && o.d != nil && !o.d.json {
			o.why = ps.assemble(o.d, ps.merge(o.d, o.parts))
		}
		if o.why != nil {
			o.d = nil
		}
		ds[i], whys[i] = o.d, o.why
	}
	return ds, whys
}

// outline reads src's structure: JSON is cut whole (cutJSON), block YAML
// into parts, not yet parsed.
func outline(src []byte) outlined {
	if why := unreadable(src); why != nil {
		return outlined{why: why} // what Load refuses, Load must say where
	}
	d := newPieces(src)
	if src[firstNonBlank(src)] == '{' {
		d, why := cutJSON(d)
		return outlined{d: d, why: why}
	}
	for _, kw := range baseKeywords {
		if at := bytes.Index(src, []byte(kw)); at >= 0 && !version30(src) {
			return outlined{why: noPlan(src, at, "a JSON Schema identity keyword ("+kw+")")} // a $ref may then resolve against another base
		}
	}
	parts, why := d.outline()
	return outlined{d: d, parts: parts, why: why}
}

// cutPart is one entry of the outline: a chunk (ptr set) or an entry of the
// text outside every chunk (the header).
type cutPart struct {
	ptr, key string
	from, to int
	// kind is the components kind of a chunk, "paths" for a path's;
	// section the line of the key its entries are under.
	kind    string
	section int
	info    bool
	// r is what the parser read of the part, once read (see parses.merge).
	r *parsed
}

// outline cuts a block YAML text into the parts a plan needs: each path
// and each component of a kind cut into chunks, and the other entries of
// the mappings above them. A mapping whose key holds more than the key on
// its line (`paths: {}`, a comment) is one part of the header.
func (d *pieces) outline() ([]cutPart, *NoPlan) {
	l := places.NewLazy(d.src)
	tops, ok := l.Outline(nil)
	if !ok {
		return nil, noPlan(d.src, -1, "a text not in block style, or one the outline by indentation cannot read")
	}
	var parts []cutPart
	under := func(path []string, at int, each func(places.Span)) *NoPlan {
		es, ok := l.Outline(path)
		if !ok {
			return noPlan(d.src, d.lines[at].start, "entries under "+strings.Join(path, ".")+" the outline by indentation cannot read")
		}
		for _, e := range es {
			each(e)
		}
		return nil
	}
	header := func(e places.Span) {
		parts = append(parts, cutPart{key: e.Key, from: e.From, to: e.To, info: e.Key == "info"})
	}
	for _, t := range tops {
		var why, kindWhy *NoPlan
		switch {
		case t.Key == "paths" && d.bare(t.From):
			why = under([]string{"paths"}, t.From, func(e places.Span) {
				if !strings.HasPrefix(e.Key, "/") {
					header(e) // an extension
					return
				}
				parts = append(parts, cutPart{ptr: "#/paths/" + escape(e.Key), key: e.Key, from: e.From, to: e.To, kind: "paths", section: t.From})
			})
		case t.Key == "components" && d.bare(t.From):
			why = under([]string{"components"}, t.From, func(k places.Span) {
				if !splitKinds[k.Key] || !d.bare(k.From) {
					header(k)
					return
				}
				if w := under([]string{"components", k.Key}, k.From, func(e places.Span) {
					parts = append(parts, cutPart{ptr: "#/components/" + k.Key + "/" + escape(e.Key), key: e.Key, from: e.From, to: e.To, kind: k.Key, section: k.From})
				}); w != nil && kindWhy == nil {
					kindWhy = w
				}
			})
			if why == nil {
				why = kindWhy
			}
		default:
			header(t)
		}
		if why != nil {
			return nil, why
		}
	}
	return parts, nil
}

// bare tells whether line i is a key with nothing after its colon, not
// even a comment: a section left empty is written `key: {}` there, and a
// chunk kept as a stub `Name: {}`.
func (d *pieces) bare(i int) bool {
	return bytes.HasSuffix(bytes.TrimRight(d.src[d.lines[i].start:d.lines[i].end], " "), []byte(":"))
}

// partText is the text of part p, its lines without the last line break.
func (d *pieces) partText(p cutPart) []byte {
	return d.src[d.lines[p.from].start:d.lines[p.to-1].end]
}

// assemble makes d's chunks, header and $refs from its parts' parses.
func (ps *parses) assemble(d *pieces, parts []cutPart) *NoPlan {
	for i, p := range parts {
		r := p.r
		at := d.lines[p.from].start
		switch {
		case r.syntax:
			return noPlan(d.src, at, "the parser reads "+p.where()+" otherwise than the outline: "+r.err.Error())
		case r.err != nil:
			return noPlan(d.src, d.lines[p.from+max(r.line-1, 0)].start, r.err.Error())
		case r.keep && i+1 < len(parts) && parts[i+1].ptr != "" && parts[i+1].from == p.to:
			// A chunk left out right after it would be blanked into
			// empty lines, which the scalar would take as its own.
			return noPlan(d.src, at, "a keep-chomped scalar (|+) ending "+p.where()+", a chunk after it")
		}
		d.asText = d.asText || r.anchored
		if p.ptr == "" {
			for _, ref := range r.refs {
				chunk, ok := componentRef(ref)
				if !ok {
					return noPlan(d.src, at, refReason(ref))
				}
				d.asText = d.asText || chunk != ref
				d.headerRefs = append(d.headerRefs, chunk)
			}
			d.headerRefs = append(d.headerRefs, r.anchorsIn...)
			continue
		}
		if why := ps.chunk(d, p, r); why != nil {
			return why
		}
	}
	d.header = outsideText(d, parts)
	return nil
}

// outsideText is the text of d's lines outside its chunk parts and info,
// which no chunk's meaning depends on.
func outsideText(d *pieces, parts []cutPart) []byte {
	inHeader := make([]bool, len(d.lines))
	for i := range inHeader {
		inHeader[i] = true
	}
	for _, p := range parts {
		if p.ptr != "" || p.info {
			for i := p.from; i < p.to; i++ {
				inHeader[i] = false
			}
		}
	}
	var header bytes.Buffer
	for i, l := range d.lines {
		if inHeader[i] {
			header.Write(d.src[l.start:l.end])
			header.WriteByte('\n')
		}
	}
	return header.Bytes()
}

// header is the text sameHeader will compare, known from the outline: a
// JSON text's cut made it already.
func (o outlined) header() []byte {
	if o.d.json {
		return o.d.header
	}
	return outsideText(o.d, o.parts)
}

// where names a part for NoPlan.
func (p cutPart) where() string {
	if p.ptr != "" {
		return p.ptr
	}
	return strconv.Quote(p.key)
}

// chunk adds part p, read as r, to d's chunks.
func (ps *parses) chunk(d *pieces, p cutPart, r *parsed) *NoPlan {
	at := d.lines[p.from].start
	if d.chunks[p.ptr] != nil {
		return noPlan(d.src, at, "a key twice") // kin-openapi's to report
	}
	if !r.object {
		return noPlan(d.src, at, p.ptr+" is not a mapping") // kin-openapi's to refuse
	}
	c := &chunk{first: p.from, end: p.to, bare: d.bare(p.from), alias: r.alias}
	c.ignore = bytes.Contains(d.text(c), []byte("x-contractlint-ignore"))
	d.chunks[p.ptr] = c
	d.sections[p.section] = append(d.sections[p.section], p.ptr)
	if p.kind == "paths" {
		d.paths = append(d.paths, p.key)
		for _, id := range r.opIDs {
			d.opIDs = append(d.opIDs, opID{id, c})
		}
	}
	c.refs = append(c.refs, r.anchorsIn...) // a chunk kept keeps the anchors it aliases
	if p.kind == "examples" && !r.alias {
		return nil // its $refs are data the loader never follows (Okta's examples quote JSON Schemas)
	}
	for _, ref := range r.refs {
		chunk, ok := componentRef(ref)
		if !ok {
			return noPlan(d.src, at, refReason(ref))
		}
		// A $ref into a component, or a component that is a $ref itself:
		// the plan's texts load as they are (see pieces.asText).
		d.asText = d.asText || chunk != ref || r.alias
		c.refs = append(c.refs, chunk)
	}
	return nil
}

// unreadable says why src is not cut before any of it is read: empty, or
// holding what Load refuses or reads otherwise than the cutter (tabs, CR
// line ends, NUL, a byte-order mark, invalid UTF-8).
func unreadable(src []byte) *NoPlan {
	switch {
	case len(src) == 0:
		return noPlan(src, -1, "an empty document")
	case bytes.HasPrefix(src, []byte("\xef\xbb\xbf")):
		return noPlan(src, 0, "a byte-order mark")
	case hasAnyByte(src, '\t', '\r', 0):
		return noPlan(src, bytes.IndexAny(src, "\t\r\x00"), "a tab, CR or NUL byte")
	case !utf8.Valid(src):
		at := 0
		for at < len(src) {
			r, n := utf8.DecodeRune(src[at:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			at += n
		}
		return noPlan(src, at, "invalid UTF-8")
	}
	return nil
}

// newPieces is src with its lines found, before any chunk.
func newPieces(src []byte) *pieces {
	d := &pieces{src: src, chunks: map[string]*chunk{}, sections: map[int][]string{}}
	d.lines = make([]span, 0, bytes.Count(src, []byte("\n"))+1)
	for start := 0; start <= len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src) - start
		}
		d.lines = append(d.lines, span{start, start + end})
		start += end + 1
	}
	return d
}

// lineOf is the 0-based line of the byte at offset off (len(src) is on the
// last line): the lines before it counted by a search of the line index, not
// by the line breaks from the start, which made a cut of many chunks
// quadratic in the document's size.
func (d *pieces) lineOf(off int) int {
	i, _ := slices.BinarySearchFunc(d.lines, off, func(l span, off int) int { return cmp.Compare(l.start, off+1) })
	return i - 1
}

// firstNonBlank is the index of src's first byte that is not a space or
// a line break (len(src)-1 when there is none).
func firstNonBlank(src []byte) int {
	for i, c := range src {
		if c != ' ' && c != '\n' {
			return i
		}
	}
	return len(src) - 1
}

// hasAnyByte is bytes.ContainsAny for a few bytes, each looked for with
// IndexByte's vector loop: ContainsAny reads a 4 MB document byte by byte.
func hasAnyByte(b []byte, cs ...byte) bool {
	for _, c := range cs {
		if bytes.IndexByte(b, c) >= 0 {
			return true
		}
	}
	return false
}

// baseKeywords are the JSON Schema keywords (OpenAPI 3.1) that give a
// schema an identity a $ref can resolve to other than a component pointer.
// 2019-09's $recursiveRef and $recursiveAnchor are not among them: kin-openapi
// resolves neither (see jsonSchemaOnly), so they are text of their chunk.
var baseKeywords = []string{"$id", "$anchor", "$dynamic"}

// version30 tells whether src declares OpenAPI 3.0 (`openapi: 3.0.x` at
// the start of a line), whose schemas have no identity keywords: an $id
// there is an unknown field (Okta's examples quote JSON Schemas with one).
func version30(src []byte) bool {
	at := bytes.Index(src, []byte("\nopenapi:"))
	if bytes.HasPrefix(src, []byte("openapi:")) {
		at = -1
	} else if at < 0 {
		return false
	}
	v := bytes.TrimLeft(src[at+1+len("openapi:"):], " ")
	v = bytes.TrimLeft(v, `"'`)
	return bytes.HasPrefix(v, []byte("3.0.")) || bytes.HasPrefix(v, []byte("3.0\n"))
}

// refReason says why the $ref p is not followed.
func refReason(p string) string {
	if p != "" && p[0] != '#' {
		return "a $ref to another file"
	}
	return "a $ref that is not a component pointer: " + strconv.QuoteToASCII(p)
}

// componentRef is the chunk a $ref reaches: the component of a kind cut
// into chunks it points to or into (PagerDuty's spec points at
// `#/components/parameters/x/schema`, a parameter's schema, which is in
// the parameter's chunk). false for any other $ref, which a plan does not
// follow.
func componentRef(p string) (string, bool) {
	kind, rest, ok := strings.Cut(strings.TrimPrefix(p, "#/components/"), "/")
	name, _, _ := strings.Cut(rest, "/")
	if !strings.HasPrefix(p, "#/components/") || !ok || !splitKinds[kind] || name == "" {
		return p, false
	}
	return "#/components/" + kind + "/" + name, true
}
