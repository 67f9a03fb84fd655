package openapi

import (
	"bytes"
	"encoding/json"
	"io"
)

// cutJSON is cut for a JSON document, read through encoding/json's tokens
// and their offsets. A chunk is blanked and stubbed by its lines, as block
// YAML's are, so each paths entry and component must begin its line and
// end one (its comma after it): the layout every JSON writer's indented
// output has. A minified document, one line, is not cut. A chunk blanked
// leaves a comma before a closing brace at most, which the YAML parser
// kin-openapi reads JSON with takes as JSON means it. A document with a
// surrogate-pair escape (an emoji written \ud83d\udc4d) is not cut either:
// Readable rewrites those for the YAML parser only in valid JSON, which a
// blanked document is not, and the planned load lost every place.
func cutJSON(d *pieces) (*pieces, bool) {
	if surrogateRE.Match(d.src) {
		return nil, false
	}
	j := &jsonCutter{d: d, dec: json.NewDecoder(bytes.NewReader(d.src)), header: make([]bool, len(d.lines))}
	for i := range j.header {
		j.header[i] = true
	}
	if _, ok := j.value(nil); !ok {
		return nil, false
	}
	if _, err := j.dec.Token(); err != io.EOF {
		return nil, false // more than one value
	}
	var header bytes.Buffer
	for i, l := range d.lines {
		if j.header[i] {
			header.Write(d.src[l.start:l.end])
			header.WriteByte('\n')
		}
	}
	d.header, d.json = header.Bytes(), true
	return d, true
}

// jsonCutter walks a JSON document's tokens.
type jsonCutter struct {
	d   *pieces
	dec *json.Decoder
	// cur is the chunk being read, depth the length of its path.
	cur   *chunk
	depth int
	// header marks the lines outside every chunk and outside info.
	header []bool
}

// value reads one value at path; s is its text when it is a string.
func (j *jsonCutter) value(path []string) (s string, ok bool) {
	tok, err := j.dec.Token()
	if err != nil {
		return "", false
	}
	switch tok {
	case json.Delim('{'):
		for j.dec.More() {
			at := j.keyStart()
			tok, err := j.dec.Token()
			key, isKey := tok.(string)
			if err != nil || !isKey || !j.entry(path, key, at) {
				return "", false
			}
		}
	case json.Delim('['):
		for j.dec.More() {
			if _, ok := j.value(append(path, "-")); !ok {
				return "", false
			}
		}
	default:
		s, _ := tok.(string)
		return s, true
	}
	_, err = j.dec.Token() // the closing bracket
	return "", err == nil
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
func (j *jsonCutter) entry(path []string, key string, at int) bool {
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
		s, ok := j.value(p)
		switch {
		case !ok:
			return false
		case key == "$ref":
			return j.ref(s, len(path))
		case key == "operationId" && j.cur != nil && p[0] == "paths":
			j.d.opIDs = append(j.d.opIDs, s)
		case len(p) == 1 && key == "info":
			j.lines(at) // info may differ, as in cut
		}
		return true
	}
	if j.d.chunks[ptr] != nil {
		return false // a key twice
	}
	j.cur, j.depth = &chunk{}, len(p)
	if _, ok := j.value(p); !ok {
		return false
	}
	c := j.cur
	j.cur = nil
	first, end, ok := j.lines(at)
	if !ok {
		return false
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
	first = bytes.Count(src[:at], []byte("\n"))
	end = first + bytes.Count(src[at:stop], []byte("\n")) + 1
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

// ref records a $ref's pointer, as cutter.ref does; depth is the length of
// the path of the mapping holding it.
func (j *jsonCutter) ref(p string, depth int) bool {
	switch {
	case !componentRef(p):
		return false
	case j.cur == nil:
		j.d.headerRefs = append(j.d.headerRefs, p)
	case depth == j.depth:
		return false // a component that is a $ref itself: two names for one
	default:
		j.cur.refs = append(j.cur.refs, p)
	}
	return true
}
