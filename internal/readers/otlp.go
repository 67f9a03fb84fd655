package readers

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OTLP JSON (the collector's file exporter, the SDKs' file exporters) is
// decoded against these structs rather than the collector's pdata: pdata
// unmarshals a whole document from memory, and one document may be the
// whole file; here a document is streamed span by span.

type otlpResource struct {
	Attributes []otlpKV `json:"attributes"`
}

type otlpSpan struct {
	SpanID            string          `json:"spanId"`
	ParentSpanID      string          `json:"parentSpanId"`
	Name              string          `json:"name"`
	Kind              json.RawMessage `json:"kind"`
	StartTimeUnixNano json.RawMessage `json:"startTimeUnixNano"`
	Attributes        []otlpKV        `json:"attributes"`
}

type otlpKV struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// otlpValue is an AnyValue; int64 values are JSON strings in OTLP/JSON but
// numbers in some writers, so both are read.
type otlpValue struct {
	StringValue *string                       `json:"stringValue"`
	IntValue    json.RawMessage               `json:"intValue"`
	ArrayValue  *struct{ Values []otlpValue } `json:"arrayValue"`
}

func (v otlpValue) str() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case len(v.IntValue) > 0:
		return strings.Trim(string(v.IntValue), `"`)
	case v.ArrayValue != nil && len(v.ArrayValue.Values) > 0:
		return v.ArrayValue.Values[0].str()
	}
	return ""
}

type attrs []otlpKV

// get returns the first of keys the attributes hold.
func (a attrs) get(keys ...string) string {
	for _, k := range keys {
		for _, kv := range a {
			if kv.Key == k {
				return kv.Value.str()
			}
		}
	}
	return ""
}

// Span kinds, as OTLP numbers them.
const (
	spanServer = 2
	spanClient = 3
)

// otlpReader reads one OTLP file: server spans are the calls; a client span
// read before the server span it parents names that call's consumer by its
// service.name. A file with no server span (traces of the consumers alone)
// counts its client spans instead.
type otlpReader struct {
	s              *stream
	m              Mapping
	server, client *tally
	// callers maps a client span's id to its service.name; bounded, and
	// emptied when full, so memory does not grow with the file.
	callers map[string]string
	// rpcCalls holds the ids of HTTP server spans of gRPC or Connect calls
	// already counted, whether by themselves or by the rpc span they
	// parent (otelhttp around otelconnect): one call, counted once.
	rpcCalls map[string]bool
}

func readOTLP(s *stream, m Mapping, name string, since time.Time) (*tally, error) {
	r := &otlpReader{s: s, m: m, server: newTally(name, FormatOTLP, since), client: newTally(name, FormatOTLP, since),
		callers: map[string]string{}, rpcCalls: map[string]bool{}}
	for doc := 1; s.more(); doc++ {
		if err := r.document(doc); err != nil {
			return nil, err
		}
	}
	if r.server.cov.Requests == 0 {
		return r.client, nil
	}
	return r.server, nil
}

func (r *otlpReader) document(doc int) error {
	s := r.s
	what := fmt.Sprintf("OTLP document %d", doc)
	return s.object(what, func(key string) error {
		if key != "resourceSpans" {
			return s.skip()
		}
		return s.array(what+": resourceSpans", func() error { return r.resourceSpans(what) })
	})
}

// resourceSpans reads one resource's spans. The resource comes first as
// every writer puts it; spans read before it wait for its service.name.
func (r *otlpReader) resourceSpans(what string) error {
	s := r.s
	var service string
	var seenResource bool
	var pending []otlpSpan
	err := s.object(what+": resourceSpans[]", func(key string) error {
		switch key {
		case "resource":
			var res otlpResource
			if err := s.decode(&res, what+": resource"); err != nil {
				return err
			}
			service, seenResource = attrs(res.Attributes).get("service.name"), true
			for _, sp := range pending {
				r.span(sp, service)
			}
			pending = nil
			return nil
		case "scopeSpans", "instrumentationLibrarySpans":
			return s.array(what+": "+key, func() error {
				return s.object(what+": "+key+"[]", func(key string) error {
					if key != "spans" {
						return s.skip()
					}
					return s.array(what+": spans", func() error {
						var sp otlpSpan
						if err := s.decode(&sp, what+": span"); err != nil {
							return err
						}
						if seenResource {
							r.span(sp, service)
						} else if pending = append(pending, sp); len(pending) > 1<<12 {
							return s.errorf("%s: more than %d spans before their resource; write the resource first", what, 1<<12)
						}
						return nil
					})
				})
			})
		}
		return s.skip()
	})
	for _, sp := range pending {
		r.span(sp, service)
	}
	return err
}

