package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf16"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// FuzzReviewMatchesDiff is the differential property behind review's "no
// silent pass": from a testdata pair, build a base and a head repository
// through random transformations (schemas split into $ref'd files, YAML or
// JSON written with \/ and surrogate-pair escapes, $refs percent-encoded or
// given a query, the tree moved, the root touched, an unrelated file added)
// and check that review reports every error finding diff reports on the
// same two roots (same rule, same message), and that `review PATH` for the
// directory of the split schemas reports what review of everything does.
// .ci/run runs it for a fixed count; a divergence is kept in testdata/fuzz.
func FuzzReviewMatchesDiff(f *testing.F) {
	cases := openAPIPairs(f)
	// The seeds run as a test in every `go test`: one pair of each rule
	// about properties, and a sample of the rest, each in one of the two
	// layouts in turn (a seed builds a git repository and reviews it, so
	// seeding every such pair in both made this the suite's heaviest
	// test); the fuzz budget in .ci/run explores from them. Outside the
	// full run (corpus.Full) two of those rules stand for the rest, one in
	// each layout: with the fixed seeds below and testdata/fuzz, every
	// transformation is still seeded.
	sampled := func(rule string) bool {
		return corpus.Full() || rule == "request-property-added-required" || rule == "response-property-removed"
	}
	seeded := map[string]bool{}
	for i, c := range cases {
		rule := filepath.Base(filepath.Dir(c))
		if (strings.Contains(rule, "response-property-removed") || strings.Contains(rule, "request-property")) && !seeded[rule] || i%97 == 0 {
			if !sampled(rule) {
				seeded[rule] = true
				continue
			}
			seeded[rule] = true
			ops := uint16(0x7f)
			if len(seeded)%2 == 0 {
				// The pair in a bundler's layout: operations, their
				// parameters and responses in files of their own.
				ops = opOps | opParts | opSplit | opTouch | opPercent
			}
			f.Add(uint16(i), ops)
		}
	}
	f.Add(uint16(0), uint16(0))
	f.Add(uint16(1), uint16(opVendored|opSplit))
	f.Add(uint16(2), uint16(opOps|opParts|opSplit|opJSON))
	f.Fuzz(func(t *testing.T, which, ops uint16) {
		dir := cases[int(which)%len(cases)]
		tr := transform{ops: ops}
		oldTree, ok1 := tr.tree(t, dir, "old", false)
		newTree, ok2 := tr.tree(t, dir, "new", tr.has(opTouch))
		if !ok1 || !ok2 {
			t.Skip("the pair does not re-encode (a document the transformations do not cover)")
		}
		if tr.has(opOps) {
			bundledDiffers(t, dir, tr)
		}
		// A pair identical on both sides (a self-diff case) changes no
		// vendored file either: there is nothing to name. Decided before
		// the unrelated file is added, which is no contract.
		changed := !maps.EqualFunc(oldTree, newTree, bytes.Equal)
		if tr.has(opUnrelated) {
			newTree[tr.at("NOTES.md")] = []byte("an unrelated file\n")
		}
		root := tr.at("api." + tr.ext())
		po := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
		side := func(tree map[string][]byte) pipeline.Side {
			return pipeline.Side{Src: mapSource(t, tree), Files: []string{root}, Display: func(s string) string { return s }}
		}
		want, err := pipeline.Diff(side(oldTree), side(newTree), po)
		if err != nil {
			t.Skipf("diff refuses the pair: %v", err)
		}
		r := newRepo(t, "main")
		if tr.has(opVendored) {
			// A third party's copy of the pair, changed the other way: never
			// compared as ours, always named as not reviewed.
			for name, b := range newTree {
				r.write("vendor/acme/"+name, string(b))
			}
		}
		for name, b := range oldTree {
			r.write(name, string(b))
		}
		r.commit("base")
		if tr.has(opVendored) {
			for name, b := range oldTree {
				r.write("vendor/acme/"+name, string(b))
			}
		}
		for name := range oldTree {
			if _, ok := newTree[name]; !ok {
				r.remove(name)
			}
		}
		for name, b := range newTree {
			r.write(name, string(b))
		}
		// The base is the commit above, named as HEAD: opening the
		// repository read it, so naming it costs no git start of its own.
		o := options(r.top)
		o.Base = "HEAD"
		got, err := Run(o)
		if err != nil {
			t.Fatalf("review fails where diff does not: %v", err)
		}
		have := errorsOf(got.Findings)
		for _, f := range got.Findings {
			if strings.HasPrefix(f.Where.File, "vendor/") {
				t.Errorf("a vendored copy is reviewed: %s: %s", f.Where, f.Message)
			}
		}
		if tr.has(opVendored) && changed && !slices.ContainsFunc(got.NotReviewed, func(n string) bool { return strings.HasPrefix(n, "vendor/acme/") }) {
			t.Errorf("the vendored copy is not named as not reviewed: %q", got.NotReviewed)
		}
		for _, w := range errorsOf(want) {
			if !slices.Contains(have, w) {
				t.Errorf("diff reports %s; review does not (review: %q)", w, have)
			}
		}
		// review PATH, for the directory of the split schemas, when a
		// change is under it: the same root, compared whole.
		if sub := path.Dir(tr.at("schemas/x")); tr.has(opSplit) && changedUnder(oldTree, newTree, sub) {
			o.Paths = []string{filepath.FromSlash(sub)}
			part, err := Run(o)
			if err != nil {
				t.Fatalf("review %s: %v", sub, err)
			}
			if p := errorsOf(part.Findings); !slices.Equal(p, have) {
				t.Errorf("review %s reports %q; review of everything %q", sub, p, have)
			}
		}
	})
}

