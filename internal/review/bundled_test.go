package review

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/contractlint/contractlint/internal/corpus"
	"github.com/contractlint/contractlint/internal/pipeline"
	"github.com/contractlint/contractlint/rules"
)

// splitStyles are the layouts TestSplitDiffsLikeBundled writes every pair
// in: Redocly's (operations, parameters, responses and schemas each in a
// file of its own), in YAML and in JSON with escapes, and with the $refs
// percent-encoded and given a query.
var splitStyles = []uint16{
	opOps,
	opOps | opParts | opSplit,
	opOps | opParts | opSplit | opJSON,
	opOps | opParts | opPercent | opQuery | opMove,
	opOps | opSplit | opJSON | opPercent | opQuery,
}

// TestSplitDiffsLikeBundled: every OpenAPI testdata pair, written in a
// bundler's split layout, diffs like its bundled form — the same error and
// warning findings (rule, element, message), plus the one contract-invalid
// warning that says operations written as $refs were read as bundlers read
// them. Each pair is written in one of the layouts, in turn, so that every
// pair and every layout is compared (all pairs in all layouts cost five
// times the CPU, the suite's heaviest test on a busy laptop);
// FuzzReviewMatchesDiff crosses them, and .ci/run's fuzz budget runs it.
// Plain `go test` compares every third pair (each layout still in turn,
// three and five having no common factor); CI (.ci/run) every pair.
func TestSplitDiffsLikeBundled(t *testing.T) {
	cases := openAPIPairs(t)
	step := 3
	if corpus.Full() {
		step = 1
	}
	compared, tried := 0, 0
	for i := 0; i < len(cases); i += step {
		tried++
		if bundledDiffers(t, cases[i], transform{ops: splitStyles[i%len(splitStyles)]}) {
			compared++
		}
	}
	if compared < tried*4/5 {
		t.Errorf("only %d split trees were compared, from %d pairs: the transformation covers too few", compared, tried)
	}
}

// bundledDiffers compares diff of dir's pair written by tr with diff of the
// pair as it is (tr without the splits), and reports whether the pair could
// be compared at all. Both sides split, the bundler's note is on both and so
// not new: the findings are the same. Only the new side split (a pull
// request that splits the spec), they are the same plus that one note.
func bundledDiffers(t *testing.T, dir string, tr transform) bool {
	t.Helper()
	bundled := transform{ops: tr.ops &^ (opOps | opParts | opSplit | opPercent | opQuery | opMove)}
	run := func(oldTr, newTr transform) ([]rules.Finding, bool) {
		oldTree, ok1 := oldTr.tree(t, dir, "old", false)
		newTree, ok2 := newTr.tree(t, dir, "new", false)
		if !ok1 || !ok2 {
			return nil, false
		}
		po := pipeline.Options{Registry: rules.Default(), Settings: &rules.Settings{}}
		side := func(tree map[string][]byte, tr transform) pipeline.Side {
			return pipeline.Side{Src: mapSource(t, tree), Files: []string{tr.at("api." + tr.ext())}, Display: func(s string) string { return s }}
		}
		fs, err := pipeline.Diff(side(oldTree, oldTr), side(newTree, newTr), po)
		if err != nil {
			t.Errorf("%s, ops %#x: diff refuses the split pair: %v", dir, tr.ops, err)
			return nil, false
		}
		return fs, true
	}
	want, ok := run(bundled, bundled)
	if !ok {
		return false
	}
	got, ok := run(tr, tr)
	if !ok {
		return false
	}
	// A finding in a split schema's file names its element in that file
	// (schemas/Item.yaml#/properties/name), as review and ignores do; the
	// element is compared where the split keeps the document's pointers.
	elements := !tr.has(opSplit)
	w, g := judged(want, elements), judged(got, elements)
	if !slices.Equal(w, g) {
		t.Errorf("%s, ops %#x: the split pair diffs unlike its bundled form\n bundled: %q\n split:   %q", dir, tr.ops, w, g)
	}
	if !tr.has(opOps) || !movedOps(t, dir, "new") {
		return true
	}
	mixed, ok := run(bundled, tr)
	if !ok {
		return true
	}
	m := judged(mixed, elements)
	notes := slices.DeleteFunc(slices.Clone(m), func(s string) bool { return !bundlerNote(s) })
	m = slices.DeleteFunc(m, bundlerNote)
	if len(notes) != 1 || !slices.Equal(w, m) {
		t.Errorf("%s, ops %#x: split on the new side only, the pair diffs unlike its bundled form plus one note\n bundled: %q\n split:   %q", dir, tr.ops, w, judged(mixed, elements))
	}
	return true
}

