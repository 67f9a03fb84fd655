package openapi

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"
)

// A subset load makes the work of a diff grow with the change, not with the
// document: most of a pull request's 4 MB contract is byte-identical on both
// sides, and kin-openapi's parse of it is nearly all of a run. Before the
// parser sees the two documents, each is cut by indentation into chunks (one
// per paths entry and per component), and the chunks that cannot take part
// in a change are blanked on both sides. A blanked chunk's lines stay, empty,
// so every later line and column, and so every location, is where it was.
//
// A chunk is kept when its bytes differ or it is on one side only; when it
// reaches (through $refs, transitively) a chunk kept for that reason, so every
// operation a change reaches is there to be named; when it holds an inline
// ignore, which a run reports when it matches nothing; and when a kept chunk
// $refs it, so that everything kept resolves. The text outside the chunks
// (openapi, info, servers, security, tags, webhooks, security schemes...) is
// always kept and must say the same on both sides, but for info, which
// nothing else reads (a release bumps info.version).
//
// Anything the cutter is not sure of makes it give up (NoPlan says why and
// where), and the caller loads the whole documents: tags, an anchor on a
// key, in a flow collection or defined twice, tabs, CR line ends, a $ref in
// a flow collection over several lines, a 3.1 identity keyword ($id), a
// second document or a directive, keep
// chomping (|+), a $ref to another file, duplicate keys. What kin-openapi
// checks across the whole document (operationIds used twice, paths that
// clash once their parameters are erased, a $ref to a component there is
// not) keeps the chunks involved, so the plan's load finds it too.

// Subset is the plan of a subset load: the two texts to load (OldText,
// NewText), and what was left out.
type Subset struct {
	// Chunks counts the chunks of both documents (the union of their
	// names); Skipped those blanked.
	Chunks, Skipped int
	// Lines counts the lines blanked on the new side.
	Lines int
	// whole holds the pointers of the chunks whose context is complete:
	// changed, or reaching a change, so every operation that reaches them
	// is loaded too.
	whole map[string]bool
	// keep holds the pointers of the chunks loaded, and changed those
	// whose bytes differ or that are on one side only.
	keep, changed map[string]bool
	// o and n are the two documents' cuts, for Patch; files: the plan
	// is a multi-file tree's (PlanFiles), whose root alone is cut.
	o, n  *pieces
	files bool
	// noKeyInFiles: no file of a multi-file plan's new tree names a key.
	noKeyInFiles bool
	// ops indexes both documents' operations when first asked (see
	// Operations); nil when the planner cannot.
	ops func() opIndex
	// unplaced counts the chunks LoadOld parsed without places.
	unplaced int
	// oldText and newText blank the two documents when first asked: a
	// plan that LoadOld and Patch stand in for never needs them, and each
	// is a copy of a document.
	oldText, newText func() []byte
}

// OldText is the old document with what the plan leaves out blanked.
func (s *Subset) OldText() []byte { return s.oldText() }

// NewText is the new document with what the plan leaves out blanked.
func (s *Subset) NewText() []byte { return s.newText() }

// MayDeclareKey reports whether what the plan leaves out of the new document
// could declare an idempotency key (an Idempotency-Key header parameter, a
// root x-idempotency), so that a verdict on the API's key convention needs
// the whole document. A document can declare one only where its text names
// it; a multi-file plan's other files are read by its planner, which says
// (NoKeyInFiles) when none of them names one.
func (s *Subset) MayDeclareKey() bool {
	if s.files {
		return !s.noKeyInFiles
	}
	return s.n == nil || NamesKey(s.n.src)
}

// NoKeyInFiles records that no file of a multi-file plan's new tree, its
// root included, names an idempotency key (DigitalOcean's 2,907 files name
// none, and a diff of them that adds a POST had to load them all).
func (s *Subset) NoKeyInFiles() { s.noKeyInFiles = true }

// IndexWith has the plan's Operations read by index (both sides' indexes,
// read once, when first asked).
func (s *Subset) IndexWith(index func() (old, new []IndexedOp, ok bool)) {
	s.ops = sync.OnceValue(func() opIndex {
		o, n, ok := index()
		return opIndex{o, n, ok}
	})
}

// opIndex is the two documents' operation indexes.
type opIndex struct {
	old, new []IndexedOp
	ok       bool
}

// Operations are the indexes of every operation of the two whole
// documents (IndexOperations); ok is false when the plan has none.
func (s *Subset) Operations() (old, new []IndexedOp, ok bool) {
	if s.ops == nil {
		return nil, nil, false
	}
	x := s.ops()
	return x.old, x.new, x.ok
}