// openAPIPairs are the testdata rule cases that are one OpenAPI document
// on each side and nothing else.
func openAPIPairs(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "rules", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		es, err := os.ReadDir(d)
		if err != nil || len(es) != 2 {
			continue
		}
		var names []string
		for _, e := range es {
			names = append(names, strings.TrimSuffix(e.Name(), path.Ext(e.Name())))
		}
		if b, err := os.ReadFile(filepath.Join(d, es[0].Name())); err == nil && slices.Equal(names, []string{"new", "old"}) &&
			!strings.HasSuffix(es[0].Name(), ".proto") && bytes.Contains(b, []byte("openapi")) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatal("no OpenAPI pairs in testdata/rules")
	}
	return out
}

const (
	opSplit = 1 << iota
	opJSON
	opPercent
	opQuery
	opMove
	opTouch
	opUnrelated
	opEmoji
	opVendored
	opOps   // each operation in ops/NAME.EXT, written `get: {$ref: …}`
	opParts // with opOps: its parameters and responses in files of their own
)

type transform struct{ ops uint16 }

func (tr transform) has(op uint16) bool { return tr.ops&op != 0 }

func (tr transform) ext() string {
	if tr.has(opJSON) {
		return "json"
	}
	return "yaml"
}

// at places a name in the tree: under api/ when the tree is moved.
func (tr transform) at(name string) string {
	if tr.has(opMove) {
		return "svc/v1/" + name
	}
	return name
}

