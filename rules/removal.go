package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// removalSupersedes lists the breaking rules that report a bare field
// removal; evidence about its readers says more, so their finding gives way.
func removalSupersedes() []string { return []string{"response-property-removed"} }

func fieldRemovedWhileRead() *Rule {
	return onRemovedField(&Rule{
		ID:         "field-removed-while-read",
		Pack:       Evolution,
		Formats:    OpenAPI | Proto,
		Mode:       DiffRule,
		Severity:   Error,
		Supersedes: removalSupersedes(),
		Doc: Doc{
			Title: "A field is removed while consumers still read it",
			Text: "Consumer evidence (--readers: Pact files or a usage export) shows that someone still " +
				"reads a response field (proto: a message field) that this change removes. Those " +
				"clients get nothing where they expect a value, from the moment the change ships. " +
				"Keep the field, mark it deprecated, tell the named consumers to move to its " +
				"replacement, and remove it once the evidence shows nobody read it within the " +
				"readers window.",
			Bad: `# old: price is read by tixdrop-ios-2025 (its Pact file)
price: {type: number}
# new
(price removed)`,
			Good: `# new: keep price, deprecated, until its readers are gone
price: {type: number, deprecated: true}`,
		},
	}, func(c *Change, ev readerEvidence) (string, bool) {
		if len(ev.active) == 0 {
			return "", false
		}
		return fmt.Sprintf("%s: removed while %s: %s; keep it (deprecated) until they have moved off it",
			c.Name, plural(len(ev.active), "consumer still reads it", "consumers still read it"),
			describeReaders(ev.active)), true
	})
}

func fieldRemovedUnread() *Rule {
	return onRemovedField(&Rule{
		ID:         "field-removed-unread",
		Pack:       Evolution,
		Formats:    OpenAPI | Proto,
		Mode:       DiffRule,
		Severity:   Info,
		Supersedes: removalSupersedes(),
		Doc: Doc{
			Title: "A field nobody reads any more is removed: the contract step of expand/contract",
			Text: "Consumer evidence covers the operation (or message) and shows no consumer reading " +
				"the removed field within the readers window (--readers-window, 30 days by default). " +
				"This is the safe, final step of expand/contract, so it is reported for the record " +
				"instead of as a breaking change. If the evidence is incomplete (a consumer without a " +
				"Pact file, traffic not exported), the removal can still break someone.",
			Bad: "# a removal nobody has evidence about is reported by the breaking rules instead",
			Good: `# old: price last read 2025-11-02, window 30 days
price: {type: number, deprecated: true}
# new
(price removed)`,
		},
	}, func(c *Change, ev readerEvidence) (string, bool) {
		if !ev.known || len(ev.active) > 0 {
			return "", false
		}
		msg := fmt.Sprintf("%s: removed with no consumer reading it since %s", c.Name, day(ev.since))
		if last, ok := latest(ev.gone); ok {
			msg += fmt.Sprintf(" (last read by %s on %s)", last.Consumer, day(last.LastSeen))
		}
		return msg + ": the contract step of expand/contract", true
	})
}

func fieldRemovedWithoutDeprecation() *Rule {
	return onChange(&Rule{
		ID:       "field-removed-without-deprecation",
		Reads:    []Entry{{Removed, SubjectField, ""}},
		Oasdiff:  []string{"request-property-removed"},
		Pack:     Evolution,
		Formats:  OpenAPI | Proto,
		Mode:     DiffRule,
		Severity: Warning,
		Doc: Doc{
			Title: "A field is removed without having been deprecated first",
			Text: "The old version did not mark the removed field deprecated (OpenAPI `deprecated: " +
				"true`, proto `[deprecated = true]`), so clients and their generated code got no " +
				"warning that it was going away. Deprecate the field in one release, point to its " +
				"replacement, and remove it in a later one.",
			Bad: `# old
price: {type: number}
# new
(price removed)`,
			Good: `# old
price: {type: number, deprecated: true}
# new
(price removed)`,
		},
	}, func(c *Change) (string, bool) {
		if !c.Is(Removed, SubjectField) || c.OldField == nil || c.OldField.Deprecated {
			return "", false
		}
		how := "deprecated: true"
		if c.Format == Proto {
			how = "[deprecated = true]"
		}
		return fmt.Sprintf("%s: removed without being deprecated first; mark it %s in a release before removing it",
			c.Name, how), true
	})
}