// bundlerNote reports whether a judged finding is the one warning a newly
// split side adds.
func bundlerNote(s string) bool {
	return strings.HasPrefix(s, "warning contract-invalid ") && strings.Contains(s, " an operation is written as a $ref, ")
}

// judged lists a run's error and warning findings by severity, rule,
// element (when asked) and message, sorted and each once.
func judged(fs []rules.Finding, elements bool) []string {
	var out []string
	for _, f := range fs {
		where := f.Path
		if !elements {
			where = "-"
		}
		if f.Severity == rules.Error || f.Severity == rules.Warning {
			out = append(out, fmt.Sprintf("%s %s %s %s", f.Severity, f.Rule, where, f.Message))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// movedOps reports whether side of dir has an operation splitOps moves
// (and so a bundler's note to expect).
func movedOps(t *testing.T, dir, side string) bool {
	tree, ok := transform{ops: opOps}.tree(t, dir, side, false)
	return ok && slices.ContainsFunc(mapsKeys(tree), func(n string) bool { return strings.HasPrefix(n, "ops/") })
}

func mapsKeys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// splitOps moves each operation of paths into ops/NAME.EXT, leaving
// `METHOD: {$ref: ops/NAME.EXT}`; with opParts each of its parameters and
// responses, in turn, into params/ and responses/. The names come from the
// path and method, so the same operation has the same file on both sides.
// Refs it writes go in placed. False for a layout it does not cover.
func (tr transform) splitOps(top *yaml.Node, files map[string]*yaml.Node, placed map[*yaml.Node]bool) bool {
	paths := lookup(top, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return true
	}
	used := map[string]bool{}
	unique := func(dir, name string) string {
		name = strings.Trim(unsafeName.ReplaceAllString(name, "-"), "-")
		for i := 2; used[dir+name]; i++ {
			name = fmt.Sprintf("%s-%d", strings.TrimRight(name, "-0123456789"), i)
		}
		used[dir+name] = true
		return dir + name
	}
	move := func(n *yaml.Node, file, from string) {
		ref := &yaml.Node{Kind: yaml.ScalarNode, Value: from + path2ref(tr, file), Style: yaml.DoubleQuotedStyle}
		placed[ref] = true
		files[file] = &yaml.Node{Kind: n.Kind, Tag: n.Tag, Style: n.Style, Content: n.Content, Line: n.Line, Column: n.Column}
		n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", 0
		n.Content = []*yaml.Node{{Kind: yaml.ScalarNode, Value: "$ref"}, ref}
	}
	for i := 0; i+1 < len(paths.Content); i += 2 {
		p, item := paths.Content[i].Value, paths.Content[i+1]
		if item.Kind != yaml.MappingNode || lookup(item, "$ref") != nil {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			method, op := item.Content[j].Value, item.Content[j+1]
			if !httpMethod(method) || op.Kind != yaml.MappingNode || lookup(op, "$ref") != nil {
				continue
			}
			name := unique("ops/", method+" "+p)
			if tr.has(opParts) {
				tr.splitParts(op, name, unique, move)
			}
			move(op, name, "")
		}
	}
	return true
}

// splitParts moves an operation's parameters and responses (those not
// already $refs) into files of their own, $ref'd from the operation's file.
func (tr transform) splitParts(op *yaml.Node, opName string, unique func(dir, name string) string, move func(n *yaml.Node, file, from string)) {
	base := strings.TrimPrefix(opName, "ops/")
	if params := lookup(op, "parameters"); params != nil && params.Kind == yaml.SequenceNode {
		for _, prm := range params.Content {
			if prm.Kind == yaml.MappingNode && lookup(prm, "$ref") == nil {
				in, nm := lookup(prm, "in"), lookup(prm, "name")
				label := base
				if in != nil && nm != nil {
					label += " " + in.Value + " " + nm.Value
				}
				move(prm, unique("params/", label), "../")
			}
		}
	}
	if resps := lookup(op, "responses"); resps != nil && resps.Kind == yaml.MappingNode {
		for k := 0; k+1 < len(resps.Content); k += 2 {
			code, r := resps.Content[k].Value, resps.Content[k+1]
			if !strings.HasPrefix(code, "x-") && r.Kind == yaml.MappingNode && lookup(r, "$ref") == nil {
				move(r, unique("responses/", base+" "+code), "../")
			}
		}
	}
}

// path2ref spells file (DIR/NAME, no extension) as a $ref: its name
// percent-encoded or given a query when tr asks.
func path2ref(tr transform, file string) string {
	dir, name, _ := strings.Cut(file, "/")
	return dir + "/" + tr.ref(name+"."+tr.ext())
}

func httpMethod(m string) bool {
	switch m {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}
