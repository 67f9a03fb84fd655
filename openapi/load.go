// Package openapi loads OpenAPI 3.0/3.1 contracts with kin-openapi (origin
// tracking on, so every element knows its file and line), diffs two of them
// into rules.Change values, and lowers one into a rules.Contract.
package openapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Doc is one loaded OpenAPI document (with every file it $refs).
type Doc struct {
	T       *openapi3.T
	name    string
	display func(string) string
	// raw is the document's own text, kept while loading to place errors
	// the parser reports without a line.
	raw []byte
	// refs are the files $refs reached, to place an error inside one.
	refs refFiles
	// Problems are what kin-openapi's validation finds wrong in a document
	// that still parses (a response without description, an undeclared path
	// parameter). The document is diffed anyway; the problems become
	// contract-invalid findings, or the run's error under --strict.
	Problems []rules.Invalid
	// last and lastRaw are the file read most recently: kin-openapi parses
	// each file as soon as it reads it, so a parse error is that file's.
	// lastKey and lastServed are the name it was asked for and the text it
	// was given (an operation file is served as a path item, see opref.go).
	last, lastKey       string
	lastRaw, lastServed []byte
	// blanks are the $refs where text was expected, by served name, read as
	// empty text (see textref.go); bundled notes what was read as bundlers
	// read it, as contract-invalid warnings.
	blanks  map[string][]blankSpan
	bundled []rules.Invalid
	// contentRefNoted: bundled already says a content $ref was read (see
	// contentref.go).
	contentRefNoted bool
	// wrongKindReloads counts the reloads wrongKinds asked for, one per
	// component $ref'd in a place of another kind (see wrongref.go).
	wrongKindReloads int
	// served is every file read, by the name it was served under: kin-openapi
	// reads a file again for each $ref to it that names no fragment, and a
	// split tree's shared response is named by hundreds of operations.
	served map[string]servedFile
	// reused is set when the model is partly another load's (Patch).
	reused *reuse
	// lines take the places of the parts parsed as compacted texts back to
	// the document's lines (see linemap.go).
	lines lineMaps
	// lowered is Contract's result, once; restricted is the last Restrict of
	// this document (see held.go).
	lowered    lowering
	restricted restriction
}

// lowering is a document's contract, lowered once.
type lowering struct {
	once sync.Once
	c    *rules.Contract
}

// Load reads the document name (root-relative) from src. Every $ref is read
// through src too: a URL, an absolute path or a path leaving the root is
// refused, never fetched or read.
func Load(src source.Source, name string, display func(string) string) (doc *Doc, err error) {
	display = asGiven(display)
	d := &Doc{name: name, display: display}
	defer func() {
		// kin-openapi is third-party code fed untrusted text: a panic there
		// must become an input error, not a crash.
		if r := recover(); r != nil {
			doc, err = nil, source.Errorf(display(name), 0, 0, "cannot read this contract (the OpenAPI parser failed: %v)", r)
		}
	}()
	t, l, err := d.load(src)
	if err != nil {
		return nil, d.loadError(err)
	}
	if t.OpenAPI == "" {
		if swaggerRE.Match(d.raw) {
			return nil, source.Errorf(display(name), 1, 1, "Swagger 2.0 is not supported: convert the document to OpenAPI 3 first (for example with kin-openapi's openapi2conv) and compare the converted versions")
		}
		return nil, source.Errorf(display(name), 1, 1, "not an OpenAPI 3 document: no top-level `openapi` field")
	}
	if !strings.HasPrefix(t.OpenAPI, "3.") {
		return nil, source.Errorf(display(name), 1, 1, "unsupported OpenAPI version %q (want 3.0 or 3.1)", t.OpenAPI)
	}
	d.T = t
	d.Problems = append(d.validate(l.Context), d.bundled...)
	return d, nil
}

// load reads the document with every file it $refs, operations written as
// $refs included; again while the parser refuses a $ref where text was
// expected (each time in one more file).
func (d *Doc) load(src source.Source) (*openapi3.T, *openapi3.Loader, error) {
	for {
		l := openapi3.NewLoader()
		l.IncludeOrigin = true
		l.IsExternalRefsAllowed = true
		l.Context = context.Background()
		l.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) { return d.read(src, u) }
		l.JoinFunc = joinRef
		t, err := l.LoadFromURI(&url.URL{Path: d.name})
		var note *rules.Invalid
		if err == nil && strings.HasPrefix(t.OpenAPI, "3.") {
			d.T = t
			note, err = d.resolveOperations(l)
		}
		if err == nil {
			if note != nil {
				d.bundled = append(d.bundled, *note)
			}
			return t, l, nil
		}
		if !d.textRefs(err) && !d.wrongKinds(err) {
			return t, l, err
		}
	}
}