// onRemovedField wires a check over the removals that evidence can speak
// about, response fields (OpenAPI) and message fields (proto), with what the
// evidence says of each. Without evidence there is nothing to say.
func onRemovedField(r *Rule, match func(c *Change, ev readerEvidence) (string, bool)) *Rule {
	return checkRemovedFields(r, func(c *Change) bool { return c.Format == Proto || c.Dir.Has(Response) },
		func(in *Input, c *Change) (Finding, bool) {
			msg, ok := match(c, lookReaders(in.Readers, c))
			return c.Finding(r, msg), ok
		})
}

// checkRemovedFields sets r's check to judge, with the evidence given, each
// field removal keep admits. Without evidence there is nothing to say.
func checkRemovedFields(r *Rule, keep func(c *Change) bool, judge func(in *Input, c *Change) (Finding, bool)) *Rule {
	r.Reads = []Entry{{Removed, SubjectField, ""}}
	r.Check = func(in *Input) []Finding {
		if in.Readers == nil {
			return nil
		}
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			if !c.Is(Removed, SubjectField) || !keep(c) {
				continue
			}
			if f, ok := judge(in, c); ok {
				out = append(out, f)
			}
		}
		return out
	}
	return r
}

// readerEvidence is what the evidence says about one removed field.
type readerEvidence struct {
	active []Reader // read within the window
	gone   []Reader // last read before it
	known  bool     // every operation reaching the field is described
	since  time.Time
}

func lookReaders(ev Evidence, c *Change) readerEvidence {
	out := readerEvidence{since: ev.Since()}
	qs := queries(c)
	out.known = len(qs) > 0
	for _, q := range qs {
		if !ev.Knows(q.op) {
			out.known = false
			continue
		}
		for _, r := range ev.Readers(q.op, q.field) {
			if r.Active(ev.Since()) {
				out.active = append(out.active, r)
			} else {
				out.gone = append(out.gone, r)
			}
		}
	}
	out.active = byConsumer(out.active)
	return out
}

type query struct{ op, field string }

// queries says what to ask the evidence about a removed field: proto asks the
// message that held it; OpenAPI asks every operation reaching it, by the
// field's path below the nearest named schema.
func queries(c *Change) []query {
	if c.Format == Proto {
		msg := strings.TrimSuffix(c.Path, "."+c.Name)
		return []query{{msg, c.Name}}
	}
	segs, rooted := bodyPath(c.Path, c.Name)
	field := strings.Join(segs, ".")
	if rooted {
		field = "$." + field // written inline in the body: the path is whole
	}
	qs := make([]query, len(c.Operations))
	for i, op := range c.Operations {
		qs[i] = query{op, field}
	}
	return qs
}