// NamesKey reports whether src holds "idempotency-key" or "x-idempotency",
// in any ASCII case: the only spellings under which a document declares a
// key (the header's name matches case-insensitively).
func NamesKey(src []byte) bool {
	const word = "idempotency"
	for i := 0; i+len(word) <= len(src); i++ {
		if src[i]|0x20 != 'i' || !bytes.EqualFold(src[i:i+len(word)], []byte(word)) {
			continue
		}
		end := i + len(word)
		if end+4 <= len(src) && bytes.EqualFold(src[end:end+4], []byte("-key")) {
			return true
		}
		if i >= 2 && bytes.EqualFold(src[i-2:i], []byte("x-")) {
			return true
		}
	}
	return false
}

// Complete reports whether an element at the JSON pointer p sits in a chunk
// loaded with everything that reaches it. A lint finding elsewhere may
// depend on an operation left out (the directions a shared schema is read
// in, or the old version's finding on a shared component), so the caller
// loads the whole documents before reporting one.
func (s *Subset) Complete(p string) bool {
	if s == nil || s.Skipped == 0 {
		return true
	}
	for at := len(p); at > 0; at = strings.LastIndexByte(p[:at], '/') {
		if s.whole[p[:at]] {
			return true
		}
	}
	return false
}

// splitKinds are the component kinds cut into chunks. Security schemes stay
// in the kept header: operations name them without a $ref.
var splitKinds = map[string]bool{
	"schemas": true, "parameters": true, "responses": true, "requestBodies": true,
	"headers": true, "examples": true, "links": true, "callbacks": true, "pathItems": true,
}

// PlanSubset cuts old and new into chunks and blanks on both sides what no
// change can reach; ok is false when the documents are not of the plain
// block style it is sure of. A plan that leaves out nothing is returned
// too: its old side still loads on both cores, and its new side parses
// only the chunks that changed (LoadOld, Patch).
func PlanSubset(old, new []byte) (*Subset, bool) {
	s, why := Plan(old, new)
	return s, why == nil
}

// Plan is PlanSubset saying why there is no plan.
func Plan(old, new []byte) (*Subset, *NoPlan) {
	o, n, owhy, why := cutPair(old, new)
	if owhy != nil {
		return nil, owhy
	}
	if why != nil {
		return nil, why.onSide(true)
	}
	return planPair(o, n), nil // cutPair compared the headers
}

// planCut is Plan once both documents are cut (why: new's cut's).
func planCut(o, n *pieces, why *NoPlan) (*Subset, *NoPlan) {
	if why == nil {
		why = planable(o, n)
	}
	if why != nil {
		return nil, why
	}
	return planPair(o, n), nil
}

// planPair is the plan of two documents cut whose headers say the same.
func planPair(o, n *pieces) *Subset {
	keep, whole, changed := plan(o, n, nil, nil)
	s, _ := subset(o, n, keep, whole, changed, true)
	return s
}

// planable says why two documents cut are not planned: the text outside
// their chunks differs.
func planable(o, n *pieces) *NoPlan {
	if !sameHeaderText(o.header, n.header) {
		return headerDiffers()
	}
	return nil
}

func headerDiffers() *NoPlan {
	return &NoPlan{Reason: "the text outside the paths and components differs"}
}

// sameHeaderText reports whether the text outside the chunks says the same on
// both sides, where a chunk's meaning can depend on it. Byte-identical is
// the common case; a release that only re-quotes its strings or edits a
// comment (Stripe's 2023 specs) is the same values, and one that adds a tag
// for a new operation (Lob's) differs only where no chunk looks; both sides'
// headers are loaded anyway, so their diff still sees whatever differs. The
// values are decoded as kin-openapi's loader decodes them.
func sameHeaderText(o, n []byte) bool {
	if bytes.Equal(o, n) {
		return true
	}
	var ov, nv map[string]any
	if yaml.Unmarshal(o, &ov) != nil || yaml.Unmarshal(n, &nv) != nil {
		return false
	}
	return reflect.DeepEqual(bearing(ov), bearing(nv))
}

// bearing is a header without the keys no chunk's meaning depends on: the
// root's tags and external docs, which only describe, and its extensions
// but the key convention the model reads (see globalkey.go).
func bearing(h map[string]any) map[string]any {
	for k := range h {
		if k == "tags" || k == "externalDocs" || strings.HasPrefix(k, "x-") && k != globalKeyExt {
			delete(h, k)
		}
	}
	return h
}