// asGiven is display, or the name as it is when display is nil.
func asGiven(display func(string) string) func(string) string {
	if display == nil {
		return func(s string) string { return s }
	}
	return display
}

// jsonSchemaOnly are the JSON Schema keywords an OpenAPI 3.1 schema may
// carry that kin-openapi has no field for: 2020-12's $vocabulary, and
// 2019-09's $recursiveRef and $recursiveAnchor, which published 3.1
// documents still use. None constrains what contractlint compares.
var jsonSchemaOnly = []string{"$vocabulary", "$recursiveRef", "$recursiveAnchor"}

// validate collects every validation problem, each placed at the element
// kin-openapi names.
func (d *Doc) validate(ctx context.Context) []rules.Invalid {
	allowed := []string{"description", "summary"}
	if d.T.IsOpenAPI31OrLater() {
		allowed = append(allowed, jsonSchemaOnly...)
	}
	err := validateOnce(ctx, d.T, openapi3.EnableMultiError(), openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(), openapi3.DisableSchemaPatternValidation(),
		openapi3.AllowExtraSiblingFields(allowed...))
	var out []rules.Invalid
	for _, e := range leaves(err) {
		loc := d.Loc(nil)
		if o := errOrigin(e); o != nil {
			loc = d.KeyLoc(o)
		}
		msg := oneLine(strings.ReplaceAll(e.Error(), "invalid allOf element: ", ""))
		// One finding per place: problems kin-openapi reports at the same
		// element are joined. Problems without a place (an empty `{}` in a
		// file of its own has none) are each their own, as they are once
		// bundled.
		switch i := slices.IndexFunc(out, func(p rules.Invalid) bool { return loc.Line > 0 && p.Loc == loc }); {
		case i < 0:
			out = append(out, rules.Invalid{Loc: loc, Msg: msg})
		case !strings.Contains(out[i].Msg, msg):
			out[i].Msg += "; " + msg
		}
	}
	return append(out, d.scopeProblems()...)
}

// leaves flattens kin-openapi's multi-error into its independent problems,
// keeping each one's wrapping (which names the element) on the way down.
func leaves(err error) []error {
	if err == nil {
		return nil
	}
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		if u, ok := err.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
			// A wrapper around a multi-error: its context would be lost.
			var out []error
			for _, e := range leaves(u.Unwrap()) {
				out = append(out, fmt.Errorf("%s%w", prefixOf(err, u.Unwrap()), e))
			}
			return out
		}
		var out []error
		for _, e := range me {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

// prefixOf is the text a wrapper adds in front of its cause's message.
func prefixOf(wrapper, cause error) string {
	w, c := wrapper.Error(), cause.Error()
	if strings.HasSuffix(w, c) {
		return w[:len(w)-len(c)]
	}
	return ""
}

// StrictError is the document's validation problems as one input error,
// for --strict runs that refuse a document kin-openapi calls invalid.
func (d *Doc) StrictError() error {
	if len(d.Problems) == 0 {
		return nil
	}
	ps := make(source.Problems, len(d.Problems))
	for i, p := range d.Problems {
		ps[i] = source.Problem{File: p.Loc.File, Line: p.Loc.Line, Column: p.Loc.Column,
			Msg: "invalid OpenAPI document (strict mode): " + p.Msg}
	}
	return ps
}

// read is the only way the loader reaches bytes: the document itself, then
// each file it $refs. A reference that would leave the repository is refused
// before anything is read; bytes that are not text are refused with the
// place of the first bad byte.
func (d *Doc) read(src source.Source, u *url.URL) ([]byte, error) {
	ref := u.Path != d.name
	if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return nil, fmt.Errorf("$ref to %q refused: contractlint never fetches remote or file: URLs", u.Redacted())
	}
	name, err := source.Clean(u.Path)
	if err == nil {
		key := name
		if u.RawQuery == opQuery {
			key = name + "?" + opQuery
		}
		if f, ok := d.served[key]; ok {
			return d.serve(key, f), nil
		}
		var b []byte
		if b, err = src.ReadFile(name); err == nil {
			if !ref {
				d.raw = b
			}
			d.read1(name, b)
			if err := d.text(name, b); err != nil {
				d.last, d.lastRaw = name, b
				return b, err
			}
			out := d.inlineContentRefs(src, name, d.readable(name, b))
			if u.RawQuery == opQuery {
				out = asPathItem(out)
			} else {
				out = d.startDocument(name, out)
			}
			f := servedFile{name: name, raw: b, text: out}
			if d.served == nil {
				d.served = map[string]servedFile{}
			}
			d.served[key] = f
			return d.serve(key, f), nil
		}
	}
	if ref && errors.Is(err, source.ErrOutside) {
		return nil, fmt.Errorf("$ref to %q refused, not read: it leads outside the repository (outside a git work tree: the contract's own folder; --root DIR widens it)", u.Path)
	}
	if ref {
		return nil, fmt.Errorf("$ref to %q: %w", u.Path, err)
	}
	return nil, err
}

