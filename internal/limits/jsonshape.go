package limits

import (
	"bytes"
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// jsonShape is Scan of a JSON document read by jsontext's tokenizer, a real
// parser, in place of the line scan, which reads JSON as YAML's flow style.
// Every count is exact: depth, keys and list items, the widest object, and
// the kinds (paths' operations, schemas, the widest properties object).
// ok is false, and Scan is left to judge, for what is not one JSON value
// read to its end without a duplicated name (which DuplicateKey places):
// YAML's flow style beyond JSON, broken JSON, a second value.
func jsonShape(b []byte, maxDepth, maxKeys int) (sh Shape, ok bool) {
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowInvalidUTF8(true))
	lines := lineCounter{b: b}
	// frames are the open objects and arrays: an object's name being
	// read ("" before its first) and how many names it holds so far.
	type frame struct {
		object bool
		name   []byte
		keys   int
	}
	var frames []frame
	var path [][]byte
	for read := false; ; read = true {
		kind := d.PeekKind()
		if kind == 0 {
			break
		}
		top := len(frames) - 1
		if top < 0 && read {
			return sh, false // a second value
		}
		// A value in an array is an item; a string where a name is due
		// is the name.
		_, n := d.StackIndex(d.StackDepth())
		isName := top >= 0 && frames[top].object && n%2 == 0 && kind == '"'
		if top >= 0 && !frames[top].object && kind != ']' {
			sh.Elements++
		}
		switch kind {
		case '{', '[':
			if _, err := d.ReadToken(); err != nil {
				return sh, false
			}
			if d.StackDepth() > maxDepth {
				sh.DeepLine = lines.at(int(d.InputOffset()) - 1)
				return sh, true
			}
			frames = append(frames, frame{object: kind == '{'})
		case '}', ']':
			if _, err := d.ReadToken(); err != nil {
				return sh, false
			}
			frames = frames[:top]
		default:
			raw, err := d.ReadValue()
			if err != nil {
				return sh, false
			}
			if !isName {
				continue
			}
			f := &frames[top]
			f.keys++
			sh.Elements++
			name := unquoted(raw)
			if f.keys > maxKeys {
				sh.WideLine = lines.at(int(d.InputOffset()) - len(raw))
				return sh, true
			}
			path = path[:0]
			for _, p := range frames[:top] {
				if p.object {
					path = append(path, p.name)
				} else {
					path = append(path, dash)
				}
			}
			if k, ok := openapiKind(path, name); ok {
				if k != Properties {
					sh.Counts[k]++
				} else if f.keys > sh.Counts[Properties] {
					sh.Counts[Properties], sh.PropsLine = f.keys, lines.at(int(d.InputOffset())-len(raw))
				}
			}
			f.name = kept(name, top)
		}
	}
	if _, err := d.ReadToken(); !errors.Is(err, io.EOF) || d.StackDepth() != 0 {
		return sh, false
	}
	return sh, true
}

// kept is what a frame keeps of the name it is reading, at depth top (0 at
// the root): what openapiKind looks at, the first two names on the way and
// "properties". The decoder's bytes do not outlive the next read.
func kept(name []byte, top int) []byte {
	switch {
	case top < 2:
		return bytes.Clone(name)
	case string(name) == "properties":
		return properties
	}
	return nil
}

var properties = []byte("properties")

// jsonDocShape is jsonShape of a text that begins as a JSON object does,
// as DuplicateKey reads it; ok is false for any other.
func jsonDocShape(b []byte, maxDepth, maxKeys int) (Shape, bool) {
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Shape{}, false
	}
	return jsonShape(b, maxDepth, maxKeys)
}

// unquoted is a JSON string's text: its raw bytes without the quotes, or
// decoded when it holds an escape.
func unquoted(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	s, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return raw[1 : len(raw)-1]
	}
	return s
}

// lineCounter turns offsets, asked for in increasing order, into 1-based
// lines, counting each line break once.
type lineCounter struct {
	b         []byte
	off, line int
}

func (c *lineCounter) at(off int) int {
	if c.line == 0 {
		c.line = 1
	}
	c.line += bytes.Count(c.b[c.off:off], []byte("\n"))
	c.off = off
	return c.line
}