// tree builds one side: the document (old or new) of dir, transformed.
func (tr transform) tree(t *testing.T, dir, side string, touch bool) (map[string][]byte, bool) {
	matches, _ := filepath.Glob(filepath.Join(dir, side+".*"))
	if len(matches) != 1 {
		return nil, false
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode || hasAlias(&doc) {
		return nil, false
	}
	top := doc.Content[0]
	if touch {
		if info := lookup(top, "info"); info != nil {
			if v := lookup(info, "version"); v != nil && v.Kind == yaml.ScalarNode {
				v.Value += ".1"
				v.Style = yaml.DoubleQuotedStyle
			}
		}
	}
	if tr.has(opEmoji) {
		if info := lookup(top, "info"); info != nil && info.Kind == yaml.MappingNode && lookup(info, "x-note") == nil {
			info.Content = append(info.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "x-note"},
				&yaml.Node{Kind: yaml.ScalarNode, Value: "thumbs \U0001F44D up", Style: yaml.DoubleQuotedStyle})
		}
	}
	out := map[string][]byte{}
	files := map[string]*yaml.Node{"api": top}
	placed := map[*yaml.Node]bool{} // the $refs a move wrote, already right
	if tr.has(opOps) && !tr.splitOps(top, files, placed) {
		return nil, false
	}
	if tr.has(opSplit) && !tr.split(top, files) {
		return nil, false
	}
	if (tr.has(opSplit) || tr.has(opOps)) && !tr.rewrite(files, placed) {
		return nil, false
	}
	for name, n := range files {
		text, ok := tr.encode(n)
		if !ok {
			return nil, false
		}
		file := name + "." + tr.ext()
		out[tr.at(file)] = text
	}
	return out, true
}

var schemaRefRE = regexp.MustCompile(`^#/components/schemas/([A-Za-z][A-Za-z0-9_]*)(/.*)?$`)

