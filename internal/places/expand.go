package places

import "go.yaml.in/yaml/v4"

// Elements counts the elements (mapping keys and list items) of every
// document as a decoder builds them, with each alias expanded to its
// anchor's content, stopping once the count passes limit. A document of a
// thousand bytes whose anchors each alias the one before twice ("billion
// laughs") expands to 2^n elements: counting, not expanding, is linear in
// the text. line is where the count passed the limit (the alias, or the
// entry, that did it), 0 when it did not; a count past the limit is
// limit+1.
func (d *Doc) Elements(limit int) (count, line int) {
	e := expander{limit: limit, memo: map[*yaml.Node]int{}}
	for _, doc := range d.docs {
		if count = e.add(count, e.count(doc)); count > limit {
			return count, e.line
		}
	}
	return count, 0
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
	e.memo[n] = 0 // a cycle (which the parser refuses) counts nothing
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

// passed notes the first entry that takes a count past the limit.
func (e *expander) passed(c int, at *yaml.Node) {
	if c > e.limit && e.line == 0 {
		e.line = at.Line
	}
}

// add sums two counts, saturating just past the limit.
func (e *expander) add(a, b int) int {
	return min(a+b, e.limit+1)
}