// servedFile is a file as it was served to kin-openapi, before blanks.
type servedFile struct {
	name      string
	raw, text []byte
}

// serve hands f to kin-openapi under key, with the blanks key has now (they
// grow as decode errors are read as bundlers read them, see textref.go), and
// records it as the file read last.
func (d *Doc) serve(key string, f servedFile) []byte {
	out := f.text
	if sp := d.blanks[key]; sp != nil {
		out = blank(out, sp)
	}
	d.last, d.lastRaw = f.name, f.raw
	d.lastKey, d.lastServed = key, out
	return out
}

// text refuses bytes no YAML or JSON parser should see: a NUL byte (a binary
// file) or invalid UTF-8, at the line and column of the first bad byte.
func (d *Doc) text(name string, b []byte) error {
	bad, why := -1, ""
	if i := bytes.IndexByte(b, 0); i >= 0 {
		bad, why = i, "a NUL byte: not a text file"
	}
	if !utf8.Valid(b) {
		for i := 0; i < len(b) && (bad < 0 || i < bad); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				bad, why = i, "not valid UTF-8 text"
				break
			}
			i += n
		}
	}
	if bad < 0 {
		return nil
	}
	line, col := position(b, bad)
	return source.Errorf(d.display(name), line, col, "%s (byte 0x%02x)", why, b[bad])
}

// position is the 1-based line and column (in characters) of byte offset i.
func position(b []byte, i int) (int, int) {
	i = max(0, min(i, len(b)))
	line := 1 + bytes.Count(b[:i], []byte("\n"))
	return line, 1 + utf8.RuneCount(b[bytes.LastIndexByte(b[:i], '\n')+1:i])
}

var (
	swaggerRE = regexp.MustCompile(`(?m)^\s*\{?\s*["']?swagger["']?\s*:`)
	lineRE    = regexp.MustCompile(`(?:yaml: )?line (\d+)(?::(\d+))?: `)
	aliasRE   = regexp.MustCompile(`L(\d+)\.C(\d+): document contains excessive aliasing`)
	// noise is kin-openapi's and the parsers' wrapping around the message:
	// only where a wrapping starts (the message's start, or after ": "), so
	// a file name such as api.yaml is left whole.
	noise = noiseStripper{regexp.MustCompile(`(^|: )(?:failed to unmarshal data: |yaml error: |yaml: )+`)}
)

type noiseStripper struct{ re *regexp.Regexp }

func (n noiseStripper) Replace(s string) string { return n.re.ReplaceAllString(s, "$1") }

// loadError turns a loader error into one problem at file:line:col when the
// parser says where, with the parser's own wrapping taken off.
func (d *Doc) loadError(err error) error {
	var ps source.Problems
	if errors.As(err, &ps) {
		return ps
	}
	msg := oneLine(err.Error())
	file := d.display(d.name)
	if i := strings.Index(msg, "$ref to "); i >= 0 {
		return d.refAt(msg[i:])
	}
	if errors.Is(err, source.ErrOutside) {
		return source.Errorf(file, 0, 0, "refused, not read: it leads outside the repository (through a symbolic link or ..)")
	}
	if errors.Is(err, fs.ErrNotExist) {
		return source.Errorf(file, 0, 0, "%s", msg)
	}
	if errors.Is(err, source.ErrNotRegular) {
		return source.Errorf(file, 0, 0, "%v: contracts are read from regular files", source.ErrNotRegular)
	}
	// From here on the error is the parser's, about the file it last read.
	if d.last != "" {
		file = d.display(d.last)
	}
	if strings.Contains(msg, "excessive aliasing") {
		// The YAML parser's fixed bound on alias expansion ("billion laughs").
		line, col := 0, 0
		if m := aliasRE.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			col, _ = strconv.Atoi(m[2])
		}
		return source.Errorf(file, line, col, "YAML aliases expand too far: refused, as a \"billion laughs\" document would exhaust memory")
	}
	if ps := d.refError(msg); ps != nil {
		return ps
	}
	if ps := d.wrongKindRef(msg); ps != nil {
		return ps
	}
	if strings.Contains(msg, "failed to resolve") {
		return source.Errorf(file, 0, 0, "unresolved $ref: %s", msg)
	}
	msg = d.parserMessage(msg)
	if d.isJSON() {
		// kin-openapi drops encoding/json's offset; parse again to place it.
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(d.parsed(), new(any)), &se) {
			line, col := position(d.parsed(), int(se.Offset)-1)
			return source.Errorf(file, line, col, "not valid JSON: %s", se.Error())
		}
	}
	line, col := 0, 0
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		col, _ = strconv.Atoi(m[2])
		msg = strings.Replace(msg, m[0], "", 1)
		if _, wrapped := servedName(d.lastKey); wrapped && line > 1 {
			line, col = line-1, max(0, col-1)
		}
	}
	if strings.Contains(msg, "cannot construct") || strings.Contains(msg, "cannot unmarshal") {
		if ps := diagnose(file, d.raw); ps != nil {
			return ps
		}
		msg = "the top level is not a map of OpenAPI fields"
	}
	return source.Errorf(file, line, col, "not valid YAML or JSON: %s", noise.Replace(msg))
}

