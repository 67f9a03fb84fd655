package readers

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// defaultLogFields are the names each role is looked up under when the
// mapping leaves it empty: nginx's variable names (as a log_format with
// escape=json writes them), Envoy's usual json_format keys, and plain ones.
var defaultLogFields = map[string][]string{
	"time":     {"time", "time_iso8601", "start_time", "timestamp", "@timestamp", "msec"},
	"method":   {"method", "request_method"},
	"path":     {"path", "request_uri", "uri", "url"},
	"status":   {"status", "response_code", "status_code"},
	"consumer": {"consumer", "client", "http_user_agent", "user_agent"},
	"body":     {"request_body", "body"},
}

// readAccessLog reads a JSON access log: one object per line.
func readAccessLog(s *stream, m Mapping, t *tally) error {
	for line := 1; s.more(); line++ {
		var rec map[string]any
		what := fmt.Sprintf("access-log record %d", line)
		if err := s.decode(&rec, what); err != nil {
			return err
		}
		x, err := logExchange(rec, m.Log)
		if err != nil {
			return s.errorf("%s: %v", what, err)
		}
		t.add(x)
	}
	return nil
}

func logExchange(rec map[string]any, f LogFields) (exchange, error) {
	get := func(role, named string) (any, string) {
		names := defaultLogFields[role]
		if named != "" {
			names = []string{named}
		}
		for _, n := range names {
			if v, ok := lookup(rec, n); ok && v != nil && v != "" && v != "-" {
				return v, n
			}
		}
		return nil, strings.Join(names, " or ")
	}
	var x exchange
	method, _ := get("method", f.Method)
	path, pathNames := get("path", f.Path)
	x.method, _ = method.(string)
	x.path, _ = path.(string)
	if x.method == "" && f.Method == "" {
		// nginx's $request: "POST /v1/charges HTTP/1.1"
		if req, ok := rec["request"].(string); ok {
			if parts := strings.Fields(req); len(parts) >= 2 {
				x.method, x.path = parts[0], parts[1]
			}
		}
	}
	if x.path == "" {
		return x, fmt.Errorf("no request path (looked for %s); map it with readers.log.path", pathNames)
	}
	if x.method == "" {
		return x, fmt.Errorf("no request method; map it with readers.log.method")
	}
	x.method = strings.ToUpper(x.method)
	if v, names := get("time", f.Time); v != nil {
		at, err := logTime(v)
		if err != nil {
			return x, fmt.Errorf("%s: %v", names, err)
		}
		x.at = at
	}
	if v, _ := get("status", f.Status); v != nil {
		n, err := strconv.Atoi(strings.TrimSpace(fmt.Sprint(v)))
		if err == nil {
			x.status, x.refused = n, n >= 400 && n < 500
		}
	}
	if v, _ := get("consumer", f.Consumer); v != nil {
		x.consumer = fmt.Sprint(v)
	}
	if v, _ := get("body", f.Body); v != nil {
		if s, ok := v.(string); ok {
			x.request = jsonBody("application/json", s, "")
		} else {
			x.request = v // a log that nests the body as JSON
		}
	}
	return x, nil
}

// lookup reads a field by its name, or by a dotted path into nested objects.
func lookup(rec map[string]any, name string) (any, bool) {
	if v, ok := rec[name]; ok {
		return v, true
	}
	head, rest, ok := strings.Cut(name, ".")
	if !ok {
		return nil, false
	}
	inner, isObj := rec[head].(map[string]any)
	if !isObj {
		return nil, false
	}
	return lookup(inner, rest)
}

// logTime reads an ISO 8601 time (nginx $time_iso8601, Envoy
// %START_TIME%), nginx's $time_local, or seconds since the epoch ($msec).
func logTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case json.Number:
		return epoch(x.String())
	case float64:
		return epoch(strconv.FormatFloat(x, 'f', -1, 64))
	case string:
		for _, layout := range []string{time.RFC3339Nano, "02/Jan/2006:15:04:05 -0700", "2006-01-02T15:04:05.000Z0700"} {
			if t, err := time.Parse(layout, x); err == nil {
				return t.UTC(), nil
			}
		}
		if t, err := epoch(x); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %v: want ISO 8601, nginx's $time_local or seconds since the epoch", v)
}

func epoch(s string) (time.Time, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1e11 {
		return time.Time{}, fmt.Errorf("not a time")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}
