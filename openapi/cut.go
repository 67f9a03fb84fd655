package openapi

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cut splits a block-style YAML document into its chunks (see subset.go),
// reading it line by line: only lines that start a mapping entry decide the
// structure; the lines of block scalars, of plain scalars that continue and
// of quoted scalars that span lines are text. It says why not (NoPlan) on
// anything the cutter is not sure of.
func cut(src []byte) (*pieces, *NoPlan) {
	if why := unreadable(src); why != nil {
		return nil, why // what Load refuses, Load must say where
	}
	d := newPieces(src)
	if src[firstNonBlank(src)] == '{' {
		return cutJSON(d)
	}
	for _, kw := range baseKeywords {
		if at := bytes.Index(src, []byte(kw)); at >= 0 && !version30(src) {
			return nil, noPlan(src, at, "a JSON Schema identity keyword ("+kw+")") // a $ref may then resolve against another base
		}
	}
	c := &cutter{d: d, sc: scanner{block: -1, plain: -1, explicit: -1, refKey: -1}, entry: -1, kindAt: -1, nameAt: -1, child: -1, section: -1}
	var header bytes.Buffer
	for i, l := range d.lines {
		line := src[l.start:l.end]
		keep := c.sc.keep // a |+ scalar above is open
		info, ok := c.sc.next(line)
		before := c.cur
		if !ok {
			return nil, noPlan(src, l.start, c.sc.why)
		}
		if info.structure && !c.structure(i, info) {
			return nil, noPlan(src, l.start, c.why)
		}
		if keep && info.structure {
			// The scalar ended here. Had a chunk ended with it, the
			// chunk after could be blanked into empty lines, which the
			// scalar would take as its own.
			if c.cur != before {
				return nil, noPlan(src, l.start, "a keep-chomped scalar (|+) ending a chunk")
			}
			c.sc.keep = false
		}
		if !c.anchor(info) {
			return nil, noPlan(src, l.start, c.why)
		}
		if c.cur != nil && c.cur.first == i && len(info.flowRefs) > 0 {
			c.d.asText = true // it may be a $ref itself
		}
		if c.exampleData(i) {
			// no $ref: the text of an example's value
		} else if info.isRef && info.scalar && !c.ref(string(info.value)) {
			return nil, noPlan(src, l.start, c.why)
		}
		for _, r := range info.flowRefs {
			if !c.exampleData(i) && !c.ref(r) {
				return nil, noPlan(src, l.start, c.why)
			}
		}
		if c.cur == nil && c.top != "info" {
			header.Write(line)
			header.WriteByte('\n')
		}
	}
	if c.sc.quote != 0 || c.sc.ref == 1 || c.sc.pointer != nil || c.sc.explicit >= 0 || c.sc.refKey >= 0 {
		return nil, noPlan(src, len(src), "a quoted scalar, $ref or complex key open at the end")
	}
	c.close(len(d.lines))
	d.header = header.Bytes()
	return d, nil
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

// cutter tracks where in the document's structure the scan is.
type cutter struct {
	d  *pieces
	sc scanner
	// top is the current top-level key, kind the current components kind.
	top, kind string
	// entry, kindAt and nameAt are the indentations of paths entries,
	// component kinds and component names (-1 until seen).
	entry, kindAt, nameAt int
	// section is the line of the key whose entries are being read as
	// chunks, -1 for none.
	section int
	cur     *chunk
	// child is the indentation of the current chunk's own keys.
	child int
	// why is what the cutter was not sure of, once it says false.
	why string
	// ptr is the current chunk's pointer; anchors holds where each anchor
	// was defined ("" outside every chunk).
	ptr     string
	anchors map[string]string
}

// anchor records the anchor a line defines, where, and follows the alias
// it is to the chunk of its anchor as a $ref is followed: a chunk kept
// keeps the anchor it aliases (blanked, the alias would name nothing),
// and one whose anchor changed reaches the change. Either makes the
// plan's texts load as they are (asText): a part or a stub would cut an
// alias from its anchor. An anchor defined twice (the later one wins for
// the aliases after it) is not followed.
func (c *cutter) anchor(l lineInfo) bool {
	at := ""
	if c.cur != nil {
		at = c.ptr
	}
	if l.anchor != "" {
		if c.anchors == nil {
			c.anchors = map[string]string{}
		}
		if _, twice := c.anchors[l.anchor]; twice {
			return c.fail("an anchor defined twice")
		}
		c.anchors[l.anchor] = at
		c.d.asText = true
	}
	if l.alias == "" {
		return true
	}
	target, ok := c.anchors[l.alias]
	switch {
	case !ok:
		return c.fail("an alias before its anchor")
	case target == "" || target == at:
	case c.cur == nil:
		c.d.headerRefs = append(c.d.headerRefs, target)
	default:
		c.cur.refs = append(c.cur.refs, target)
	}
	return true
}

// exampleData tells whether line i is inside an example component's
// value, whose "$ref"s are data the loader never follows (Okta's examples
// quote JSON Schemas that $ref their #/definitions): any line of an
// examples chunk but its first, unless the example is a $ref itself.
func (c *cutter) exampleData(i int) bool {
	return c.top == "components" && c.kind == "examples" && c.cur != nil && c.cur.first != i && !c.cur.alias
}

// fail records why the cutter gives up, for NoPlan.
func (c *cutter) fail(why string) bool {
	c.why = why
	return false
}

// structure places one line that starts a node. It opens and closes chunks
// at the indentations of paths entries and component names.
func (c *cutter) structure(i int, l lineInfo) bool {
	if l.indent == 0 {
		if l.dash && c.top != "" && c.top != "paths" && c.top != "components" {
			return true // an entry of a header's sequence written at its key's indentation (Plaid's servers)
		}
		if l.dash || !l.hasKey {
			return c.fail("a top-level line that is not a key")
		}
		c.close(i)
		c.top, c.kind, c.entry, c.kindAt, c.section = string(l.key), "", -1, -1, -1
		if c.top == "paths" && l.bare {
			c.section = i
		}
		return true
	}
	switch c.top {
	case "paths":
		return c.level(i, l, &c.entry, func() bool {
			if c.section < 0 || !bytes.HasPrefix(l.key, []byte("/")) {
				return true // extensions stay in the header
			}
			key := string(l.key)
			c.d.paths = append(c.d.paths, key)
			return c.open(i, "#/paths/"+escape(key), l.bare)
		})
	case "components":
		if c.kindAt < 0 || l.indent <= c.kindAt {
			return c.level(i, l, &c.kindAt, func() bool {
				c.kind, c.nameAt, c.section = string(l.key), -1, -1
				if splitKinds[c.kind] && l.bare {
					c.section = i
				}
				return true
			})
		}
		if c.section < 0 {
			return true
		}
		return c.level(i, l, &c.nameAt, func() bool {
			return c.open(i, "#/components/"+c.kind+"/"+escape(string(l.key)), l.bare)
		})
	}
	c.inside(l)
	return true
}

// level handles a line under a mapping whose entries sit at indentation
// *at: an entry closes the chunk before it and calls entry.
func (c *cutter) level(i int, l lineInfo, at *int, entry func() bool) bool {
	if *at < 0 {
		*at = l.indent
	}
	switch {
	case l.indent < *at:
		return c.fail("an entry indented less than the one before")
	case l.indent > *at:
		c.inside(l)
		return true
	}
	if l.dash || !l.hasKey {
		return c.fail("a sequence entry or scalar among mapping entries")
	}
	c.close(i)
	return entry()
}

// inside notes a line within the current chunk: the indentation of its own
// keys, and a $ref among them, which would make the chunk another name for
// its target.
func (c *cutter) inside(l lineInfo) {
	if c.cur == nil {
		return
	}
	if c.child < 0 {
		c.child = l.indent
	}
	if l.indent == c.child && l.isRef && !l.dash {
		// (A dash at the keys' indentation starts an entry of a
		// sequence written at its key's: `- $ref` there is an allOf's.)
		c.cur.alias = true
	}
	if string(l.key) == "operationId" && c.top == "paths" && l.scalar {
		c.d.opIDs = append(c.d.opIDs, opID{string(l.value), c.cur})
	}
}

func (c *cutter) open(i int, ptr string, bare bool) bool {
	if c.d.chunks[ptr] != nil {
		return c.fail("a key twice") // kin-openapi's to report
	}
	c.cur, c.child, c.ptr = &chunk{first: i, bare: bare}, -1, ptr
	c.d.chunks[ptr] = c.cur
	c.d.sections[c.section] = append(c.d.sections[c.section], ptr)
	return true
}

// close ends the current chunk before line i.
func (c *cutter) close(i int) {
	if c.cur == nil {
		return
	}
	c.cur.end = i
	c.cur.ignore = bytes.Contains(c.d.text(c.cur), []byte("x-contractlint-ignore"))
	c.cur = nil
}

// ref records a $ref: only a pointer into a component of a kind cut into
// chunks is followed, as the component's chunk.
func (c *cutter) ref(p string) bool {
	chunk, ok := componentRef(p)
	if !ok {
		return c.fail(refReason(p))
	}
	c.d.asText = c.d.asText || chunk != p
	p = chunk
	if c.cur == nil {
		c.d.headerRefs = append(c.d.headerRefs, p)
		return true
	}
	c.d.asText = c.d.asText || c.cur.alias
	c.cur.refs = append(c.cur.refs, p)
	return true
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