// parserMessage keeps the one parser error that fits the file: kin-openapi
// tries JSON then YAML and reports both.
func (d *Doc) parserMessage(msg string) string {
	msg = noise.Replace(msg)
	jsonErr, yamlErr, both := strings.Cut(strings.TrimPrefix(msg, "json error: "), ", ")
	if !both || !strings.HasPrefix(msg, "json error: ") {
		return msg
	}
	if d.isJSON() {
		return jsonErr
	}
	return yamlErr
}

func (d *Doc) isJSON() bool {
	name := cmp.Or(d.last, d.name)
	return strings.HasSuffix(strings.ToLower(name), ".json")
}

// parsed is the text of the file the parser read last.
func (d *Doc) parsed() []byte {
	if d.last != "" {
		return d.lastRaw
	}
	return d.raw
}

// errOrigin finds where kin-openapi places a validation error: the innermost
// error of the chain that carries an Origin (its typed errors do, under
// that field name, without a shared interface).
func errOrigin(err error) *openapi3.Origin {
	var found *openapi3.Origin
	for err != nil {
		if v := reflect.Indirect(reflect.ValueOf(err)); v.Kind() == reflect.Struct {
			if f := v.FieldByName("Origin"); f.IsValid() {
				if o, ok := f.Interface().(*openapi3.Origin); ok && o != nil {
					found = o
				}
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				err = es[0]
				continue
			}
			err = nil
		default:
			err = nil
		}
	}
	return found
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
	file, wrapped := servedName(l.File)
	line, col := l.Line, l.Column
	if m := d.lines[l.File]; m != nil {
		line = m.line(line)
	}
	if d.reused != nil && !strings.HasSuffix(l.File, "?"+fragQuery) {
		// A place in a chunk the held load gave: in the old text, under
		// the old side's name.
		file, line = d.name, d.reused.line(line)
	}
	if u, err := url.PathUnescape(file); err == nil {
		file = u
	}
	if wrapped {
		// An operation file served as a path item: one line down, one right.
		line, col = max(1, line-1), max(1, col-1)
	}
	return d.place(file, line, col)
}

// place is the reported location of a line and column of the text the
// loader read as file (the root when "").
func (d *Doc) place(file string, line, col int) rules.Location {
	if file == "" {
		file = d.name
	}
	return rules.Location{File: d.display(file), Line: line, Column: d.column(file, line, col)}
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

// refPath names a $ref'd schema the same way however it is reached: by the
// file that holds it, relative to the root document's directory, then "#"
// and the ref's fragment ("" for a whole-file schema). `schemas/order.yaml`
// from the root and `../schemas/order.yaml` from a path file are then one
// schema, and its changes are listed and reported once.
func (d *Doc) refPath(sr *openapi3.SchemaRef) string {
	file, frag, _ := strings.Cut(sr.Ref, "#")
	if file == "" || strings.Contains(file, ":") || sr.Value == nil || sr.Value.Origin == nil ||
		sr.Value.Origin.Key == nil || sr.Value.Origin.Key.File == "" {
		return sr.Ref
	}
	at, _ := servedName(sr.Value.Origin.Key.File)
	if u, err := url.PathUnescape(at); err == nil {
		at = u
	}
	rel, err := filepath.Rel(filepath.Dir(filepath.FromSlash(d.name)), filepath.FromSlash(at))
	if err != nil {
		return sr.Ref
	}
	if filepath.Clean(filepath.FromSlash(at)) == filepath.Clean(filepath.FromSlash(d.name)) {
		// Back into the root from a file of its own (an operation's
		// `../openapi.yaml#/components/schemas/Item`): the same schema
		// as the root's `#/components/schemas/Item`.
		return "#" + frag
	}
	return filepath.ToSlash(rel) + "#" + frag
}
