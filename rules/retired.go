package rules

import (
	"fmt"
	"slices"
	"strings"
)

// How a name given where a rule ID is expected was resolved, when it is an
// ID a release shipped and a later one renamed or withdrew.
const (
	ViaRenamed    = "renamed rule"
	ViaRetired    = "retired rule"
	ViaBufRetired = "retired buf rule"
)

// Retirement is what became of a rule ID that was released and is no
// rule's ID now. An ID, once released, resolves for ever: a config, an
// inline ignore or a waiver naming it keeps loading, with a warning.
type Retirement struct {
	ID string
	// In is the release that renamed or retired it ("" for a peer's).
	In string
	// By are the names that now cover what it reported: one for a rename,
	// any number (none: nothing does) for a retirement; buf's own names
	// for a retired buf rule.
	By      []string
	Renamed bool
	// Peer is the tool whose ID it is ("buf"); "" for contractlint's own.
	Peer string
}

// retirements lists every released ID no rule holds now: contractlint's
// own renames and retirements (none yet; the list only grows, see
// docs/rules.md#rule-id-stability and testdata/released-rule-ids.txt), and
// the rules buf deprecated, with the replacements buf names for them.
func retirements() []Retirement {
	return []Retirement{
		{ID: "FIELD_SAME_CTYPE", Peer: "buf", By: []string{"FIELD_SAME_CPP_STRING_TYPE"}},
		{ID: "FIELD_SAME_LABEL", Peer: "buf", By: []string{"FIELD_SAME_CARDINALITY", "FIELD_WIRE_COMPATIBLE_CARDINALITY", "FIELD_WIRE_JSON_COMPATIBLE_CARDINALITY"}},
		{ID: "FILE_SAME_JAVA_STRING_CHECK_UTF8", Peer: "buf", By: []string{"FIELD_SAME_JAVA_UTF8_VALIDATION"}},
	}
}

// Warning is what a user reads where the retired ID is named.
func (t Retirement) Warning() string {
	by := strings.Join(t.By, ", ")
	switch {
	case t.Peer != "":
		return fmt.Sprintf("%s is a retired %s rule, now covered by %s; it stands for the rules those map to", t.ID, t.Peer, by)
	case t.Renamed:
		return fmt.Sprintf("rule %s was renamed %s in %s; the old name still works", t.ID, by, t.In)
	case len(t.By) == 0:
		return fmt.Sprintf("rule %s was retired in %s and no rule covers it now; naming it does nothing", t.ID, t.In)
	}
	return fmt.Sprintf("rule %s was retired in %s, now covered by %s", t.ID, t.In, by)
}

// Retired returns what became of name when it is a renamed or retired ID.
func (r *Registry) Retired(name string) (Retirement, bool) {
	i := slices.IndexFunc(r.retired, func(t Retirement) bool { return t.ID == name })
	if i < 0 {
		return Retirement{}, false
	}
	return r.retired[i], true
}

// Retirements lists every renamed or retired ID the registry resolves.
func (r *Registry) Retirements() []Retirement { return r.retired }

// WithRetired returns a registry that also resolves ts (tests, and a
// release that renames or retires a rule, add theirs to retirements).
func (r *Registry) WithRetired(ts ...Retirement) *Registry {
	c := *r
	c.retired = slices.Concat(r.retired, ts)
	return &c
}

// resolveRetired resolves a retired ID to the rules its successors stand
// for, each resolved as any name is (a buf rule's by buf's mapping).
func (r *Registry) resolveRetired(t Retirement) (ids []string, via string) {
	for _, by := range t.By {
		got, _ := r.Resolve(by)
		for _, id := range got {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	switch {
	case t.Peer != "":
		return ids, ViaBufRetired
	case t.Renamed:
		return ids, ViaRenamed
	}
	return ids, ViaRetired
}