// split moves each component schema into schemas/NAME.EXT; rewrite then
// points the $refs that name one at its file. False when a name is not one
// a file name can spell.
func (tr transform) split(top *yaml.Node, files map[string]*yaml.Node) bool {
	comps := lookup(top, "components")
	schemas := lookup(comps, "schemas")
	if schemas == nil || schemas.Kind != yaml.MappingNode {
		return true
	}
	for i := 0; i+1 < len(schemas.Content); i += 2 {
		name := schemas.Content[i].Value
		if !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`).MatchString(name) {
			return false
		}
		files["schemas/"+name] = schemas.Content[i+1]
	}
	// Schemas leave components first: they live in their files now, and
	// each $ref is rewritten once.
	for i := 0; i+1 < len(comps.Content); i += 2 {
		if comps.Content[i].Value == "schemas" {
			comps.Content = slices.Delete(comps.Content, i, i+2)
			break
		}
	}
	return true
}

// rewrite points each document-internal $ref of a moved piece where the
// piece now stands: a split schema at its file, anything else in components
// back at the root, each spelled relative to the file that holds it. False
// when a $ref points anywhere else (into paths, or out of a moved piece's
// directory), which a split would have to rewrite further.
func (tr transform) rewrite(files map[string]*yaml.Node, placed map[*yaml.Node]bool) bool {
	for name, n := range files {
		ok := true
		up := "" // from the file's directory back to the root's
		if strings.Contains(name, "/") {
			up = "../"
		}
		if (name != "api" || tr.has(opSplit)) && localMapping(n) {
			return false // a discriminator's mapping names schemas as $refs do
		}
		walkRefs(n, func(v *yaml.Node) {
			if placed[v] {
				return
			}
			if m := schemaRefRE.FindStringSubmatch(v.Value); m != nil && tr.has(opSplit) {
				target := tr.ref(m[1] + "." + tr.ext())
				if !strings.HasPrefix(name, "schemas/") {
					target = up + "schemas/" + target
				}
				if m[2] != "" {
					target += "#" + m[2]
				}
				v.Value = target
				return
			}
			switch {
			case name == "api":
				ok = ok && (!tr.has(opOps) || !strings.HasPrefix(v.Value, "#/paths"))
			case strings.HasPrefix(name, "schemas/"):
				ok = ok && !strings.HasPrefix(v.Value, "#")
			case strings.HasPrefix(v.Value, "#/components/"):
				v.Value = up + tr.ref("api."+tr.ext()) + v.Value
			default:
				ok = false
			}
		})
		if !ok {
			return false
		}
	}
	return true
}

// ref spells a file name the way the transformation asks: its first
// letter percent-encoded, a query after it.
func (tr transform) ref(file string) string {
	if tr.has(opPercent) {
		file = fmt.Sprintf("%%%02X", file[0]) + file[1:]
	}
	if tr.has(opQuery) {
		file += "?v=2"
	}
	return file
}

func walkRefs(n *yaml.Node, f func(*yaml.Node)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "$ref" && n.Content[i+1].Kind == yaml.ScalarNode {
				f(n.Content[i+1])
			}
		}
	}
	for _, c := range n.Content {
		walkRefs(c, f)
	}
}

// localMapping reports whether a discriminator under n maps a value to a
// place in the document.
func localMapping(n *yaml.Node) bool {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if m := n.Content[i+1]; n.Content[i].Value == "mapping" && m.Kind == yaml.MappingNode &&
				slices.ContainsFunc(m.Content, func(v *yaml.Node) bool { return strings.HasPrefix(v.Value, "#") }) {
				return true
			}
		}
	}
	return slices.ContainsFunc(n.Content, localMapping)
}

func hasAlias(n *yaml.Node) bool {
	return n.Kind == yaml.AliasNode || n.Anchor != "" || slices.ContainsFunc(n.Content, hasAlias)
}

// encode writes a node as YAML, or as JSON the way PHP's json_encode and
// Python's json.dumps write it: every / as \/, every character outside the
// Basic Multilingual Plane as a surrogate pair.
func (tr transform) encode(n *yaml.Node) ([]byte, bool) {
	if !tr.has(opJSON) {
		b, err := yaml.Marshal(n)
		return b, err == nil
	}
	var buf bytes.Buffer
	if !writeJSON(&buf, n, 0) {
		return nil, false
	}
	return buf.Bytes(), true
}

func writeJSON(buf *bytes.Buffer, n *yaml.Node, depth int) bool {
	indent := "\n" + strings.Repeat("  ", depth+1)
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteString("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteString(",")
			}
			buf.WriteString(indent)
			writeString(buf, n.Content[i].Value)
			buf.WriteString(": ")
			if !writeJSON(buf, n.Content[i+1], depth+1) {
				return false
			}
		}
		buf.WriteString("\n" + strings.Repeat("  ", depth) + "}")
	case yaml.SequenceNode:
		buf.WriteString("[")
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteString(", ")
			}
			if !writeJSON(buf, c, depth+1) {
				return false
			}
		}
		buf.WriteString("]")
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			buf.WriteString("null")
		case "!!bool":
			buf.WriteString(strconv.FormatBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE"))
		case "!!int", "!!float":
			if !json.Valid([]byte(n.Value)) {
				return false // 0x1F, .inf: YAML numbers JSON has no spelling for
			}
			buf.WriteString(n.Value)
		default:
			writeString(buf, n.Value)
		}
	default:
		return false
	}
	return true
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	for _, r := range strings.ReplaceAll(string(b), "/", `\/`) {
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(buf, `\u%04x\u%04x`, hi, lo)
			continue
		}
		buf.WriteRune(r)
	}
}

// changedUnder reports whether a file under dir differs between the trees.
func changedUnder(old, new map[string][]byte, dir string) bool {
	for name, b := range new {
		if strings.HasPrefix(name, dir+"/") && !bytes.Equal(old[name], b) {
			return true
		}
	}
	for name := range old {
		if _, ok := new[name]; !ok && strings.HasPrefix(name, dir+"/") {
			return true
		}
	}
	return false
}

// errorsOf lists a run's error findings by rule and message, sorted and
// each once: what the two runs must agree on.
func errorsOf(fs []rules.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == rules.Error {
			out = append(out, f.Rule+": "+f.Message)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mapSource is a tree held in memory, read as diff reads a directory:
// names checked as every source checks them, the bytes as written (a
// directory on disk for each side of each pair cost more than its diff).
func mapSource(t *testing.T, tree map[string][]byte) source.Source {
	m := fstest.MapFS{}
	for name, b := range tree {
		m[name] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return source.FS{FS: m, Name: t.Name()}
}
