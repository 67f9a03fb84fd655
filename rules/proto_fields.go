package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// protoEvolution holds the proto-only evolution rules.
func protoEvolution() []*Rule {
	return []*Rule{fieldNumberReused(), fieldNumberReusedUnreleased()}
}

// fieldNumberReused is built here and only here: its check reads both the
// typed diff (a number given to another field, a field moved) and the old
// contract and history (a reserved or earlier-used number taken).
func fieldNumberReused() *Rule {
	r := &Rule{
		ID:       "field-number-reused",
		Reads:    []Entry{{Added, SubjectField, ""}, {Modified, SubjectField, AspectName}, {Modified, SubjectField, AspectNumber}},
		Pack:     Evolution,
		Formats:  Proto,
		Severity: Error,
		// A number that now carries another field says all there is to
		// say about that field: its new name, JSON name and type follow.
		// A field moved to another number says what the removal of its
		// old number would.
		Supersedes: slices.Concat([]string{"proto-field-name-changed", "proto-field-json-name-changed", "field-redefined"},
			protoTypeRuleIDs, protoFieldRemovals),
		Mode: DiffRule,
		Doc: Doc{
			Title: "A field number now belongs to a different field",
			Text: "On the wire a field is its number. When a number that belonged to a deleted field, or that the " +
				"old version reserved, is given to a different field, every message written by an older client or " +
				"stored before the change is read into the new field: old prices become quantities, old ids become " +
				"names. Moving a field to a new number is the same mistake seen from the other side: old writers " +
				"still send the old number. Never reuse a number: delete the field with `reserved <number>; " +
				"reserved \"<name>\";` and give the new field a fresh number. With git history (review) or contractlint.lock, a number " +
				"any earlier released version used counts too, not only the old version's; in a repository " +
				"with release tags, a number only commits no tag contains used is " +
				"field-number-reused-unreleased, a warning (config `history: all` makes it this error), " +
				"even when the old version still holds it: the base of a review between releases is no " +
				"more deployed than the commits before it.",
			Bad: `// old
message Charge { double price = 3; }
// new
message Charge { int64 amount_cents = 3; }`,
			Good: `// new
message Charge {
  reserved 3;
  reserved "price";
  int64 amount_cents = 4;
}`,
		},
	}
	r.Check = func(in *Input) []Finding {
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			if msg, ok := numberReused(c); ok && c.Format == Proto {
				if _, unreleased := unreleasedHolder(in.History, c); !unreleased {
					out = append(out, c.Finding(r, msg))
				}
			}
		}
		return append(out, reservedReuse(r, in)...)
	}
	return r
}

// protoFieldRemovals are the rules that report a field's number gone.
var protoFieldRemovals = []string{"proto-field-removed", "proto-field-removed-unreserved-name",
	"proto-field-removed-unreserved-number", "field-removed-without-deprecation"}

// numberReused matches a number that now carries another field, and a field
// that moved to another number.
func numberReused(c *Change) (string, bool) {
	if c.Subject != SubjectField {
		return "", false
	}
	switch {
	case c.Kind == Modified && c.Aspect == AspectName && otherField(c.OldField, c.NewField):
		return fmt.Sprintf("field number %d used to belong to field %q (%s) and is now %q (%s): data written with the old field is read as the new one; reserve %d and use a new number",
			c.NewField.Number, c.Old.Text, protoType(c.OldField), c.New.Text, protoType(c.NewField), c.NewField.Number), true
	case c.Kind == Modified && c.Aspect == AspectNumber:
		return fmt.Sprintf("field %q moved from number %s to %s: old writers still send %s, which the new version no longer reads as %q; keep the number",
			c.Name, c.Old.Text, c.New.Text, c.Old.Text, c.Name), true
	}
	return "", false
}

// otherField reports whether a number now carries another field: both its
// name and its type or shape changed. A rename alone is the same field
// under a new name (proto-field-name-changed); a type change alone is the
// same field redefined.
func otherField(o, n *Field) bool {
	if o == nil || n == nil {
		return false
	}
	return o.Type != n.Type || o.Key != n.Key || o.Format != n.Format || o.Array != n.Array || o.Map != n.Map
}

// reservedReuse reports a new field on a number the old version reserved,
// or that an earlier released version (history, lock file) gave to another
// field.
func reservedReuse(r *Rule, in *Input) []Finding {
	if in.Old == nil {
		return nil
	}
	var out []Finding
	msgs := make(map[string]*Message, len(in.Old.Messages))
	for _, m := range in.Old.Messages {
		msgs[m.Name] = m
	}
	for _, c := range addedFields(in) {
		parent, _ := parentOf(c.Path)
		if m := msgs[parent]; m != nil && inRanges(m.ReservedRange, c.NewField.Number) {
			out = append(out, c.Finding(r, fmt.Sprintf(
				"field %q takes number %d, which the old version of %s reserved for a deleted field: old data is read as %q; use an unreserved number",
				c.Name, c.NewField.Number, parent, c.Name)))
			continue
		}
		if u, ok := earlierUse(in.History, parent, c.NewField); ok && !u.Unreleased {
			out = append(out, c.Finding(r, fmt.Sprintf(
				"field %q takes number %d, which %s gave to field %q (%s) in an earlier version (%s): data written then is read as %q; reserve %d and use a new number",
				c.Name, u.Number, parent, u.Name, u.Type, u.Seen, c.Name, u.Number)))
		}
	}
	return out
}

