package readers

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The formats an evidence file is read as, told apart by content.
const (
	FormatPact      = "pact"
	FormatUsage     = "usage"
	FormatHAR       = "har"
	FormatOTLP      = "otlp"
	FormatAccessLog = "access-log"
)

// Traffic reports whether an entry comes from recorded traffic (HAR, OTLP
// traces, access logs) rather than a consumer contract or a usage export.
func (e Entry) Traffic() bool {
	return e.Format == FormatHAR || e.Format == FormatOTLP || e.Format == FormatAccessLog
}

// Side says which body of an exchange a traffic entry's field was seen in.
type Side int

const (
	// Response fields: the server sent them; traffic cannot tell whether the
	// consumer read them (only a consumer contract can).
	Response Side = iota
	// Request fields: the consumer sent them.
	Request
)

func (s Side) String() string {
	if s == Request {
		return "request"
	}
	return "response"
}

// Coverage is what one traffic file spans: the time of its first and last
// exchange, how many exchanges it holds (refused ones, 4xx, counted apart),
// and from how many consumers. It is what lets "no call" mean something:
// traffic that starts after the window's start does not cover it.
type Coverage struct {
	File      string
	Format    string
	First     time.Time
	Last      time.Time
	Requests  int64
	Refused   int64
	Consumers []string
	// Recent counts the requests at or after the window's start, and
	// RecentConsumers who sent them; all of them when no window was given.
	Recent          int64
	RecentConsumers []string
	// Dropped counts distinct calls not kept once a file held maxKeys of
	// them; a warning names it, and the evidence is then incomplete.
	Dropped int64
}

// Mapping says how traffic names its consumers and, for JSON access logs,
// which field holds what (config readers.consumer and readers.log).
type Mapping struct {
	// Header names the request header that identifies a consumer in HAR
	// files and traces (http.request.header.<name>); User-Agent by default.
	Header string
	// KeyPrefix, when above 0, keeps only the first KeyPrefix characters of
	// the header's value (after an auth scheme such as "Bearer "): an API
	// key's public prefix names its client without leaking the key.
	KeyPrefix int
	// Log maps the roles of an access-log line to its field names; a role
	// left empty is looked up under its usual nginx and Envoy names.
	Log LogFields
}

// LogFields names the fields of a JSON access-log line. Each may be a
// dotted path into nested objects.
type LogFields struct {
	Time, Method, Path, Status, Consumer, Body string
}

// header is the consumer header, User-Agent by default.
func (m Mapping) header() string {
	if m.Header == "" {
		return "User-Agent"
	}
	return m.Header
}

// consumer turns a header value into a consumer name.
func (m Mapping) consumer(v string) string {
	v = strings.TrimSpace(v)
	if m.KeyPrefix <= 0 {
		return v
	}
	if scheme, rest, ok := strings.Cut(v, " "); ok && !strings.ContainsAny(scheme, "=:") {
		v = strings.TrimSpace(rest) // "Bearer sk_live_..." -> "sk_live_..."
	}
	if r := []rune(v); len(r) > m.KeyPrefix {
		return string(r[:m.KeyPrefix])
	}
	return v
}

// Unknown names the consumer of traffic that carries no consumer name.
const Unknown = "(unknown)"

// maxKeys bounds the distinct calls one traffic file may hold, so memory
// stays bounded whatever the file's size: paths are folded to templates as
// they are read (see foldPath), so a real API stays far below it.
const maxKeys = 1 << 16

// call is one kind of exchange, the unit traffic is counted in: who called
// what, and which field it carried.
type call struct {
	consumer     string
	method, path string
	rpc          string
	field        string
	side         Side
}

// tally is a traffic file's evidence as it is read: a count and the first
// and last time of each distinct call. Exchanges are not kept.
type tally struct {
	name, format string
	// since is the window's start: exchanges from it on are recent.
	since             time.Time
	calls             map[call]*seen
	cov               Coverage
	consumers, recent map[string]bool
}

type seen struct {
	n, recent   int64
	first, last time.Time
}

func newTally(name, format string, since time.Time) *tally {
	return &tally{name: name, format: format, since: since, calls: map[call]*seen{},
		consumers: map[string]bool{}, recent: map[string]bool{}, cov: Coverage{File: name, Format: format}}
}

// exchange is one request and its response, as a traffic reader saw it.
type exchange struct {
	at           time.Time
	consumer     string
	method, path string // path: concrete, or a route template
	rpc          string // pkg.Service.Method
	status       int    // HTTP status; 0 when unknown
	refused      bool   // a client error: 4xx, or a gRPC/Connect code meaning one
	request      any    // decoded JSON request body, nil when none
	response     any    // decoded JSON response body, nil when none
}

