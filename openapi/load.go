// Package openapi loads OpenAPI 3.0/3.1 contracts with kin-openapi (origin
// tracking on, so every element knows its file and line), diffs two of them
// into rules.Change values, and lowers one into a rules.Contract.
package openapi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Doc is one loaded OpenAPI document (with every file it $refs).
type Doc struct {
	T       *openapi3.T
	name    string
	display func(string) string
}

// Load reads the document name (root-relative) from src. Every $ref is read
// through src too: a URL, an absolute path or a path leaving the root is
// refused, never fetched or read.
func Load(src source.Source, name string, display func(string) string) (doc *Doc, err error) {
	if display == nil {
		display = func(s string) string { return s }
	}
	d := &Doc{name: name, display: display}
	defer func() {
		// kin-openapi is third-party code fed untrusted text: a panic there
		// must become an input error, not a crash.
		if r := recover(); r != nil {
			doc, err = nil, source.Errorf(display(name), 0, 0, "cannot read this contract (the OpenAPI parser failed: %v)", r)
		}
	}()
	l := openapi3.NewLoader()
	l.IncludeOrigin = true
	l.IsExternalRefsAllowed = true
	l.Context = context.Background()
	l.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) { return readRef(src, u) }
	t, err := l.LoadFromURI(&url.URL{Path: name})
	if err != nil {
		return nil, d.loadError(err)
	}
	if t.OpenAPI == "" {
		return nil, source.Errorf(display(name), 1, 1, "not an OpenAPI 3 document: no top-level `openapi` field (Swagger 2.0 is not supported)")
	}
	if !strings.HasPrefix(t.OpenAPI, "3.") {
		return nil, source.Errorf(display(name), 1, 1, "unsupported OpenAPI version %q (want 3.0 or 3.1)", t.OpenAPI)
	}
	if err := t.Validate(l.Context, openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(), openapi3.AllowExtraSiblingFields("description", "summary")); err != nil {
		return nil, source.Errorf(display(name), 0, 0, "invalid OpenAPI document: %s", oneLine(err.Error()))
	}
	d.T = t
	return d, nil
}

// readRef is the only way the loader reaches bytes.
func readRef(src source.Source, u *url.URL) ([]byte, error) {
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return nil, fmt.Errorf("$ref to %q refused: contractlint never fetches remote references", u.Redacted())
	}
	name, err := source.Clean(u.Path)
	if err != nil {
		return nil, fmt.Errorf("$ref to %q refused: %w", u.Path, err)
	}
	return src.ReadFile(name)
}

var yamlLineRE = regexp.MustCompile(`(?:yaml|line): (?:line )?(\d+)(?::(\d+))?`)

// loadError turns a loader error into file:line:col when the message says
// where; kin-openapi wraps YAML errors as text.
func (d *Doc) loadError(err error) error {
	var ps source.Problems
	if errors.As(err, &ps) {
		return ps
	}
	msg := oneLine(err.Error())
	file := d.display(d.name)
	line, col := 0, 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		col, _ = strconv.Atoi(m[2])
	}
	switch {
	case strings.Contains(msg, "refused"):
		msg = msg[strings.Index(msg, "$ref"):]
	case errors.Is(err, source.ErrOutside):
	case strings.Contains(msg, "unmarshal") || strings.Contains(msg, "yaml:"):
		msg = "not valid YAML or JSON: " + msg
	}
	return source.Errorf(file, line, col, "%s", msg)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " | ")), " ")
}

// Loc converts a kin-openapi location into a reported one.
func (d *Doc) Loc(l *openapi3.Location) rules.Location {
	if l == nil || l.Line == 0 {
		return rules.Location{File: d.display(d.name)}
	}
	file := l.File
	if u, err := url.PathUnescape(file); err == nil {
		file = u
	}
	if file == "" {
		file = d.name
	}
	return rules.Location{File: d.display(file), Line: l.Line, Column: l.Column}
}

// KeyLoc is where an element's key is: "price:" for a property.
func (d *Doc) KeyLoc(o *openapi3.Origin) rules.Location {
	if o == nil {
		return d.Loc(nil)
	}
	return d.Loc(o.Key)
}

// FieldLoc is where one field of an element is ("maxLength: 10"), or the
// element's key when that field has no recorded place.
func (d *Doc) FieldLoc(o *openapi3.Origin, field string) rules.Location {
	if o != nil {
		if l, ok := o.Fields.Lookup(field); ok && l.Line > 0 {
			return d.Loc(&l)
		}
	}
	return d.KeyLoc(o)
}
