package openapi

import (
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// A `content:` written as a $ref to a file of media types (Lob's tree does
// this in 52 places) is not OpenAPI, but Redocly's bundler resolves it,
// so teams publish it. kin-openapi refuses the whole document ("the top
// level is not a map of OpenAPI fields"), so the served text is rewritten
// before it parses: the $ref becomes, on the same line, a flow map naming
// each media type of the file with its schema as a $ref into that file.
// Lines do not move, and every schema is placed in the file that holds it.
// Media-type fields beside the schema (examples, encoding) are not read.

// contentRefRE finds `content:` whose value is only a $ref, in block form
// (the $ref on the next line, alone) or flow form, YAML or JSON.
var contentRefRE = regexp.MustCompile(`(?m)^([ \t]*"?content"?[ \t]*:)([ \t]*\{[ \t]*"?\$ref"?[ \t]*:[ \t]*("[^"\n]*"|'[^'\n]*'|[^\s,}]+)[ \t]*\}|[ \t]*\n([ \t]+)"?\$ref"?[ \t]*:[ \t]*("[^"\n]*"|'[^'\n]*'|\S+)[ \t]*$)`)

// inlineContentRefs rewrites the content $refs of the file name (served
// text b) that name another file of media types; the others stay, and the
// parser reports them.
func (d *Doc) inlineContentRefs(src source.Source, name string, b []byte) []byte {
	if !mayHoldContentRef(b) || !contentRefRE.Match(b) {
		return b
	}
	return contentRefRE.ReplaceAllFunc(b, func(m []byte) []byte {
		g := contentRefRE.FindSubmatch(m)
		target, indent := g[3], ""
		if len(target) == 0 {
			target, indent = g[5], "\n"+string(g[4])
		}
		ref := strings.Trim(string(target), `"'`)
		flow, ok := mediaTypesOf(src, name, ref)
		if !ok {
			return m
		}
		if !d.contentRefNoted {
			d.contentRefNoted = true
			line := strings.Count(string(b[:strings.Index(string(b), string(m))]), "\n") + 1
			col := len(g[1]) - len(strings.TrimLeft(string(g[1]), " \t")) + 1
			d.bundled = append(d.bundled, rules.Invalid{Loc: rules.Location{File: d.display(name), Line: line, Column: col},
				Msg: "a content map is written as a $ref (" + quote(ref) + "), which OpenAPI does not allow: it is read, with every content written so, " +
					"as Redocly's bundler reads it (each media type's schema; its examples and encoding are not compared)"})
		}
		return []byte(string(g[1]) + indent + " " + flow)
	})
}

// mayHoldContentRef reports whether b has a line contentRefRE could match:
// a content key whose value, on its line or on the next, holds a $ref. The
// regexp alone, which cannot skip ahead to a literal, spent seconds on
// every load of a 4 MB document (most of the test suite's CPU), where
// almost no document has one.
func mayHoldContentRef(b []byte) bool {
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		key := bytes.TrimPrefix(bytes.TrimLeft(line, " \t"), []byte(`"`))
		if !bytes.HasPrefix(key, []byte("content")) {
			continue
		}
		value := bytes.TrimLeft(bytes.TrimPrefix(key[len("content"):], []byte(`"`)), " \t")
		if !bytes.HasPrefix(value, []byte(":")) {
			continue
		}
		next, _, _ := bytes.Cut(b, []byte("\n"))
		if bytes.Contains(value, []byte("$ref")) || len(bytes.TrimSpace(value[1:])) == 0 && bytes.Contains(next, []byte("$ref")) {
			return true
		}
	}
	return false
}

// mediaTypesOf reads the file ref names (relative to name, no fragment)
// and returns its media types as one flow map whose schemas are $refs
// into it; false when it is not a map of media types.
func mediaTypesOf(src source.Source, name, ref string) (string, bool) {
	if ref == "" || strings.ContainsAny(ref, "#:") {
		return "", false
	}
	file, err := source.Clean(path.Join(path.Dir(name), ref))
	if err != nil {
		return "", false
	}
	text, err := src.ReadFile(file)
	if err != nil {
		return "", false
	}
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return "", false
	}
	top := doc.Content[0]
	var parts []string
	for i := 0; i+1 < len(top.Content); i += 2 {
		mt, v := top.Content[i].Value, top.Content[i+1]
		if !strings.Contains(mt, "/") || v.Kind != yaml.MappingNode {
			return "", false
		}
		entry := "{}"
		for j := 0; j+1 < len(v.Content); j += 2 {
			if v.Content[j].Value == "schema" {
				entry = `{"schema": {"$ref": ` + jsonString(ref+"#/"+escape(mt)+"/schema") + `}}`
			}
		}
		parts = append(parts, jsonString(mt)+": "+entry)
	}
	if len(parts) == 0 {
		return "", false
	}
	return "{" + strings.Join(parts, ", ") + "}", true
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