// subset is the plan that keeps keep, or false when it leaves out nothing
// and always is false.
func subset(o, n *pieces, keep, whole, changed map[string]bool, always bool) (*Subset, bool) {
	s := &Subset{whole: whole, keep: keep, changed: changed, o: o, n: n}
	names := map[string]bool{}
	for _, d := range []*pieces{o, n} {
		for p := range d.chunks {
			names[p] = true
		}
	}
	s.Chunks = len(names)
	for p := range names {
		if !keep[p] {
			s.Skipped++
		}
	}
	if s.Skipped == 0 && !always {
		return nil, false
	}
	for p, c := range n.chunks {
		switch {
		case keep[p]:
		case n.bytewise:
			// Cut by bytes, a chunk's lines may be another's too.
			s.Lines += bytes.Count(n.src[c.from:c.past], []byte("\n"))
		default:
			s.Lines += c.end - c.first
		}
	}
	s.oldText = sync.OnceValue(func() []byte { return o.blank(keep) })
	s.newText = sync.OnceValue(func() []byte { return n.blank(keep) })
	return s, true
}

// plan picks the chunks to keep: changed ones and those reaching them (the
// complete ones), then whatever the kept ones $ref. more adds $refs a chunk
// makes through other files, and dirty marks a chunk changed in a file it
// reaches (a multi-file tree, see files.go).
func plan(o, n *pieces, more map[string][]string, dirty func(string) bool) (keep, whole, changedSet map[string]bool) {
	refs := map[string][]string{} // both sides' $refs, by chunk
	for p, rs := range more {
		refs[p] = append(refs[p], rs...)
	}
	var changed, seeds []string
	for _, d := range []*pieces{o, n} {
		for p, c := range d.chunks {
			refs[p] = append(refs[p], c.refs...)
			if c.ignore || d.dangles(c) {
				seeds = append(seeds, p)
			}
		}
	}
	for p := range refs {
		oc, nc := o.chunks[p], n.chunks[p]
		if oc == nil || nc == nil || !bytes.Equal(o.text(oc), n.text(nc)) || dirty != nil && dirty(p) {
			changed = append(changed, p)
		}
	}
	seeds = append(append(seeds, o.clashes()...), n.clashes()...)
	back := map[string][]string{}
	for p, rs := range refs {
		for _, r := range rs {
			back[r] = append(back[r], p)
		}
	}
	whole = reach(changed, back)
	seeds = append(seeds, o.headerRefs...)
	for p := range whole {
		seeds = append(seeds, p)
	}
	changedSet = make(map[string]bool, len(changed))
	for _, p := range changed {
		changedSet[p] = true
	}
	return reach(seeds, refs), whole, changedSet
}

// reach is every node reachable from seeds along edges, seeds included.
func reach(seeds []string, edges map[string][]string) map[string]bool {
	seen := map[string]bool{}
	stack := append([]string(nil), seeds...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		stack = append(stack, edges[p]...)
	}
	return seen
}

// pieces is one document cut into chunks.
type pieces struct {
	src    []byte
	lines  []span // each line without its '\n'
	chunks map[string]*chunk
	// header is the text outside every chunk and outside info;
	// headerRefs its $refs.
	header     []byte
	headerRefs []string
	// sections are the mapping keys whose entries are chunks (written
	// `key:` alone on their line), by that line, so one left empty can be
	// written `key: {}`.
	sections map[int][]string
	opIDs    []opID
	paths    []string
	// json: the document is JSON (cutJSON), whose stubs are written so;
	// bytewise: its chunks are cut by bytes (minified), not by lines.
	json, bytewise bool
	// asText: a $ref points into a component, not at it, a component is a
	// $ref itself (Asana's AttachmentBase names AttachmentCompact), or a
	// YAML anchor ties chunks together (see cutter.anchor).
	// The value behind such a $ref is not pointed anew when a model is
	// assembled from parts (see repointer), so the sides' texts are loaded
	// as they are.
	asText bool
}

type span struct{ start, end int }

// chunk is one paths entry or component: lines [first, end); cut by
// bytes, its entry is src[from:to], and src[from:past] with its comma.
type chunk struct {
	first, end     int
	from, to, past int
	refs           []string
	// ignore: the chunk holds an x-contractlint-ignore; alias: the chunk is
	// a $ref itself; bare: its first line is its key alone.
	ignore, alias, bare bool
}

func (d *pieces) text(c *chunk) []byte {
	if d.bytewise {
		return d.src[c.from:c.to]
	}
	return d.src[d.lines[c.first].start:d.lines[c.end-1].end]
}