// span counts one span of the resource named service.
func (r *otlpReader) span(sp otlpSpan, service string) {
	a := attrs(sp.Attributes)
	x, ok := r.exchange(sp, a)
	if !ok {
		return
	}
	switch spanKind(sp.Kind) {
	case spanClient:
		if len(r.callers) >= maxKeys {
			clear(r.callers)
		}
		if sp.SpanID != "" {
			r.callers[sp.SpanID] = service
		}
		x.consumer = service
		r.client.add(x)
	case spanServer:
		if r.counted(sp, x) {
			return
		}
		x.consumer = r.callers[sp.ParentSpanID]
		if x.consumer == "" {
			h := strings.ToLower(r.m.header())
			x.consumer = r.m.consumer(a.get("http.request.header."+h, "rpc.grpc.request.metadata."+h,
				"rpc.connect_rpc.request.metadata."+h, headerAttr(r.m.header())))
		}
		r.server.add(x)
	}
}

// counted reports whether a server span is one half of an rpc call the
// other half already counted: the rpc span (rpc.* attributes) and the HTTP
// span around it (a POST to /pkg.Service/Method) that parents it.
func (r *otlpReader) counted(sp otlpSpan, x exchange) bool {
	var key string
	switch {
	case x.rpc != "":
		key = sp.ParentSpanID
	case rpcOfPath(x.method, x.path) != "":
		key = sp.SpanID
	}
	if key == "" {
		return false
	}
	if r.rpcCalls[key] {
		return true
	}
	if len(r.rpcCalls) >= maxKeys {
		clear(r.rpcCalls)
	}
	r.rpcCalls[key] = true
	return false
}

// headerAttr is the attribute a header is also recorded under by the
// semantic conventions (User-Agent: user_agent.original).
func headerAttr(h string) string {
	if strings.EqualFold(h, "User-Agent") {
		return "user_agent.original"
	}
	return ""
}

// exchange reads a span's call: an rpc (rpc.service, rpc.method), or an
// HTTP request by its route (http.route) or path; ok is false for a span
// that is neither (a database query, an internal step).
func (r *otlpReader) exchange(sp otlpSpan, a attrs) (exchange, bool) {
	x := exchange{at: unixNano(sp.StartTimeUnixNano)}
	status := a.get("http.response.status_code", "http.status_code")
	if n, err := strconv.Atoi(status); err == nil {
		x.status = n
		x.refused = n >= 400 && n < 500
	}
	if svc, m := a.get("rpc.service"), a.get("rpc.method"); svc != "" && m != "" {
		x.rpc = svc + "." + m
		if code, err := strconv.ParseInt(a.get("rpc.grpc.status_code"), 10, 64); err == nil && refusedGRPC[code] {
			x.refused = true
		}
		if refusedConnect[a.get("rpc.connect_rpc.error_code")] {
			x.refused = true
		}
		return x, true
	}
	x.method = strings.ToUpper(a.get("http.request.method", "http.method"))
	x.path = a.get("http.route")
	if x.path == "" {
		x.path = a.get("url.path", "http.target")
	}
	if x.path == "" {
		if u, err := url.Parse(a.get("url.full", "http.url")); err == nil {
			x.path = u.EscapedPath()
		}
	}
	if x.method == "" || x.path == "" {
		// Some instrumentations name the span "GET /v1/charges" and set little else.
		m, p, ok := strings.Cut(sp.Name, " ")
		if !ok || !strings.HasPrefix(p, "/") {
			return x, false
		}
		x.method, x.path = strings.ToUpper(m), p
	}
	return x, true
}

// spanKind reads a kind written as a number (OTLP/JSON) or a name.
func spanKind(raw json.RawMessage) int {
	s := strings.Trim(string(raw), `"`)
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	switch s {
	case "SPAN_KIND_SERVER":
		return spanServer
	case "SPAN_KIND_CLIENT":
		return spanClient
	}
	return 0
}

func unixNano(raw json.RawMessage) time.Time {
	n, err := strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
