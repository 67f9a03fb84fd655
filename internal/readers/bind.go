package readers

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// Bind resolves the evidence against one contract: each HTTP entry to the
// operation whose path template its request path matches, each message
// entry to its message. HTTP entries serve OpenAPI contracts, message entries
// proto ones. An entry of the contract's format that matches nothing is an
// error naming its file and entry: a typo must not read as "nobody reads it".
// contracts are the versions compared (old and new); a nil Set binds to nil.
func (s *Set) Bind(format rules.Format, contracts ...*rules.Contract) (rules.Evidence, error) {
	ev, unmatched := s.BindSome(format, contracts...)
	if len(unmatched) == 0 {
		return ev, nil
	}
	var probs source.Problems
	for _, e := range unmatched {
		probs = append(probs, source.Problem{File: e.File, Msg: e.Where + ": " + e.Unmatched()})
	}
	return nil, dedupeProblems(probs)
}

// BindSome is Bind for a run in which one evidence set serves several
// contracts (review): an entry that matches nothing here is returned, for
// the caller to judge across the contracts, instead of failing. A skipped
// entry is never taken as "nobody reads it": evidence that does not know an
// operation says nothing about its fields.
func (s *Set) BindSome(format rules.Format, contracts ...*rules.Contract) (rules.Evidence, []Entry) {
	if s == nil {
		return nil, nil
	}
	var tmpls []template
	msgs, rpcs := map[string]bool{}, map[string]bool{}
	for _, c := range contracts {
		if c == nil {
			continue
		}
		for _, op := range c.Operations {
			if t, ok := parseTemplate(op.ID); ok && !slices.ContainsFunc(tmpls, func(x template) bool { return x.id == t.id }) {
				tmpls = append(tmpls, t)
			}
			if c.Format == rules.Proto {
				rpcs[op.ID] = true
			}
		}
		for _, m := range c.Messages {
			msgs[m.Name] = true
		}
	}
	ix := &index{since: s.Now.Add(-s.Window), window: s.Window, byOp: map[string][]Entry{}, traffic: map[string][]Entry{}}
	var unmatched []Entry
	matched := map[string]bool{} // traffic files with a call of this contract
	for _, e := range s.Entries {
		var op string
		switch {
		case format == rules.Proto && e.RPC != "":
			if len(rpcs) > 0 && !rpcs[e.RPC] {
				unmatched = appendUnmatched(unmatched, e)
				continue
			}
			op = e.RPC
		case format == rules.Proto && e.Message != "":
			if len(msgs) > 0 && !msgs[e.Message] {
				unmatched = append(unmatched, e)
				continue
			}
			op = e.Message
		case format != rules.Proto && e.Method != "":
			t, ok := bestMatch(tmpls, e.Method, e.Path)
			if !ok {
				unmatched = appendUnmatched(unmatched, e)
				continue
			}
			op = t.id
		default:
			continue // evidence about the other format's contracts
		}
		if e.Traffic() {
			ix.traffic[op] = append(ix.traffic[op], e)
			matched[e.File] = true
			continue
		}
		ix.byOp[op] = append(ix.byOp[op], e)
	}
	ix.spans = spanOf(s.Traffic, matched, ix.since)
	return ix, unmatched
}

// appendUnmatched keeps an entry that matches nothing, unless it is
// traffic: recorded traffic holds requests of pages, health checks and
// other services, which are no typo in the evidence.
func appendUnmatched(out []Entry, e Entry) []Entry {
	if e.Traffic() {
		return out
	}
	return append(out, e)
}

// spanOf sums the coverage of the traffic files that show a call of the
// contract: files about another service say nothing of this one. nil when
// none does.
func spanOf(covs []Coverage, matched map[string]bool, since time.Time) *rules.Traffic {
	var t *rules.Traffic
	consumers := map[string]bool{}
	for _, c := range covs {
		if !matched[c.File] {
			continue
		}
		if t == nil {
			t = &rules.Traffic{First: c.First, Last: c.Last}
		}
		if c.First.Before(t.First) {
			t.First = c.First
		}
		if c.Last.After(t.Last) {
			t.Last = c.Last
		}
		t.Requests += c.Recent
		for _, n := range c.RecentConsumers {
			consumers[n] = true
		}
	}
	if t != nil {
		t.Consumers = len(consumers)
		t.Covers = !t.First.IsZero() && !t.First.After(since)
	}
	return t
}

// Unmatched says what an entry names that the contract lacks.
func (e Entry) Unmatched() string {
	if e.RPC != "" {
		return fmt.Sprintf("rpc %s is not in the contract", e.RPC)
	}
	if e.Message != "" {
		return fmt.Sprintf("message %s is not in the contract", e.Message)
	}
	return fmt.Sprintf("%s %s matches no operation of the contract", e.Method, e.Path)
}

