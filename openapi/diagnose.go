package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
)

// diagnose finds why a document the decoder could not map onto OpenAPI's
// fields fails, for the message to say what is wrong where rather than
// "the top level is not a map of OpenAPI fields": a version written as a
// number, a count that is negative or not whole, a number too large for
// its field. It parses the text again, so it runs only after a failure.
// nil when it finds nothing it can name.
func diagnose(file string, raw []byte) source.Problems {
	var doc yaml.Node
	if yaml.Unmarshal(raw, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value == "openapi" && v.Kind == yaml.ScalarNode && v.Tag != "!!str" {
			return source.Errorf(file, v.Line, v.Column, "openapi: %s is read as a number; write the version as a string, such as openapi: \"3.0.3\"", v.Value)
		}
	}
	var found source.Problems
	walkScalars(top, func(key, v *yaml.Node) bool {
		if msg := badNumber(key.Value, v); msg != "" {
			found = source.Errorf(file, v.Line, v.Column, "%s: %s", key.Value, msg)
			return false
		}
		return true
	})
	return found
}

// counts are the schema fields that hold a non-negative whole number;
// numbers those that hold any number.
var (
	counts = map[string]bool{
		"maxLength": true, "minLength": true, "maxItems": true, "minItems": true,
		"maxProperties": true, "minProperties": true,
	}
	numbers = map[string]bool{
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	}
)

// badNumber says what is wrong with a scalar value of key, or "".
func badNumber(key string, v *yaml.Node) string {
	s := v.Value
	f, ferr := strconv.ParseFloat(s, 64)
	switch {
	case counts[key]:
		_, err := strconv.ParseUint(s, 10, 64)
		switch {
		case err == nil:
			return ""
		case ferr == nil && f < 0:
			return fmt.Sprintf("%s is negative; want a whole number, 0 or more", s)
		case errors.Is(err, strconv.ErrRange):
			return fmt.Sprintf("%s is too large for a 64-bit count", s)
		}
		return fmt.Sprintf("%s is not a whole number, 0 or more", s)
	case numbers[key] && errors.Is(ferr, strconv.ErrRange):
		return fmt.Sprintf("%s does not fit in a 64-bit number", s)
	}
	return ""
}

// walkScalars calls f with every mapping key whose value is a scalar, in
// document order, until f returns false.
func walkScalars(n *yaml.Node, f func(key, v *yaml.Node) bool) bool {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.ScalarNode {
				if !f(k, v) {
					return false
				}
			} else if !walkScalars(v, f) {
				return false
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if !walkScalars(c, f) {
				return false
			}
		}
	}
	return true
}

// refFiles remembers each file the loader read, by name, so that an error
// the loader reports inside a $ref'd file can be placed in that file.
type refFiles struct {
	mu    sync.Mutex
	names []string
	text  map[string][]byte
	// shifts are the files Readable rewrote, with how their columns moved.
	shifts map[string][]shift
}

func (d *Doc) read1(name string, b []byte) {
	d.refs.mu.Lock()
	defer d.refs.mu.Unlock()
	if d.refs.text == nil {
		d.refs.text = map[string][]byte{}
	}
	if _, ok := d.refs.text[name]; !ok {
		d.refs.names = append(d.refs.names, name)
	}
	d.refs.text[name] = b
}

var refErrRE = regexp.MustCompile(`error resolving reference "([^"#]*)[^"]*"`)

// refError places a parse error inside a $ref'd file at that file's own
// line, rather than at the same line of the document naming it: the loader
// says only which reference failed, so the file is found among those read
// and parsed again. nil when the message is not about a reference's text.
func (d *Doc) refError(msg string) source.Problems {
	m := refErrRE.FindStringSubmatch(msg)
	if m == nil || m[1] == "" {
		return nil
	}
	want := strings.TrimLeft(path.Clean("/"+m[1]), "/") // its tail: ../a/b -> a/b
	for _, name := range slices.Backward(d.refs.names) {
		if name == d.name || !(name == want || strings.HasSuffix(name, "/"+want)) {
			continue
		}
		var n yaml.Node
		err := yaml.Unmarshal(d.refs.text[name], &n)
		if err == nil {
			return source.Errorf(d.display(name), 0, 0, "not an OpenAPI fragment (reached through $ref %q)", m[1])
		}
		line := 0
		emsg := strings.TrimPrefix(err.Error(), "yaml: ")
		if _, scanErr := fmt.Sscanf(emsg, "line %d:", &line); scanErr == nil {
			_, emsg, _ = strings.Cut(emsg, ":")
		}
		return source.Errorf(d.display(name), line, 0, "not valid YAML or JSON (reached through $ref %q): %s", m[1], strings.TrimSpace(emsg))
	}
	return nil
}

// refTargetRE is the reference a refused or unreadable $ref names.
var refTargetRE = regexp.MustCompile(`^\$ref to "([^"]+)"`)

// refAt places msg, about a $ref that could not be read, at the first
// `$ref` that names its target in a file read so far (newest first): the
// loader's error says what was refused, not where it was written.
func (d *Doc) refAt(msg string) error {
	file := d.display(d.name)
	m := refTargetRE.FindStringSubmatch(msg)
	if m == nil {
		return source.Errorf(file, 0, 0, "%s", msg)
	}
	d.refs.mu.Lock()
	defer d.refs.mu.Unlock()
	for _, name := range slices.Backward(d.refs.names) {
		if line, col := refLine(d.refs.text[name], m[1]); line > 0 {
			return source.Errorf(d.display(name), line, col, "%s", msg)
		}
	}
	return source.Errorf(file, 0, 0, "%s", msg)
}

// refLine is the line and column of the first `$ref` written on the same
// line as target, or of its base name when the loader resolved a relative
// path against the referring file's folder.
func refLine(b []byte, target string) (int, int) {
	for _, want := range []string{target, path.Base(target)} {
		for off := 0; ; {
			r := bytes.Index(b[off:], []byte("$ref"))
			if r < 0 {
				break
			}
			r += off
			end := bytes.IndexByte(b[r:], '\n')
			if end < 0 {
				end = len(b) - r
			}
			if bytes.Contains(b[r:r+end], []byte(want)) {
				return position(b, r)
			}
			off = r + end
		}
	}
	return 0, 0
}
