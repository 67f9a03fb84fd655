package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"sync"

	"github.com/contractlint/contractlint/internal/places"
	"go.yaml.in/yaml/v4"
)

// parses holds what the parser read of each part of an outline (see cut),
// by the part's text: a part written alike on both sides of a diff, or in
// a buffer's base and each of its edits, is parsed once.
type parses struct {
	// base holds the parses of an earlier cut, read only (a Cut's).
	base map[string]*parsed
	done map[string]*parsed
}

// parsed is what a plan needs of one part, read from the parser's nodes.
type parsed struct {
	// refs are the part's $refs ($ref keys with a scalar value: one whose
	// value is a mapping is a property named $ref); opIDs its operationIds.
	refs, opIDs []string
	// alias: the entry's value is a $ref itself; anchored: it defines or
	// uses a YAML anchor; keep: a block scalar may keep its trailing lines.
	alias, anchored, keep bool
	// object: the value is a mapping, or null.
	object bool
	err    error
	// line is where in the part err is (1-based), 0 for its first line.
	line int
	// syntax: err is the parser's, who may read on into the parts after
	// (a quoted scalar whose line the outline took for a key).
	syntax bool
}

func newParses(base map[string]*parsed) *parses {
	return &parses{base: base, done: map[string]*parsed{}}
}

// partText is a part's text and the key the outline read on its first
// line, which the parser must read there too.
type partText struct {
	text []byte
	key  string
}

// parse reads each text not read yet, on every core.
func (ps *parses) parse(texts []partText) {
	var todo []partText
	for _, pt := range texts {
		t := pt.text
		if _, ok := ps.done[string(t)]; ok {
			continue
		}
		if r, ok := ps.base[string(t)]; ok {
			ps.done[string(t)] = r
			continue
		}
		ps.done[string(t)] = nil
		todo = append(todo, pt)
	}
	out := make([]*parsed, len(todo))
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(todo); i += workers {
				out[i] = readPart(todo[i].text, todo[i].key)
			}
		})
	}
	wg.Wait()
	for i, t := range todo {
		ps.done[string(t.text)] = out[i]
	}
}

// readPart parses one part: a key at its indentation and what is under it.
func readPart(text []byte, key string) *parsed {
	v, err := places.ReadEntry(text, key)
	if err != nil {
		return &parsed{err: err, syntax: true}
	}
	r := &parsed{object: v.Kind == yaml.MappingNode || v.Kind == yaml.ScalarNode && v.Tag == "!!null"}
	if v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			r.alias = r.alias || v.Content[i].Value == "$ref" && v.Content[i+1].Kind == yaml.ScalarNode
		}
	}
	r.walk(v)
	if last := lastNode(v); r.err == nil && last.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		r.keep = keepRE.Match(headerAt(text, last))
	}
	return r
}

// lastNode is the last node under n in the text's order.
func lastNode(n *yaml.Node) *yaml.Node {
	for (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n
}

// headerAt is the rest of the line from block scalar n's header on (the
// column counts characters, so it may begin before the header, not after).
func headerAt(text []byte, n *yaml.Node) []byte {
	for range n.Line - 1 {
		_, text, _ = bytes.Cut(text, []byte("\n"))
	}
	line, _, _ := bytes.Cut(text, []byte("\n"))
	return line[min(max(n.Column-1, 0), len(line)):]
}

// keepRE finds a block scalar's header with keep chomping (|+, >2+): its
// value takes the blank lines after it, which blanking the next chunk
// would give it.
var keepRE = regexp.MustCompile(`[|>][1-9]?\+`)

// walk notes what n and the nodes under it hold. A tag, or a $ref whose
// value is a list, is an error: kin-openapi's loader reads either
// otherwise than a plain value, or refuses it, and a part the plan leaves
// out must be one the whole load reads as the parser does here.
func (r *parsed) walk(n *yaml.Node) {
	if r.err != nil {
		return
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		r.anchored = true
	}
	if n.Style&yaml.TaggedStyle != 0 {
		r.err, r.line = fmt.Errorf("a tag (%s)", n.Tag), n.Line
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode {
				switch {
				case k.Value == "$ref" && v.Kind == yaml.SequenceNode:
					r.err, r.line = errors.New("a $ref whose value is a list"), k.Line
					return
				case k.Value == "$ref" && v.Kind == yaml.ScalarNode:
					r.refs = append(r.refs, v.Value)
				case k.Value == "operationId" && v.Kind == yaml.ScalarNode:
					r.opIDs = append(r.opIDs, v.Value)
				}
			}
			r.walk(k)
			r.walk(v)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			r.walk(c)
		}
	}
}

// maxMerge bounds how many parts after one the parser refused are read
// with it, each merge one more parse of the run.
const maxMerge = 8

// merge reads each part the parser refused together with the parts after
// it under the same key, as the parser would read on: a quoted scalar
// whose later line the outline took for a key ends there. A merge that
// parses as the one entry of the first part's key replaces those parts.
func (ps *parses) merge(d *pieces, parts []cutPart) []cutPart {
	out := parts[:0:0]
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		if r := ps.done[string(d.partText(p))]; r == nil || !r.syntax {
			out = append(out, p)
			continue
		}
		for j := i + 1; j < len(parts) && j <= i+maxMerge && parts[j].from == parts[j-1].to && parts[j].section == p.section && parts[j].kind == p.kind && (parts[j].ptr == "") == (p.ptr == ""); j++ {
			m := p
			m.to = parts[j].to
			text := d.partText(m)
			ps.parse([]partText{{text, m.key}})
			if r := ps.done[string(text)]; !r.syntax {
				p, i = m, j
				break
			}
		}
		out = append(out, p)
	}
	return out
}
