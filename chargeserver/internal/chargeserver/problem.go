package chargeserver

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// problem is an RFC 9457 body with a stable code clients can switch on.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	Code   string `json:"code"`
}

func newProblem(status int, code, detail string) problem {
	return problem{Type: "urn:contractlint:problem:" + code, Title: http.StatusText(status), Status: status, Detail: detail, Code: code}
}

func (p problem) body() []byte {
	b, _ := json.Marshal(p)
	return b
}

// writeProblem answers with p; retryAfter > 0 adds Retry-After in seconds.
func writeProblem(w http.ResponseWriter, p problem, retryAfter int) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	writeBody(w, p.Status, p.body())
}

// writeBody writes a stored or fresh answer; the content type follows from
// the status so stored answers need not keep it.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	ct := "application/json"
	if status >= 400 {
		ct = "application/problem+json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	writeBody(w, status, b)
}
