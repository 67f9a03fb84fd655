package engine

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/rules"
)

// Edit identifies what a finding is about: one element (Path) on one side,
// in one file, judged in one direction. Findings that share it report one
// edit, however many rules see it.
type Edit struct {
	File, Path string
	Removed    bool
	Compat     rules.Compat
}

// EditOf is the edit a finding reports.
func EditOf(f rules.Finding) Edit {
	return Edit{File: f.Where.File, Path: f.Path, Removed: f.Removed, Compat: f.Compat}
}

// Apart reports whether findings of rules a and b about one element are
// declared as different edits: a rule marked Apart reports one edit per
// part of the element (a range, a reservation, a required field), so its
// findings stand alone.
func Apart(reg *rules.Registry, a, b string) bool {
	for _, id := range []string{a, b} {
		if r, ok := reg.Get(id); ok && r.Apart {
			return true
		}
	}
	return false
}

// Merge makes one finding of the findings that report one edit (a field
// removed is response-property-removed and field-removed-without-deprecation;
// a field moved to a number is field-number-reused twice and its number's
// removal): the most severe stays, ties going to the rule that supersedes
// another of them, then to the evolution pack (whose messages say what to
// do instead), then to the registry's order. Its message carries what the
// others say, except what a rule it supersedes would repeat, and Also names
// them all, so each peer rule they cover is still accounted for.
func Merge(reg *rules.Registry, fs []rules.Finding) []rules.Finding {
	groups := map[Edit][]int{}
	for i, f := range fs {
		if f.Path == "" || Apart(reg, f.Rule, f.Rule) {
			continue
		}
		k := EditOf(f)
		groups[k] = append(groups[k], i)
	}
	drop := make([]bool, len(fs))
	index := map[string]int{}
	for i, r := range reg.All() {
		index[r.ID] = i
	}
	for _, g := range groups {
		// Lint findings report states of the new contract, each its own
		// problem; they join a diff finding about their element, never
		// each other.
		if len(g) < 2 || !slices.ContainsFunc(g, func(i int) bool { return isDiff(reg, fs[i].Rule) }) {
			continue
		}
		members := make([]rules.Finding, len(g))
		for j, i := range g {
			members[j] = fs[i]
		}
		order := rankEdit(reg, index, members)
		first := g[order[0]]
		fs[first] = absorb(reg, fs[first], members, order[1:])
		for _, j := range order[1:] {
			drop[g[j]] = true
		}
	}
	out := fs[:0]
	for i, f := range fs {
		if !drop[i] {
			out = append(out, f)
		}
	}
	return out
}

// rankEdit orders the findings of one edit, the one that stays first.
func rankEdit(reg *rules.Registry, index map[string]int, fs []rules.Finding) []int {
	supersedes := func(f rules.Finding) int {
		n := 0
		for _, o := range fs {
			if o.Rule != f.Rule && supersedesRule(reg, f.Rule, o.Rule) {
				n++
			}
		}
		return n
	}
	evolution := func(f rules.Finding) int {
		if r, ok := reg.Get(f.Rule); ok && r.Pack == rules.Evolution {
			return 0
		}
		return 1
	}
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := fs[a], fs[b]
		return cmp.Or(
			cmp.Compare(y.Severity, x.Severity),
			cmp.Compare(supersedes(y), supersedes(x)),
			cmp.Compare(evolution(x), evolution(y)),
			cmp.Compare(index[x.Rule], index[y.Rule]),
			cmp.Compare(x.Where.Line, y.Where.Line),
			cmp.Compare(x.Message, y.Message),
		)
	})
	return order
}

func isDiff(reg *rules.Registry, id string) bool {
	r, ok := reg.Get(id)
	return ok && r.Mode == rules.DiffRule
}

func supersedesRule(reg *rules.Registry, a, b string) bool {
	r, ok := reg.Get(a)
	return ok && slices.Contains(r.Supersedes, b)
}