// dedupeProblems keeps one report per file and message: a Pact file repeats
// an interaction's path once per field.
func dedupeProblems(ps source.Problems) source.Problems {
	var out source.Problems
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// index is the evidence bound to a contract, keyed by operation ID or
// message: consumer contracts and usage exports apart from traffic, which
// shows calls and what was sent but never what was read.
type index struct {
	since   time.Time
	window  time.Duration
	byOp    map[string][]Entry
	traffic map[string][]Entry
	spans   *rules.Traffic
}

func (ix *index) Since() time.Time { return ix.since }

func (ix *index) Window() time.Duration { return ix.window }

func (ix *index) Traffic() *rules.Traffic { return ix.spans }

// Sent answers rules.Evidence from traffic: the consumers whose exchanges
// with op carried field on side dir.
func (ix *index) Sent(op, field string, dir rules.Direction) []rules.Reader {
	side := Response
	if dir.Has(rules.Request) {
		side = Request
	}
	rooted := strings.HasPrefix(field, "$.")
	want := strings.Split(strings.TrimPrefix(field, "$."), ".")
	var out []rules.Reader
	for _, e := range ix.traffic[op] {
		if e.Field != "" && e.Side == side && pathMatch(strings.Split(e.Field, "."), want, rooted) {
			out = append(out, ix.reader(e))
		}
	}
	for _, e := range ix.byOp[op] {
		// A Pact file's request bodies show what its consumer sends.
		if side == Request && e.Side == Request && pathMatch(strings.Split(e.Field, "."), want, rooted) {
			out = append(out, rules.Reader{Consumer: e.Consumer, File: e.File})
		}
	}
	return out
}

// reader is a traffic entry as a reader: within the window it counts the
// exchanges there; gone before it, all of them.
func (ix *index) reader(e Entry) rules.Reader {
	n := e.Recent
	if e.LastSeen.Before(ix.since) {
		n = e.Reads
	}
	return rules.Reader{Consumer: e.Consumer, LastSeen: e.LastSeen, Reads: n, File: e.File, Traffic: true}
}

func (ix *index) Knows(op string) bool { return len(ix.byOp[op]) > 0 }

// Readers answers rules.Evidence: a field anchored with "$." matches whole
// paths; otherwise an entry matches when its path ends with the field's.
func (ix *index) Readers(op, field string) []rules.Reader {
	rooted := strings.HasPrefix(field, "$.")
	want := strings.Split(strings.TrimPrefix(field, "$."), ".")
	var out []rules.Reader
	for _, e := range ix.byOp[op] {
		if e.Field == "" || e.Side == Request || (e.Reads == 0 && !e.LastSeen.IsZero()) {
			continue // covers the operation but reads nothing
		}
		if !pathMatch(strings.Split(e.Field, "."), want, rooted) {
			continue
		}
		out = append(out, rules.Reader{Consumer: e.Consumer, LastSeen: e.LastSeen, Reads: e.Reads, File: e.File})
	}
	return out
}

// Calls answers rules.Evidence: every consumer the evidence shows calling
// op, by any row (a field read is a call too) or Pact interaction. A row
// that counted no reads shows coverage, not a call.
func (ix *index) Calls(op string) []rules.Reader {
	var out []rules.Reader
	for _, e := range ix.byOp[op] {
		if e.Reads == 0 && !e.LastSeen.IsZero() {
			continue
		}
		out = append(out, rules.Reader{Consumer: e.Consumer, LastSeen: e.LastSeen, Reads: e.Reads, File: e.File})
	}
	for _, e := range ix.traffic[op] {
		if e.Field == "" {
			out = append(out, ix.reader(e))
		}
	}
	return out
}

func pathMatch(have, want []string, rooted bool) bool {
	if len(have) < len(want) || rooted && len(have) != len(want) {
		return false
	}
	have = have[len(have)-len(want):]
	for i := range want {
		if have[i] != want[i] && have[i] != "*" && want[i] != "*" {
			return false
		}
	}
	return true
}

// template is an operation's method and path template, split into segments.
type template struct {
	id     string
	method string
	segs   []string
}

func parseTemplate(id string) (template, bool) {
	method, path, ok := strings.Cut(id, " ")
	if !ok || !strings.HasPrefix(path, "/") {
		return template{}, false
	}
	return template{id: id, method: strings.ToUpper(method), segs: segments(path)}, true
}

func segments(path string) []string {
	path, _, _ = strings.Cut(path, "?")
	return strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
}

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// bestMatch finds the template a request path (or a template written in a
// usage file) matches, preferring the one with the most literal segments
// (/orders/latest over /orders/{id}). A path may carry a server base path
// before the template (/api/v1/orders/1 against /v1/orders/{id}).
func bestMatch(ts []template, method, path string) (template, bool) {
	segs := segments(path)
	best, bestScore := template{}, -1
	for _, t := range ts {
		if t.method != strings.ToUpper(method) || len(t.segs) > len(segs) {
			continue
		}
		score, ok := matchSegs(t.segs, segs[len(segs)-len(t.segs):])
		if !ok {
			continue
		}
		// An exact-length match beats one that needs a base path.
		score += 1000 * boolInt(len(t.segs) == len(segs))
		if score > bestScore {
			best, bestScore = t, score
		}
	}
	return best, bestScore >= 0
}

func matchSegs(tmpl, segs []string) (int, bool) {
	score := 0
	for i, t := range tmpl {
		switch {
		case isParam(t):
			if segs[i] == "" {
				return 0, false
			}
		case segs[i] == "{}": // a value folded out of recorded traffic

		case t == segs[i]:
			score++
		default:
			return 0, false
		}
	}
	return score, true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