// unreleasedHolder finds, for a number the old version gave to another
// field, that field's use in the history when only unreleased commits
// held it: the base of a review between releases (authzed 7144bbf gave
// number 4 of WatchResponse to a new field three days after 47ca33d added
// the old one, with no release tag between). Such a base is no more
// deployed than a commit the walk passed: the reuse is judged by release
// like one of those. With no history, or a use any release held, it is not.
func unreleasedHolder(h *History, c *Change) (UsedNumber, bool) {
	if c.Kind != Modified || c.Aspect != AspectName || c.OldField == nil || c.NewField == nil {
		return UsedNumber{}, false
	}
	parent, _ := parentOf(c.Path)
	for _, u := range h.Uses(parent, c.OldField.Number) {
		if u.Name == c.OldField.Name && u.Type == c.OldField.Type {
			return u, u.Unreleased
		}
	}
	return UsedNumber{}, false
}

// renamedNumbers are the proto fields whose number the new version gives
// to another field (numberReused's first case).
func renamedNumbers(in *Input) []*Change {
	var out []*Change
	for i := range in.Changes {
		c := &in.Changes[i]
		if c.Format == Proto && c.Is(Modified, SubjectField) && c.Aspect == AspectName && otherField(c.OldField, c.NewField) {
			out = append(out, c)
		}
	}
	return out
}

// addedFields are the proto fields the change added inside a message.
func addedFields(in *Input) []*Change {
	var out []*Change
	for i := range in.Changes {
		c := &in.Changes[i]
		if c.Format != Proto || !c.Is(Added, SubjectField) || c.NewField == nil {
			continue
		}
		if _, ok := parentOf(c.Path); ok {
			out = append(out, c)
		}
	}
	return out
}

// earlierUse finds a version in the history where f's number belonged to a
// field with another name or type, a released one first; the same field
// coming back is no reuse.
func earlierUse(h *History, message string, f *Field) (UsedNumber, bool) {
	for _, u := range h.Uses(message, f.Number) {
		if u.Name != f.Name || u.Type != f.Type {
			return u, true
		}
	}
	return UsedNumber{}, false
}

// fieldNumberReusedUnreleased is field-number-reused for a number that
// only commits between releases used: review marks those uses when the
// repository has release tags (config `history: all` does not).
func fieldNumberReusedUnreleased() *Rule {
	r := &Rule{
		ID:       "field-number-reused-unreleased",
		Reads:    []Entry{{Added, SubjectField, ""}, {Modified, SubjectField, AspectName}},
		Pack:     Evolution,
		Formats:  Proto,
		Severity: Warning,
		// As field-number-reused: the other field's name and type follow.
		Supersedes: slices.Concat([]string{"proto-field-name-changed", "proto-field-json-name-changed", "field-redefined"},
			protoTypeRuleIDs),
		Mode: DiffRule,
		Doc: Doc{
			Title: "A field number that only unreleased commits used is given to a different field",
			Text: "review walks a .proto file's whole git history for numbers used before. When the repository " +
				"has release tags and the earlier use lived only in commits that no tag contains (a field added " +
				"on main and deleted days later), no released client or stored message can carry it, unless " +
				"one of those commits was deployed; so this is a warning naming the commit and the days it " +
				"lived, where field-number-reused (an error) reports a number any release used. Reserve the " +
				"number if that commit ever ran against real data. A repository without tags, or a config " +
				"with `history: all`, counts every commit as released. The same holds when the old version of " +
				"the review still has the field: its number was given to another field before any release " +
				"held it (authzed/api 7144bbf, three days after 47ca33d added the field it replaced).",
			Bad: `// main, 2024-03-01 (no tag): double price = 2;
// main, 2024-03-05: price deleted, 2 not reserved
message Charge { int64 quantity = 2; }`,
			Good: `message Charge {
  reserved 2;
  int64 quantity = 3;
}`,
		},
	}
	r.Check = func(in *Input) []Finding {
		var out []Finding
		for _, c := range slices.Concat(addedFields(in), renamedNumbers(in)) {
			parent, _ := parentOf(c.Path)
			u, ok := earlierUse(in.History, parent, c.NewField)
			if c.Kind == Modified {
				u, ok = unreleasedHolder(in.History, c)
			}
			if !ok || !u.Unreleased {
				continue
			}
			out = append(out, c.Finding(r, fmt.Sprintf(
				"field %q takes number %d, which %s gave to field %q (%s) only in unreleased commits: used for %s "+
					"(%s to %s) on the branch in %s, which no release tag contains; if that was deployed, stored "+
					"data may misparse as %q: reserve %d and use a new number",
				c.Name, u.Number, parent, u.Name, u.Type, daysBetween(u.Since, u.Until), u.Since, u.Until, u.Seen,
				c.Name, u.Number)))
		}
		return out
	}
	return r
}

// daysBetween says how long a use lived, from its two dates.
func daysBetween(since, until string) string {
	a, err1 := time.Parse(time.DateOnly, since)
	b, err2 := time.Parse(time.DateOnly, until)
	if err1 != nil || err2 != nil {
		return "a while"
	}
	switch d := int(b.Sub(a).Hours() / 24); d {
	case 0:
		return "less than a day"
	case 1:
		return "1 day"
	default:
		return fmt.Sprintf("%d days", d)
	}
}

// parentOf is the full name of what holds the element named full: a
// field's message; false for a top-level name.
func parentOf(full string) (string, bool) {
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", false
	}
	return full[:i], true
}

func inRanges(ranges [][2]int32, n int32) bool {
	for _, r := range ranges {
		if n >= r[0] && n <= r[1] {
			return true
		}
	}
	return false
}