// absorb folds the findings at rest (indexes into fs) into keep. Another
// rule's operations are not keep's: it may reach the element another way (a
// response property removed breaks readers; the deprecation advice is for
// every operation that carries it). keep's own rule seen again is the edit
// reached from more operations (a shared component each operation came to
// $ref): it breaks them all, and says so once.
func absorb(reg *rules.Registry, keep rules.Finding, fs []rules.Finding, rest []int) rules.Finding {
	// keep's own rule met again counts its operations once, over them all.
	base, counted := cutReach(keep.Message)
	for _, j := range rest {
		if f := fs[j]; f.Rule == keep.Rule {
			keep.Operations = union(keep.Operations, f.Operations)
			_, c := cutReach(f.Message)
			counted = counted || c
		}
	}
	head := base
	if counted && len(keep.Operations) > 1 {
		head += fmt.Sprintf(" (reaches %d operations)", len(keep.Operations))
	}
	var msg strings.Builder
	msg.WriteString(head)
	tail := trailer(head)
	said := []string{strings.TrimSuffix(head, tail)}
	for _, j := range rest {
		f := fs[j]
		// One edit needs the largest bump any of its findings does.
		keep.Bump = max(keep.Bump, f.Bump)
		keep.Also = appendRule(keep.Also, keep.Rule, f.Rule)
		for _, id := range f.Also {
			keep.Also = appendRule(keep.Also, keep.Rule, id)
		}
		keep.Related = appendRelated(keep.Related, keep, f)
		if f.Rule != keep.Rule && supersedesRule(reg, keep.Rule, f.Rule) {
			continue // says nothing the kept message does not
		}
		m := f.Message
		if f.Rule == keep.Rule {
			m, _ = cutReach(m)
		}
		if tail != "" {
			m = strings.TrimSuffix(m, tail)
		}
		if f.Rule == keep.Rule && slices.Contains(said, m) {
			continue
		}
		said = append(said, m)
		if f.Rule == keep.Rule {
			msg.WriteString("; also: " + m)
		} else {
			msg.WriteString("; also " + f.Rule + ": " + m)
		}
	}
	keep.Message = msg.String()
	slices.Sort(keep.Also)
	return keep
}

// reachRE is the count a shared change's message ends with.
var reachRE = regexp.MustCompile(` \(reaches \d+ operations\)$`)

// cutReach is msg without its count of the operations the change reaches,
// and whether it had one: the findings of one change met from several
// places are counted again over all their operations.
func cutReach(msg string) (string, bool) {
	loc := reachRE.FindStringIndex(msg)
	if loc == nil {
		return msg, false
	}
	return msg[:loc[0]], true
}

// trailer is the parenthesis a message ends with, such as a proto
// removal's " (it was at FILE:LINE:COL)" or " (reaches 445 operations)":
// the findings merged with it say it once.
func trailer(msg string) string {
	i := strings.LastIndex(msg, " (")
	if i < 0 || !strings.HasSuffix(msg, ")") {
		return ""
	}
	return msg[i:]
}

// union is a's operations and those of b it lacks, sorted as a finding
// lists them.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, op := range b {
		if !slices.Contains(out, op) {
			out = append(out, op)
		}
	}
	slices.Sort(out)
	return out
}

// appendRelated adds f, and what f itself stood for, to keep's related,
// each rule and message once; keep's own words are not related to it.
func appendRelated(related []rules.Related, keep, f rules.Finding) []rules.Related {
	// keep's own rule saying the same, but for how many operations it
	// counted, is keep itself met again, not a finding it stands for.
	uncounted := func(r rules.Related) rules.Related {
		r.Message, _ = cutReach(r.Message)
		return r
	}
	self := uncounted(rules.Related{Rule: keep.Rule, Severity: keep.Severity, Message: keep.Message})
	for _, r := range append([]rules.Related{{Rule: f.Rule, Severity: f.Severity, Message: f.Message}}, f.Related...) {
		if uncounted(r) != self && !slices.Contains(related, r) {
			related = append(related, r)
		}
	}
	return related
}

func appendRule(also []string, self, id string) []string {
	if id == self || slices.Contains(also, id) {
		return also
	}
	return append(also, id)
}