// bodyPath reads the property names at the end of a JSON pointer
// (".../properties/items/items/properties/price" -> items, price), stepping
// over array items and allOf/oneOf/anyOf branches, which add no name. rooted
// reports that the names start at a body's schema, not a shared component.
func bodyPath(pointer, name string) (segs []string, rooted bool) {
	t := strings.Split(strings.TrimPrefix(pointer, "#"), "/")
	for i := range t {
		t[i] = strings.ReplaceAll(strings.ReplaceAll(t[i], "~1", "/"), "~0", "~")
	}
	i := len(t) - 1
walk:
	for i >= 1 {
		switch {
		case t[i-1] == "properties":
			segs = append(segs, t[i])
			i -= 2
		case t[i] == "items":
			i--
		case isIndex(t[i]) && (t[i-1] == "allOf" || t[i-1] == "oneOf" || t[i-1] == "anyOf"):
			i -= 2
		default:
			break walk
		}
	}
	if len(segs) == 0 {
		return []string{name}, false
	}
	slices.Reverse(segs)
	return segs, i >= 1 && t[i] == "schema" && t[i-1] != "schemas"
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// byConsumer merges one consumer's readings: the latest sighting, the reads
// summed.
func byConsumer(rs []Reader) []Reader {
	var out []Reader
	for _, r := range rs {
		i := slices.IndexFunc(out, func(x Reader) bool { return x.Consumer == r.Consumer })
		if i < 0 {
			out = append(out, r)
			continue
		}
		m := &out[i]
		m.Reads += r.Reads
		if newer(r, *m) {
			m.LastSeen, m.File = r.LastSeen, r.File
		}
	}
	slices.SortFunc(out, func(a, b Reader) int { return cmp.Compare(a.Consumer, b.Consumer) })
	return out
}

// newer reports whether a was seen after b; a Pact file's "now" (zero) is
// newer than any date.
func newer(a, b Reader) bool {
	if b.LastSeen.IsZero() {
		return false
	}
	return a.LastSeen.IsZero() || a.LastSeen.After(b.LastSeen)
}

func describeReaders(rs []Reader) string {
	ds := make([]string, len(rs))
	for i, r := range rs {
		switch {
		case r.LastSeen.IsZero():
			ds[i] = fmt.Sprintf("%s (Pact file %s)", r.Consumer, r.File)
		case r.Reads > 0:
			ds[i] = fmt.Sprintf("%s (last read %s, %s reads)", r.Consumer, day(r.LastSeen), grouped(float64(r.Reads)))
		default:
			ds[i] = fmt.Sprintf("%s (last read %s)", r.Consumer, day(r.LastSeen))
		}
	}
	return strings.Join(ds, ", ")
}

func latest(rs []Reader) (Reader, bool) {
	if len(rs) == 0 {
		return Reader{}, false
	}
	return slices.MaxFunc(rs, func(a, b Reader) int { return a.LastSeen.Compare(b.LastSeen) }), true
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// operationRemovals lists the breaking rules that report a removed path,
// operation or rpc; evidence about its callers says more, so their finding
// gives way.
func operationRemovals() []string {
	return []string{"path-removed", "operation-removed", "proto-rpc-removed"}
}

func operationRemovedWhileCalled() *Rule {
	return onRemovedOperation(&Rule{
		ID:         "operation-removed-while-called",
		Pack:       Evolution,
		Formats:    OpenAPI | Proto,
		Mode:       DiffRule,
		Severity:   Error,
		Supersedes: operationRemovals(),
		Doc: Doc{
			Title: "An operation is removed while consumers still call it",
			Text: "Consumer evidence (--readers: a usage export naming the operation or rpc with its " +
				"last call, or a Pact file with an interaction for it) shows calls within the readers " +
				"window to a path, operation or rpc this change removes. Those clients get 404, 405 or " +
				"UNIMPLEMENTED from the moment it ships. Keep it, mark it deprecated, tell the named " +
				"consumers, and remove it once the evidence shows no calls within the window.",
			Bad: `# usage.csv: tixdrop-ios,GET /v1/tickets/{id},,412,2026-02-27
# new: /v1/tickets/{id} removed`,
			Good: `# new: keep it, deprecated, until its callers are gone
/v1/tickets/{id}:
  get: {deprecated: true}`,
		},
	}, func(what string, ev callEvidence) (string, bool) {
		if len(ev.active) == 0 {
			return "", false
		}
		if fromTraffic(ev.active) {
			return fmt.Sprintf("%s removed while %s; keep it (deprecated) until they have stopped calling it",
				what, ev.usage), true
		}
		return fmt.Sprintf("%s removed while %s: %s; keep it (deprecated) until they have stopped calling it",
			what, plural(len(ev.active), "consumer still calls it", "consumers still call it"),
			describeCalls(ev.active)), true
	})
}

func operationRemovedUnread() *Rule {
	return onRemovedOperation(&Rule{
		ID:         "operation-removed-unread",
		Pack:       Evolution,
		Formats:    OpenAPI | Proto,
		Mode:       DiffRule,
		Severity:   Warning,
		Supersedes: operationRemovals(),
		Doc: Doc{
			Title: "An operation nobody calls any more is removed",
			Text: "Consumer evidence describes every operation (or rpc) the removal takes away and shows " +
				"no call within the readers window (--readers-window, 30 days by default): the last " +
				"calls, if any, are older, or recorded traffic (HAR, OTLP traces, access logs) that " +
				"covers the whole window never shows one. Removing it is the contract step of " +
				"expand/contract, so it is a warning, not a breaking change, and needs no waiver. " +
				"Evidence that does not name the operation, or traffic that starts inside the window, " +
				"leaves path-removed, operation-removed or proto-rpc-removed in force: a missing row " +
				"is not a missing caller.",
			Bad: `# no usage row or Pact interaction names GET /v1/tickets/{id}:
# path-removed stays an error`,
			Good: `# usage.csv: tixdrop-ios-2024,GET /v1/tickets/{id},,0,2024-09-30
# new: /v1/tickets/{id} removed`,
		},
	}, func(what string, ev callEvidence) (string, bool) {
		if len(ev.active) > 0 || !ev.known {
			return "", false
		}
		msg := fmt.Sprintf("%s removed with no call since %s", what, day(ev.since))
		if ev.usage.Covered {
			msg = fmt.Sprintf("%s removed with %s", what, ev.usage)
		}
		if last, ok := latest(ev.gone); ok {
			msg += fmt.Sprintf(" (last called by %s on %s)", last.Consumer, day(last.LastSeen))
		}
		return msg + ": the contract step of expand/contract", true
	})
}

// callEvidence is what the evidence says about the calls of one removal.
type callEvidence struct {
	active []Reader // called within the window
	gone   []Reader // last called before it
	since  time.Time
	usage  *Usage
	// known is true when the evidence speaks for every operation removed.
	known bool
}

// onRemovedOperation wires a check over removed paths, operations and rpcs
// the evidence speaks of: a call of any operation the removal takes away
// says it is still called; that none is needs every one of them known.
func onRemovedOperation(r *Rule, match func(what string, ev callEvidence) (string, bool)) *Rule {
	r.Reads = []Entry{{Removed, SubjectPath, ""}, {Removed, SubjectOperation, ""}, {Removed, SubjectRPC, ""}}
	r.Check = func(in *Input) []Finding {
		if in.Readers == nil {
			return nil
		}
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			what, ops := removedOperations(c, in.Old)
			if len(ops) == 0 {
				continue
			}
			ev := callEvidence{since: in.Readers.Since(),
				known: !slices.ContainsFunc(ops, func(op string) bool { return !knowsCalls(in.Readers, op) })}
			for _, op := range ops {
				for _, call := range in.Readers.Calls(op) {
					if call.Active(ev.since) {
						ev.active = append(ev.active, call)
					} else {
						ev.gone = append(ev.gone, call)
					}
				}
			}
			ev.active = byConsumer(ev.active)
			if !ev.known && len(ev.active) == 0 {
				continue // a call of one operation speaks for the removal; silence needs them all known
			}
			ev.usage = usageOf(in.Readers, ev.active)
			if msg, ok := match(what, ev); ok {
				f := c.Finding(r, msg)
				f.Usage = ev.usage
				out = append(out, f)
			}
		}
		return out
	}
	return r
}

// knowsCalls reports whether the evidence speaks for op's calls: it names
// op, or recorded traffic shows op called or covers the whole window, so
// that traffic without a call to op means no call.
func knowsCalls(ev Evidence, op string) bool {
	if ev.Knows(op) || len(ev.Calls(op)) > 0 {
		return true
	}
	t := ev.Traffic()
	return t != nil && t.Covers
}

// removedOperations names a removal and the operations it takes away: a
// path's operations (as the old contract lists them), one operation, or
// one rpc.
func removedOperations(c *Change, old *Contract) (string, []string) {
	switch {
	case c.Is(Removed, SubjectPath) && old != nil:
		var ops []string
		for _, op := range old.Operations {
			if op.Path == c.Path || strings.HasPrefix(op.Path, c.Path+"/") {
				ops = append(ops, op.ID)
			}
		}
		return "path " + c.Name, ops
	case c.Is(Removed, SubjectOperation):
		return "operation " + c.Name, []string{c.Name}
	case c.Is(Removed, SubjectRPC):
		return "rpc " + c.Path, []string{c.Path}
	}
	return "", nil
}

func describeCalls(rs []Reader) string {
	ds := make([]string, len(rs))
	for i, r := range rs {
		if r.LastSeen.IsZero() {
			ds[i] = fmt.Sprintf("%s (Pact file %s)", r.Consumer, r.File)
		} else {
			ds[i] = fmt.Sprintf("%s (last call %s)", r.Consumer, day(r.LastSeen))
		}
	}
	return strings.Join(ds, ", ")
}
