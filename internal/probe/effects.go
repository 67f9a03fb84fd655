package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// count is a census of the charges endpoint taken before step 1, finished
// after it: the effects of the step seen somewhere other than its answers,
// which a server can make look alike however often it charged.
type count struct {
	p      *prober
	before map[[32]byte]int
	err    error
}

// startCount lists the charges before step 1; without ChargesURL it counts
// nothing.
func (p *prober) startCount(ctx context.Context) *count {
	c := &count{p: p}
	if p.cfg.ChargesURL != nil {
		c.before, c.err = p.census(ctx)
	}
	return c
}

// finish lists the charges again and returns how many appeared that look
// like the probe's request; -1 without ChargesURL.
func (c *count) finish(ctx context.Context) (int, error) {
	if c.p.cfg.ChargesURL == nil {
		return -1, nil
	}
	if c.err != nil {
		return -1, c.err
	}
	after, err := c.p.census(ctx)
	if err != nil {
		return -1, err
	}
	n := 0
	for d, k := range after {
		n += max(0, k-c.before[d])
	}
	return n, nil
}

// census counts the listed charges that match the probe's body, by the
// digest of each charge: a multiset, so two identical charges count twice.
func (p *prober) census(ctx context.Context) (map[[32]byte]int, error) {
	b, err := p.send.get(ctx, p.cfg.ChargesURL)
	if err != nil {
		return nil, fmt.Errorf("--charges-endpoint: %v", err)
	}
	items, err := listItems(b)
	if err != nil {
		return nil, fmt.Errorf("--charges-endpoint: %v", err)
	}
	req, _ := parseObject(p.cfg.Body) // Validate proved it parses
	m := map[[32]byte]int{}
	for _, it := range items {
		if matches(it, req) {
			m[digest(it)]++
		}
	}
	return m, nil
}

// listItems finds the list in a list answer: a JSON array, or the one
// array member of an object ("data" when there are several).
func listItems(b []byte) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if json.Unmarshal(b, &items) == nil {
		return items, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, errors.New("the answer is not JSON")
	}
	var found []string
	for k, v := range obj {
		if json.Unmarshal(v, &items) == nil {
			found = append(found, k)
		}
	}
	switch {
	case len(found) == 1:
		_ = json.Unmarshal(obj[found[0]], &items)
	case obj["data"] != nil && json.Unmarshal(obj["data"], &items) == nil:
	default:
		return nil, errors.New(`the answer has no list: want a JSON array, or an object with one array member (or "data")`)
	}
	return items, nil
}

// matches reports whether a listed item agrees with every member of the
// request body it also has: a charge of this amount and currency, not one
// some other step or client made. An item that is not an object matches.
func matches(item json.RawMessage, req []member) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(item, &obj) != nil {
		return true
	}
	for _, m := range req {
		if v, ok := obj[m.key]; ok && digest(v) != digest(m.value) {
			return false
		}
	}
	return true
}
