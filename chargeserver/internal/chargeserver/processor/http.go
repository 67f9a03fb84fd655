package processor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Handler serves a Ledger over HTTP (the `charge-server processor` service):
//
//	POST /v1/processor/charges       charge (idempotent on "key")
//	GET  /v1/processor/charges       the table, for reconciliation
//	PUT  /v1/processor/test/faults   replace injected faults (test API)
func Handler(l *Ledger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/processor/charges", func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || req.Key == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		res, err := l.Charge(r.Context(), req)
		switch {
		case errors.Is(err, ErrRejected):
			// A 4xx is the definite "not charged" a client may store.
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		case err != nil:
			http.Error(w, "processor failure", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, res)
	})
	mux.HandleFunc("GET /v1/processor/charges", func(w http.ResponseWriter, r *http.Request) {
		recs, _ := l.Records(r.Context())
		writeJSON(w, recs)
	})
	mux.HandleFunc("PUT /v1/processor/test/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<12)).Decode(&f); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		l.SetFaults(f)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Client is a Processor reached over HTTP.
type Client struct {
	base string
	http *http.Client
}

// NewClient talks to the processor service at base (e.g. http://host:port).
func NewClient(base string, timeout time.Duration) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &Client{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: timeout, Transport: tr}}
}

// Charge asks the service. Its answers split three ways: a result (done); a
// 4xx, ErrRejected (definitely not charged); anything else, a transport
// error, a timeout or a 5xx, ErrUnavailable, because the charge may have
// happened and only asking again with the same key can tell.
func (c *Client) Charge(ctx context.Context, req Request) (Result, error) {
	body, _ := json.Marshal(req)
	var res Result
	err := c.do(ctx, http.MethodPost, "/v1/processor/charges", body, &res)
	var st statusError
	switch {
	case errors.As(err, &st) && st.code/100 == 4:
		return Result{}, fmt.Errorf("%w: %v", ErrRejected, err)
	case err != nil:
		return Result{}, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return res, nil
}

// statusError is a non-2xx answer from the service.
type statusError struct {
	code   int
	status string
}

func (e statusError) Error() string { return e.status }

// Records fetches the service's table.
func (c *Client) Records(ctx context.Context) ([]Record, error) {
	var recs []Record
	err := c.do(ctx, http.MethodGet, "/v1/processor/charges", nil, &recs)
	return recs, err
}

// SetFaults sets the service's injected faults.
func (c *Client) SetFaults(ctx context.Context, f Faults) error {
	body, _ := json.Marshal(f)
	return c.do(ctx, http.MethodPut, "/v1/processor/test/faults", body, nil)
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return statusError{code: resp.StatusCode, status: resp.Status}
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
