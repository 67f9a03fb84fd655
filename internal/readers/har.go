package readers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// harEntry is the part of a HAR 1.2 entry (log.entries[]) that says who
// called what with which body.
type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int         `json:"status"`
		Headers []harHeader `json:"headers"`
		Content struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// readHAR streams a HAR file's log.entries, one entry at a time.
func readHAR(s *stream, m Mapping, t *tally) error {
	return s.object("HAR file", func(key string) error {
		if key != "log" {
			return s.skip()
		}
		return s.object("HAR log", func(key string) error {
			if key != "entries" {
				return s.skip()
			}
			i := 0
			return s.array("HAR log.entries", func() error {
				i++
				var e harEntry
				if err := s.decode(&e, fmt.Sprintf("HAR entry %d", i)); err != nil {
					return err
				}
				x, err := e.exchange(m)
				if err != nil {
					return s.errorf("HAR entry %d: %v", i, err)
				}
				t.add(x)
				return nil
			})
		})
	})
}

func (e *harEntry) exchange(m Mapping) (exchange, error) {
	var x exchange
	if e.Request.Method == "" || e.Request.URL == "" {
		return x, fmt.Errorf("request has no method or url")
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return x, fmt.Errorf("request url %q: %v", e.Request.URL, err)
	}
	at, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	if err != nil {
		return x, fmt.Errorf("startedDateTime %q: want an ISO 8601 time", e.StartedDateTime)
	}
	x = exchange{at: at, method: strings.ToUpper(e.Request.Method), path: u.EscapedPath(),
		consumer: m.consumer(headerValue(e.Request.Headers, m.header())), status: e.Response.Status,
		refused: e.Response.Status >= 400 && e.Response.Status < 500}
	if x.path == "" {
		x.path = "/"
	}
	if grpcStatus := headerValue(e.Response.Headers, "grpc-status"); grpcStatus != "" {
		var code int64
		if _, err := fmt.Sscan(grpcStatus, &code); err == nil && refusedGRPC[code] {
			x.refused = true
		}
	}
	if p := e.Request.PostData; p != nil {
		x.request = jsonBody(p.MimeType, p.Text, "")
	}
	c := e.Response.Content
	x.response = jsonBody(c.MimeType, c.Text, c.Encoding)
	return x, nil
}

// jsonBody decodes a recorded body when its type is JSON; nil otherwise (a
// body of another type has no fields).
func jsonBody(mime, text, encoding string) any {
	if text == "" || !strings.Contains(strings.ToLower(mime), "json") {
		return nil
	}
	if strings.EqualFold(encoding, "base64") {
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil
		}
		text = string(b)
	}
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return nil
	}
	return v
}