// clashes are the chunks that break what kin-openapi checks across the
// whole document: the paths holding an operationId used twice, and paths
// alike once their parameters are erased (Xero's accounting spec has
// /Accounts/{AccountID}/Attachments/{FileName} and .../{AttachmentID}).
// They are always kept, so the plan's load finds the clash the whole
// document's does.
func (d *pieces) clashes() []string {
	byID := map[string][]*chunk{}
	for _, o := range d.opIDs {
		byID[o.id] = append(byID[o.id], o.in)
	}
	var dup []*chunk
	for _, cs := range byID {
		if len(cs) > 1 {
			dup = append(dup, cs...)
		}
	}
	var out []string
	for p, c := range d.chunks {
		if slices.Contains(dup, c) {
			out = append(out, p)
		}
	}
	byTmpl := map[string][]string{}
	for _, p := range d.paths {
		t := template(p) + "/"
		byTmpl[t] = append(byTmpl[t], p)
	}
	for _, ps := range byTmpl {
		for _, p := range ps {
			if len(ps) > 1 {
				out = append(out, "#/paths/"+escape(p))
			}
		}
	}
	return out
}

// opID is an operationId and the paths chunk it is in.
type opID struct {
	id string
	in *chunk
}

// dangles tells whether c $refs a chunk d does not have. Such a chunk is
// always kept: where the $ref is real, the plan's load fails as the whole
// document's does (and the whole documents are loaded to say so); where
// it is the text of an example (Okta's schemas quote one that names an
// example there is not), both load alike. The header is always kept.
func (d *pieces) dangles(c *chunk) bool {
	return slices.ContainsFunc(c.refs, func(r string) bool { return d.chunks[r] == nil })
}

// blank returns the text with the chunks not in keep emptied, keeping every
// line break, and the number of lines emptied. A section left with no entry
// is written `key: {}` (a mapping, as before).
func (d *pieces) blank(keep map[string]bool) []byte {
	if d.bytewise {
		out := bytes.Clone(d.src)
		for p, c := range d.chunks {
			if !keep[p] {
				copy(out[c.from:c.past], bytes.Repeat([]byte(" "), c.past-c.from))
			}
		}
		return out
	}
	text, _ := d.blankStub(keep, nil, false)
	return text
}

// blankStub is blank with the chunks in stub kept as their key alone,
// `Name: {}` on the chunk's first line: a name a kept chunk's $ref resolves
// to, whatever it holds (see Patch). A stub's chunk must be bare or one line.
// Compacted, the lines left out are removed, not left empty, and the map
// returned takes the text's lines back to d's (nil when not compacted).
func (d *pieces) blankStub(keep, stub map[string]bool, compact bool) ([]byte, *lineMap) {
	drop := make([]bool, len(d.lines))
	stubs := map[int]bool{}
	comma := map[int]bool{} // a JSON stub's chunk ends with a comma
	for p, c := range d.chunks {
		if keep[p] {
			continue
		}
		from := c.first
		if stub[p] && c.end-c.first > 1 {
			stubs[c.first], from = true, c.first+1
			last := d.lines[c.end-1]
			comma[c.first] = d.json && bytes.HasSuffix(bytes.TrimRight(d.src[last.start:last.end], " "), []byte(","))
		} else if stub[p] {
			continue // one line: kept as it is
		}
		for i := from; i < c.end; i++ {
			drop[i] = true
		}
	}
	empty := map[int]bool{}
	for line, entries := range d.sections {
		if !keepsAny(entries, keep) && !keepsAny(entries, stub) {
			empty[line] = true
		}
	}
	// Sized first: a fragment holding a tenth of a 4 MB document is one
	// allocation of its own size, not of the document's.
	size := len(d.lines)
	for i, l := range d.lines {
		switch {
		case drop[i]:
		case empty[i] || stubs[i]:
			size += l.end - l.start + len(" {}")
		default:
			size += l.end - l.start
		}
	}
	out := make([]byte, 0, size)
	var lines *lineMap
	if compact {
		lines = &lineMap{}
	}
	at := 1 // the text's line about to be written
	for i, l := range d.lines {
		if lines != nil {
			if drop[i] {
				continue
			}
			lines.add(at, i+1)
		}
		at++
		switch {
		case drop[i]:
		case stubs[i] && d.json:
			// `"Name": {` becomes `"Name": {}`, with the comma its
			// chunk's last line had.
			out = append(append(out, d.src[l.start:l.end]...), '}')
			if comma[i] {
				out = append(out, ',')
			}
		case empty[i] || stubs[i]:
			out = append(append(out, d.src[l.start:l.end]...), " {}"...)
		default:
			out = append(out, d.src[l.start:l.end]...)
		}
		if l.end < len(d.src) {
			out = append(out, '\n')
		}
	}
	return out, lines
}

func keepsAny(entries []string, keep map[string]bool) bool {
	for _, p := range entries {
		if keep[p] {
			return true
		}
	}
	return false
}