// add counts one exchange. A refused exchange (4xx) counts toward the
// file's requests but not as use of what it refused.
func (t *tally) add(x exchange) {
	if x.consumer == "" {
		x.consumer = Unknown
	}
	if x.method == "" && x.path == "" && x.rpc == "" {
		return
	}
	t.cov.Requests++
	t.consumers[x.consumer] = true
	if !x.at.Before(t.since) {
		t.cov.Recent++
		t.recent[x.consumer] = true
	}
	if !x.at.IsZero() {
		if t.cov.First.IsZero() || x.at.Before(t.cov.First) {
			t.cov.First = x.at
		}
		if x.at.After(t.cov.Last) {
			t.cov.Last = x.at
		}
	}
	if x.refused {
		t.cov.Refused++
		return
	}
	if x.rpc == "" && x.method != "" {
		x.rpc = rpcOfPath(x.method, x.path)
	}
	base := call{consumer: x.consumer, method: strings.ToUpper(x.method), path: foldPath(x.path), rpc: x.rpc}
	t.count(base, x.at)
	for _, b := range []struct {
		v    any
		side Side
	}{{x.request, Request}, {x.response, Response}} {
		var fields []string
		walkBody(b.v, "", func(p string) { fields = append(fields, p) })
		slices.Sort(fields)
		for _, f := range slices.Compact(fields) {
			c := base
			c.field, c.side = f, b.side
			t.count(c, x.at)
		}
	}
}

func (t *tally) count(c call, at time.Time) {
	s, ok := t.calls[c]
	if !ok {
		if len(t.calls) >= maxKeys {
			t.cov.Dropped++
			return
		}
		s = &seen{first: at, last: at}
		t.calls[c] = s
	}
	s.n++
	if !at.Before(t.since) {
		s.recent++
	}
	if at.Before(s.first) {
		s.first = at
	}
	if at.After(s.last) {
		s.last = at
	}
}

// entries lists what the file showed, in a stable order, and its coverage.
func (t *tally) entries(warn func(string)) ([]Entry, Coverage) {
	out := make([]Entry, 0, len(t.calls))
	for c, s := range t.calls {
		out = append(out, Entry{Consumer: c.consumer, Method: c.method, Path: c.path, RPC: c.rpc,
			Field: c.field, Side: c.side, Reads: s.n, Recent: s.recent, FirstSeen: s.first, LastSeen: s.last,
			Format: t.format, File: t.name, Where: where(c)})
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Consumer, b.Consumer), cmp.Compare(a.Where, b.Where),
			cmp.Compare(a.Side, b.Side), cmp.Compare(a.Field, b.Field))
	})
	t.cov.Consumers, t.cov.RecentConsumers = sortedKeys(t.consumers), sortedKeys(t.recent)
	if t.cov.Dropped > 0 {
		warn(fmt.Sprintf("%s: more than %d distinct calls; %d exchanges past them were not counted, so the evidence is incomplete",
			t.name, maxKeys, t.cov.Dropped))
	}
	return out, t.cov
}

func where(c call) string {
	if c.method != "" {
		return c.method + " " + c.path
	}
	return "rpc " + c.rpc
}

// rpcPath is a gRPC or Connect path: /pkg.Service/Method.
var rpcPath = regexp.MustCompile(`^/([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)/([A-Za-z_][A-Za-z0-9_]*)$`)

// rpcOfPath names the rpc a POST (gRPC, Connect unary) or GET (Connect
// GET) to a /pkg.Service/Method path calls; "" for any other request.
func rpcOfPath(method, path string) string {
	if method != "POST" && method != "GET" {
		return ""
	}
	path, _, _ = strings.Cut(path, "?")
	m := rpcPath.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	return m[1] + "." + m[2]
}

// foldPath drops the query and folds a segment that can only be a value
// (one holding a digit, other than a version such as v1 or v2beta) to
// "{}", so a file of a million charges keeps one call per consumer, not
// one per charge id. "{}" matches any template segment, literal or not.
func foldPath(p string) string {
	p, _, _ = strings.Cut(p, "?")
	p, _, _ = strings.Cut(p, "#")
	if rpcPath.MatchString(p) {
		return p
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":") && len(s) > 1: // a route written :id (Express, Gin)
			segs[i] = "{}"
		case strings.ContainsAny(s, "0123456789") && !version.MatchString(s) && !isParam(s):
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

var version = regexp.MustCompile(`^v[0-9]+([a-z]+[0-9]*)?$`)

// refusedGRPC lists the gRPC status codes that, like an HTTP 4xx, refuse a
// call the client got wrong: INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS,
// PERMISSION_DENIED, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED,
// UNAUTHENTICATED.
var refusedGRPC = map[int64]bool{3: true, 5: true, 6: true, 7: true, 9: true, 11: true, 12: true, 16: true}

// refusedConnect lists the same codes by their Connect names.
var refusedConnect = map[string]bool{"invalid_argument": true, "not_found": true, "already_exists": true,
	"permission_denied": true, "failed_precondition": true, "out_of_range": true, "unimplemented": true,
	"unauthenticated": true}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
