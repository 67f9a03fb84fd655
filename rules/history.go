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
	// Unreleased is set when the repository has release tags and no tag
	// holds this use: it lived only in commits between releases, from
	// Since to Until (dates, YYYY-MM-DD).
	Unreleased bool   `json:"unreleased,omitempty"`
	Since      string `json:"since,omitempty"`
	Until      string `json:"until,omitempty"`
}

// History is every field number ever used, beyond the old version of a diff.
type History struct {
	Used []UsedNumber
	// held indexes Used for add; built on first use, since a History may
	// also come straight from a lock file.
	held map[UsedNumber]int
}

// Uses returns the earlier uses of number in message, released first.
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
	slices.SortStableFunc(out, func(a, b UsedNumber) int { return cmp.Compare(boolInt(a.Unreleased), boolInt(b.Unreleased)) })
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Add records the fields of c's messages, once per (message, number, name, type).
func (h *History) Add(c *Contract, seen string) {
	h.AddVersion(c, UsedNumber{Seen: seen})
}

// AddVersion records the fields of c's messages as the version described by
// v (where it was seen, whether a release holds it) used them.
func (h *History) AddVersion(c *Contract, v UsedNumber) {
	if c == nil {
		return
	}
	for _, m := range c.Messages {
		for _, f := range m.Fields {
			u := v
			u.Message, u.Number, u.Name, u.Type = m.Name, f.Number, f.Name, f.Type
			h.add(u)
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
// does not make a use different); a released sighting replaces an
// unreleased one, since a number any release used is released.
func (h *History) add(u UsedNumber) {
	if h.held == nil {
		h.held = make(map[UsedNumber]int, len(h.Used))
		for i, x := range h.Used {
			h.held[x.use()] = i
		}
	}
	i, ok := h.held[u.use()]
	switch {
	case !ok:
		h.held[u.use()] = len(h.Used)
		h.Used = append(h.Used, u)
	case h.Used[i].Unreleased && !u.Unreleased:
		h.Used[i] = u
	}
}

// Sort orders the uses by message, number, name and type for stable output.
func (h *History) Sort() {
	h.held = nil // indexes positions that sorting moves
	slices.SortFunc(h.Used, func(a, b UsedNumber) int {
		return cmp.Or(cmp.Compare(a.Message, b.Message), cmp.Compare(a.Number, b.Number),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Type, b.Type))
	})
}

// use is u without where and when it was seen: the identity of a use.
func (u UsedNumber) use() UsedNumber {
	return UsedNumber{Message: u.Message, Number: u.Number, Name: u.Name, Type: u.Type}
}
