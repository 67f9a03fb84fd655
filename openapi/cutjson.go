package openapi

import (
	"bytes"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// cutJSON is cut for a JSON document, read through jsontext's tokens and
// their offsets (several times faster than encoding/json's). A chunk is blanked and stubbed by its lines, as block
// YAML's are, so each paths entry and component must begin its line and
// end one (its comma after it): the layout every JSON writer's indented
// output has. A minified document, one line, is not cut. A chunk blanked
// leaves a comma before a closing brace at most, which the YAML parser
// kin-openapi reads JSON with takes as JSON means it, and Readable reads as
// JSON still (dropTrailingCommas), so a surrogate-pair escape (an emoji
// written \ud83d\udc4d, Twilio's spec has them) is rewritten in the plan's
// text as in the whole document.
//
// Unlike the YAML cutter, which stops at any mention of a JSON Schema
// identity keyword ($id, $anchor, $dynamicRef), this one knows each key's
// place: a property named $id (Box's metadata instances have one) or an
// example holding one is not a keyword, and does not stop the plan.
//
// A document whose chunks share lines (minified JSON, one line) is cut by
// bytes instead: a chunk is its entry's bytes, blanked into as many spaces
// with the comma after it, so every offset, and so every line and column,
// stays. Its plan is loaded from its texts: the parts LoadOld and Patch
// parse are cut by lines.
func cutJSON(d *pieces) (*pieces, *NoPlan) {
	d, why, shared := cutJSONAs(d, false)
	if shared {
		d, why, _ = cutJSONAs(newPieces(d.src), true)
	}
	return d, why
}

// cutJSONAs is cutJSON by lines, or by bytes; shared reports that a chunk
// shares a line with other text, so the cut by lines gave up.
func cutJSONAs(d *pieces, bytewise bool) (_ *pieces, _ *NoPlan, shared bool) {
	// A key twice is this cutter's to judge (a chunk's is no plan), and a
	// string is read as encoding/json reads it, invalid UTF-8 as U+FFFD.
	dec := jsontext.NewDecoder(bytes.NewBuffer(d.src), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	j := &jsonCutter{d: d, dec: dec, bytewise: bytewise}
	if !bytewise {
		j.header = make([]bool, len(d.lines))
		for i := range j.header {
			j.header[i] = true
		}
	}
	if _, ok := j.value(nil, place{}, false); !ok {
		return d, noPlan(d.src, j.at, j.why), j.shared
	}
	if _, err := j.dec.ReadToken(); err != io.EOF {
		return d, noPlan(d.src, int(j.dec.InputOffset()), "more than one JSON value"), false
	}
	var header bytes.Buffer
	if bytewise {
		from := 0
		for _, s := range j.spans {
			header.Write(d.src[from:s.start])
			from = s.end
		}
		header.Write(d.src[from:])
	}
	for i, l := range d.lines {
		if !bytewise && j.header[i] {
			header.Write(d.src[l.start:l.end])
			header.WriteByte('\n')
		}
	}
	d.header, d.json, d.bytewise = header.Bytes(), true, bytewise
	return d, nil, false
}

// jsonCutter walks a JSON document's tokens.
type jsonCutter struct {
	d   *pieces
	dec *jsontext.Decoder
	// cur is the chunk being read, depth the length of its path.
	cur   *chunk
	depth int
	// header marks the lines outside every chunk and outside info; cut
	// by bytes, spans holds the bytes of the chunks and info, in order.
	header []bool
	spans  []span
	// bytewise: chunks are cut by bytes; shared: the cut by lines found a
	// chunk sharing a line.
	bytewise, shared bool
	// why is what the cutter was not sure of, at the byte at.
	why string
	at  int
}

// fail records why the cutter gives up, and where, for NoPlan.
func (j *jsonCutter) fail(at int, why string) bool {
	j.why, j.at = why, at
	return false
}

// place is where a mapping sits, as far as the identity keywords care:
// names, its keys are names (of properties, paths, components, media
// types...), not keywords; data, it is inside a value that is data (an
// example, a default, an enum, an extension), which no loader resolves.
type place struct{ names, data bool }

// nameKeys are the keywords whose value maps names to things; dataKeys
// those whose value is data.
var (
	nameKeys = map[string]bool{
		"paths": true, "webhooks": true, "schemas": true, "parameters": true, "responses": true,
		"requestBodies": true, "headers": true, "links": true, "callbacks": true, "pathItems": true,
		"securitySchemes": true, "content": true, "encoding": true, "variables": true, "mapping": true,
		"scopes": true, "properties": true, "patternProperties": true, "dependentSchemas": true,
		"$defs": true, "definitions": true,
	}
	dataKeys = map[string]bool{"example": true, "examples": true, "default": true, "enum": true, "const": true}
)

// of is the place of the value of key, a key of a mapping at pl. A name's
// value is a thing whose keys are keywords again.
func (pl place) of(key string) place {
	switch {
	case pl.data || !pl.names && (dataKeys[key] || strings.HasPrefix(key, "x-")):
		return place{data: true}
	case pl.names:
		return place{}
	}
	return place{names: nameKeys[key]}
}

// identity reports whether key, a key of a mapping at pl, is a JSON Schema
// identity keyword: a $ref may then resolve against another base.
func (pl place) identity(key string) bool {
	if pl.names || pl.data {
		return false
	}
	for _, kw := range baseKeywords {
		if strings.HasPrefix(key, kw) {
			return true
		}
	}
	return false
}

// value reads one value at path, a mapping's at pl; s is its text when it
// is a string and text is set (a string's text is a copy, and most are
// never looked at).
func (j *jsonCutter) value(path []string, pl place, text bool) (s string, ok bool) {
	tok, err := j.dec.ReadToken()
	if err != nil {
		return "", j.fail(int(j.dec.InputOffset()), "not JSON")
	}
	switch tok.Kind() {
	case '{':
		for j.more() {
			at := j.keyStart()
			tok, err := j.dec.ReadToken()
			if err != nil || tok.Kind() != '"' {
				return "", j.fail(at, "not JSON")
			}
			key := tok.String()
			if pl.identity(key) {
				return "", j.fail(at, "a JSON Schema identity keyword ("+key+")")
			}
			if !j.entry(path, key, at, pl.of(key)) {
				return "", false
			}
		}
	case '[':
		for j.more() {
			if _, ok := j.value(append(path, "-"), place{data: pl.data}, false); !ok {
				return "", false
			}
		}
	case '"':
		if text {
			return tok.String(), true
		}
		return "", true
	default:
		return "", true
	}
	if _, err = j.dec.ReadToken(); err != nil { // the closing bracket
		return "", j.fail(int(j.dec.InputOffset()), "not JSON")
	}
	return "", true
}

// more reports whether the object or array being read has another member:
// a broken one does, for its read to fail.
func (j *jsonCutter) more() bool {
	k := j.dec.PeekKind()
	return k != '}' && k != ']'
}

// keyStart is the offset of the next key's opening quote: the decoder has
// read up to the value before it, and a comma and blanks come between.
func (j *jsonCutter) keyStart() int {
	at := int(j.dec.InputOffset())
	for at < len(j.d.src) && bytes.IndexByte([]byte(" \n,"), j.d.src[at]) >= 0 {
		at++
	}
	return at
}

// entry reads the value of key, which begins at offset at, in the mapping
// at path: a chunk when it is a paths entry or a component of a kind cut.
// pl is the place of its value.
func (j *jsonCutter) entry(path []string, key string, at int, pl place) bool {
	p := append(path[:len(path):len(path)], key)
	ptr := ""
	switch {
	case len(p) == 2 && p[0] == "paths" && len(key) > 0 && key[0] == '/':
		ptr = "#/paths/" + escape(key)
		j.d.paths = append(j.d.paths, key)
	case len(p) == 3 && p[0] == "components" && splitKinds[p[1]]:
		ptr = "#/components/" + p[1] + "/" + escape(key)
	}
	if ptr == "" {
		s, ok := j.value(p, pl, key == "$ref" || key == "operationId")
		switch {
		case !ok:
			return false
		case key == "$ref":
			return j.ref(s, len(path), at)
		case key == "operationId" && j.cur != nil && p[0] == "paths":
			j.d.opIDs = append(j.d.opIDs, opID{s, j.cur})
		case len(p) == 1 && key == "info" && j.bytewise:
			j.spans = append(j.spans, span{at, j.past()}) // info may differ, as in cut
		case len(p) == 1 && key == "info":
			j.lines(at) // info may differ, as in cut
		}
		return true
	}
	if j.d.chunks[ptr] != nil {
		return j.fail(at, "a key twice")
	}
	j.cur, j.depth = &chunk{}, len(p)
	if _, ok := j.value(p, pl, false); !ok {
		return false
	}
	c := j.cur
	j.cur = nil
	var first, end int
	var ok bool
	if j.bytewise {
		c.from, c.to, c.past = at, int(j.dec.InputOffset()), j.past()
		j.spans = append(j.spans, span{c.from, c.past})
		first, end = j.d.lineOf(at), j.d.lineOf(c.to)+1
	} else if first, end, ok = j.lines(at); !ok {
		j.shared = true
		return j.fail(at, "a paths entry or component sharing a line with other text")
	}
	c.first, c.end = first, end
	// bare: the value goes on past its key's line, so a stub keeps that
	// line alone (see blankStub).
	l := j.d.lines[first]
	c.bare = end-first > 1 && bytes.HasSuffix(j.d.src[l.start:l.end], []byte("{"))
	c.ignore = bytes.Contains(j.d.text(c), []byte("x-contractlint-ignore"))
	j.d.chunks[ptr] = c
	return true
}

// lines finds the lines of the entry whose key begins at offset at and
// whose value the decoder has just read, and takes them out of the header;
// ok is false when the entry does not begin its first line and end its
// last (then, for a chunk, the document is not cut).
func (j *jsonCutter) lines(at int) (first, end int, ok bool) {
	src := j.d.src
	stop := int(j.dec.InputOffset())
	first, end = j.d.lineOf(at), j.d.lineOf(stop)+1
	if len(bytes.Trim(src[j.d.lines[first].start:at], " ")) > 0 {
		return 0, 0, false
	}
	if rest := src[stop:j.d.lines[end-1].end]; len(bytes.Trim(rest, " ")) > 0 && string(bytes.Trim(rest, " ")) != "," {
		return 0, 0, false
	}
	for i := first; i < end; i++ {
		j.header[i] = false
	}
	return first, end, true
}

// past is the offset past the value the decoder has just read and the
// comma after it, if any: what a chunk cut by bytes blanks.
func (j *jsonCutter) past() int {
	end := int(j.dec.InputOffset())
	at := end
	for at < len(j.d.src) && (j.d.src[at] == ' ' || j.d.src[at] == '\n') {
		at++
	}
	if at < len(j.d.src) && j.d.src[at] == ',' {
		return at + 1
	}
	return end
}

// ref records a $ref's pointer, as cutter.ref does; depth is the length of
// the path of the mapping holding it; at is the offset of its key.
func (j *jsonCutter) ref(p string, depth, at int) bool {
	chunk, ok := componentRef(p)
	j.d.asText = j.d.asText || ok && chunk != p
	p = chunk
	switch {
	case !ok:
		return j.fail(at, refReason(p))
	case j.cur == nil:
		j.d.headerRefs = append(j.d.headerRefs, p)
	default:
		// A component that is a $ref itself (at the chunk's own depth)
		// names another: the texts load as they are (see pieces.asText).
		j.d.asText = j.d.asText || depth == j.depth
		j.cur.refs = append(j.cur.refs, p)
	}
	return true
}
