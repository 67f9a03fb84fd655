package limits

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// mayAlias tells whether YAML text may hold an anchor (&name) where a node
// begins: without one there is nothing to alias, and Scan's count is all
// that will be built. A false positive (an "&x" inside a quoted string)
// only costs a parse.
func mayAlias(b []byte) bool {
	for i := bytes.IndexByte(b, '&'); i >= 0; {
		if i+1 < len(b) && !isBlank(b[i+1]) && (i == 0 || isBlank(b[i-1]) || bytes.IndexByte([]byte("[{,:-?!"), b[i-1]) >= 0) {
			return true
		}
		j := bytes.IndexByte(b[i+1:], '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Expanded counts the elements (mapping keys and list items) of every YAML
// document in b as a decoder builds them, with each alias expanded to its
// anchor's content, stopping once the count passes limit. A document of a
// thousand bytes whose anchors each alias the one before twice ("billion
// laughs" shaped as nested mappings) expands to 2^n elements: counting, not
// expanding, is linear in the text. line is where the count passed the
// limit (the entry that did it), 0 when it did not; a count past the limit
// is limit+1. Text without an anchor, or that the YAML parser refuses,
// counts 0 here: Scan's count holds for it, and the loader reports errors.
func Expanded(b []byte, limit int) (count, line int) {
	if !mayAlias(b) {
		return 0, 0
	}
	e := expander{limit: limit, memo: map[*yaml.Node]int{}}
	d := yaml.NewDecoder(bytes.NewReader(b))
	total := 0
	for {
		var doc yaml.Node
		err := d.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return total, 0
		}
		if err != nil {
			return 0, 0
		}
		if total = e.add(total, e.count(&doc)); total > limit {
			return total, e.line
		}
	}
}

type expander struct {
	limit int
	memo  map[*yaml.Node]int
	// line is where the first alias expanding past the limit is.
	line int
}

// count is the number of elements n stands for, saturated at limit+1 so
// that no sum overflows; each node is counted once, aliases from the memo.
func (e *expander) count(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	if c, ok := e.memo[n]; ok {
		return c
	}
	e.memo[n] = 0 // a cycle (which the decoder refuses) counts nothing
	c := 0
	switch n.Kind {
	case yaml.AliasNode:
		c = e.count(n.Alias)
		if c > e.limit && e.line == 0 {
			e.line = n.Line
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			c = e.add(c, 1+e.count(n.Content[i])+e.count(n.Content[i+1]))
			e.passed(c, n.Content[i])
		}
	default: // documents and sequences
		for _, k := range n.Content {
			c = e.add(c, e.count(k))
			if n.Kind == yaml.SequenceNode {
				c = e.add(c, 1)
			}
			e.passed(c, k)
		}
	}
	e.memo[n] = c
	return c
}

// passed notes at the first entry that takes a count past the limit.
func (e *expander) passed(c int, at *yaml.Node) {
	if c > e.limit && e.line == 0 {
		e.line = at.Line
	}
}

// add sums two counts, saturating just past the limit.
func (e *expander) add(a, b int) int {
	return min(a+b, e.limit+1)
}
