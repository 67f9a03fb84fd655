package rules

import (
	"cmp"
	"slices"
)

// UsedNumber is one field number a proto message gave a field in some
// version: from git history (review) or from contractlint.lock.
type UsedNumber struct {
	Message string `json:"message"`
	Number  int32  `json:"number"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	// Seen names where the use was found: a short commit id or "lock".
	Seen string `json:"seen,omitempty"`
}

// History is every field number ever used, beyond the old version of a diff.
type History struct {
	Used []UsedNumber
	// held indexes Used for add; built on first use, since a History may
	// also come straight from a lock file.
	held map[UsedNumber]bool
}

// Uses returns the earlier uses of number in message.
func (h *History) Uses(message string, number int32) []UsedNumber {
	if h == nil {
		return nil
	}
	var out []UsedNumber
	for _, u := range h.Used {
		if u.Message == message && u.Number == number {
			out = append(out, u)
		}
	}
	return out
}

// Add records the fields of c's messages, once per (message, number, name, type).
func (h *History) Add(c *Contract, seen string) {
	if c == nil {
		return
	}
	for _, m := range c.Messages {
		for _, f := range m.Fields {
			h.add(UsedNumber{Message: m.Name, Number: f.Number, Name: f.Name, Type: f.Type, Seen: seen})
		}
	}
}

// Merge adds the uses of o that h does not hold yet.
func (h *History) Merge(o *History) {
	if o == nil {
		return
	}
	for _, u := range o.Used {
		h.add(u)
	}
}

// add records u unless h holds the same use already (where it was seen
// does not make a use different).
func (h *History) add(u UsedNumber) {
	if h.held == nil {
		h.held = make(map[UsedNumber]bool, len(h.Used))
		for _, x := range h.Used {
			h.held[x.use()] = true
		}
	}
	if !h.held[u.use()] {
		h.held[u.use()] = true
		h.Used = append(h.Used, u)
	}
}

// Sort orders the uses by message, number, name and type for stable output.
func (h *History) Sort() {
	slices.SortFunc(h.Used, func(a, b UsedNumber) int {
		return cmp.Or(cmp.Compare(a.Message, b.Message), cmp.Compare(a.Number, b.Number),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Type, b.Type))
	})
}

// use is u without where it was seen: the identity of a use.
func (u UsedNumber) use() UsedNumber {
	u.Seen = ""
	return u
}
