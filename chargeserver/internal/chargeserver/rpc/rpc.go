// Package rpc serves charges.proto's ChargeService over gRPC, gRPC-Web and
// Connect (one connect-go handler answers all three) on the charge server's
// own mux and port.
//
// Every call is translated into the HTTP API's request and run through the
// HTTP handler itself, so the two APIs cannot drift apart: the same
// authentication, rate limit, validation, fingerprint, claim, store and
// metrics. A charge made over gRPC is claimed under the same scope (account,
// "POST /v1/charges", key) and with the same fingerprint (the canonical JSON
// of the same four fields) as over HTTP, so a retry is a replay whichever
// protocol it uses. The HTTP answer is then translated back: a charge, or a
// status code with google.rpc.ErrorInfo (the problem's code as reason) and,
// where the HTTP answer says when to retry, google.rpc.RetryInfo.
package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/types/known/durationpb"

	chargesv1 "github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/api/chargesv1/chargesv1connect"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/idem"
	"github.com/contractlint/contractlint/chargeserver/internal/chargeserver/tracing"
)

// Metadata the service reads and writes, beside authorization.
const (
	// KeyMetadata carries the idempotency key when the request field does not.
	KeyMetadata = "Idempotency-Key"
	// ReplayMetadata is "true" on a stored answer given again: a trailer of a
	// charge, error metadata of a stored refusal.
	ReplayMetadata = "Idempotent-Replay"
	// probeDelay is the HTTP API's test control (--allow-probe-delay), passed
	// through both ways.
	probeDelay = "X-Probe-Delay"
)

// ErrorDomain is google.rpc.ErrorInfo's domain on every error.
const ErrorDomain = "contractlint.charges.v1"

// ReasonKeyConflict is the ErrorInfo reason when the request field and the
// idempotency-key metadata name different keys.
const ReasonKeyConflict = "IDEMPOTENCY_KEY_CONFLICT"

// maxMessage matches the HTTP API's body limit.
const maxMessage = 64 << 10

// Mount serves ChargeService, and gRPC server reflection for it (v1 and
// v1alpha, so grpcurl and buf curl need no proto file), on mux. api is the
// HTTP API every call is run through.
func Mount(mux *http.ServeMux, api http.Handler) {
	mux.Handle(chargesv1connect.NewChargeServiceHandler(&service{api: api}, connect.WithReadMaxBytes(maxMessage),
		connect.WithInterceptors(tracing.Interceptor())))
	reflector := grpcreflect.NewStaticReflector(chargesv1connect.ChargeServiceName)
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector))
}

type service struct {
	api http.Handler
}

var _ chargesv1connect.ChargeServiceHandler = (*service)(nil)

// createBody is the HTTP API's request body. proto3 cannot tell an empty
// description from none, so an empty one is left out, as an HTTP client
// that has none leaves it out.
type createBody struct {
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	CardToken   string `json:"card_token"`
	Description string `json:"description,omitempty"`
}

func (s *service) CreateCharge(ctx context.Context, req *connect.Request[chargesv1.CreateChargeRequest]) (*connect.Response[chargesv1.Charge], error) {
	m := req.Msg
	h := s.headers(req.Header())
	keys, err := idempotencyKeys(m.GetIdempotencyKey(), req.Header())
	if err != nil {
		return nil, err
	}
	if keys != nil {
		h[KeyMetadata] = keys
	}
	if v := req.Header().Values(probeDelay); len(v) > 0 {
		h[probeDelay] = v
	}
	h.Set("Content-Type", "application/json")
	body, _ := json.Marshal(createBody{AmountCents: m.GetAmountCents(), Currency: m.GetCurrency(), CardToken: m.GetCardToken(), Description: m.GetDescription()})
	a := s.call(ctx, req.Peer(), http.MethodPost, "/v1/charges", h, body)
	return chargeAnswer(a)
}

// idempotencyKeys is the rule for where the key comes from: the request
// field or the idempotency-key metadata, either one; both only when they
// agree once normalised (idem.NormalizeKey), since neither may silently win
// over the other (a client that sets both and differently has a bug that
// would otherwise claim the wrong key).
// It returns the header values to send, nil for none: several metadata
// values are passed on as they are, for the HTTP API to refuse.
func idempotencyKeys(field string, md http.Header) ([]string, error) {
	vs := md.Values(KeyMetadata)
	switch {
	case field == "":
		return vs, nil
	case len(vs) == 0 || (len(vs) == 1 && idem.NormalizeKey(vs[0]) == idem.NormalizeKey(field)):
		return []string{field}, nil
	}
	return nil, withDetails(connect.NewError(connect.CodeInvalidArgument,
		errors.New("idempotency_key and the idempotency-key metadata name different keys; send one, or both the same")),
		&errdetails.ErrorInfo{Reason: ReasonKeyConflict, Domain: ErrorDomain})
}

func (s *service) GetCharge(ctx context.Context, req *connect.Request[chargesv1.GetChargeRequest]) (*connect.Response[chargesv1.Charge], error) {
	id := req.Msg.GetId()
	if id == "" {
		return nil, withDetails(connect.NewError(connect.CodeInvalidArgument, errors.New("id is required")),
			&errdetails.ErrorInfo{Reason: "INVALID_REQUEST", Domain: ErrorDomain})
	}
	a := s.call(ctx, req.Peer(), http.MethodGet, "/v1/charges/"+url.PathEscape(id), s.headers(req.Header()), nil)
	return chargeAnswer(a)
}

func (s *service) ListCharges(ctx context.Context, req *connect.Request[chargesv1.ListChargesRequest]) (*connect.Response[chargesv1.ListChargesResponse], error) {
	path := "/v1/charges"
	if n := req.Msg.GetLimit(); n != 0 {
		// 0 is proto3's "unset": the HTTP API's default.
		path += "?limit=" + strconv.Itoa(int(n))
	}
	a := s.call(ctx, req.Peer(), http.MethodGet, path, s.headers(req.Header()), nil)
	if a.status != http.StatusOK {
		return nil, a.err()
	}
	var list struct {
		Data    []wireCharge `json:"data"`
		HasMore bool         `json:"has_more"`
	}
	if err := json.Unmarshal(a.body.Bytes(), &list); err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("the charge list could not be read: %v", err))
	}
	out := &chargesv1.ListChargesResponse{HasMore: list.HasMore}
	for _, c := range list.Data {
		out.Data = append(out.Data, c.proto())
	}
	return connect.NewResponse(out), nil
}

// headers are the request headers passed to the HTTP API: the credentials
// only (every value, so two of them are refused there as over HTTP).
func (s *service) headers(md http.Header) http.Header {
	h := http.Header{}
	if v := md.Values("Authorization"); len(v) > 0 {
		h["Authorization"] = v
	}
	return h
}

// call runs one request through the HTTP API in process, from the caller's
// address.
func (s *service) call(ctx context.Context, peer connect.Peer, method, path string, h http.Header, body []byte) *answer {
	r, err := http.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	if err != nil {
		return &answer{status: http.StatusInternalServerError, header: http.Header{}}
	}
	r.Header = h
	r.RemoteAddr = peer.Addr
	a := &answer{header: http.Header{}, status: http.StatusOK}
	s.api.ServeHTTP(a, r)
	return a
}

// answer records the HTTP API's answer (an http.ResponseWriter).
type answer struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(status int) {
	if !a.wrote {
		a.status, a.wrote = status, true
	}
}

func (a *answer) Write(b []byte) (int, error) {
	a.wrote = true
	return a.body.Write(b)
}

func (a *answer) replayed() bool { return strings.EqualFold(a.header.Get(ReplayMetadata), "true") }

// chargeAnswer is a charge, or the error the answer stands for; a replay
// says so in a trailer, and the probe-delay echo comes back as a header.
func chargeAnswer(a *answer) (*connect.Response[chargesv1.Charge], error) {
	if a.status != http.StatusOK && a.status != http.StatusCreated {
		return nil, a.err()
	}
	var c wireCharge
	if err := json.Unmarshal(a.body.Bytes(), &c); err != nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("the charge could not be read: %v", err))
	}
	res := connect.NewResponse(c.proto())
	if a.replayed() {
		res.Trailer().Set(ReplayMetadata, "true")
	}
	if v := a.header.Get(probeDelay); v != "" {
		res.Header().Set(probeDelay, v)
	}
	return res, nil
}

// wireCharge is the HTTP API's Charge.
type wireCharge struct {
	ID          string `json:"id"`
	AmountCents int64  `json:"amount_cents"`
	Currency    string `json:"currency"`
	Description string `json:"description"`
	Status      string `json:"status"`
	CreatedAt   string `json:"created_at"`
}

func (c wireCharge) proto() *chargesv1.Charge {
	status := chargesv1.ChargeStatus_CHARGE_STATUS_UNSPECIFIED
	if c.Status == "succeeded" {
		status = chargesv1.ChargeStatus_CHARGE_STATUS_SUCCEEDED
	}
	return &chargesv1.Charge{Id: c.ID, AmountCents: c.AmountCents, Currency: c.Currency,
		Description: c.Description, Status: status, CreatedAt: c.CreatedAt}
}

// err translates an HTTP error answer: the code from the status, the
// problem's detail as the message, its code (upper case) as ErrorInfo's
// reason with the HTTP status in the metadata, Retry-After as RetryInfo.
func (a *answer) err() error {
	var p struct {
		Detail string `json:"detail"`
		Code   string `json:"code"`
	}
	if json.Unmarshal(a.body.Bytes(), &p) != nil || p.Code == "" {
		p.Code, p.Detail = "http_"+strconv.Itoa(a.status), strings.TrimSpace(a.body.String())
	}
	if p.Detail == "" {
		p.Detail = http.StatusText(a.status)
	}
	e := withDetails(connect.NewError(Code(a.status), errors.New(p.Detail)), &errdetails.ErrorInfo{
		Reason: strings.ToUpper(p.Code), Domain: ErrorDomain, Metadata: map[string]string{"http_status": strconv.Itoa(a.status)}})
	if s, err := strconv.Atoi(a.header.Get("Retry-After")); err == nil && s > 0 {
		if d, err := connect.NewErrorDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(s) * time.Second)}); err == nil {
			e.AddDetail(d)
		}
	}
	if a.replayed() {
		e.Meta().Set(ReplayMetadata, "true")
	}
	if v := a.header.Get(probeDelay); v != "" {
		e.Meta().Set(probeDelay, v)
	}
	return e
}

func withDetails(e *connect.Error, info *errdetails.ErrorInfo) *connect.Error {
	if d, err := connect.NewErrorDetail(info); err == nil {
		e.AddDetail(d)
	}
	return e
}

// Code is the gRPC code for an HTTP API status: the table docs/charge-server.md
// documents. A request in flight is ABORTED (retry after RetryInfo's
// delay); a key reused with another request is FAILED_PRECONDITION, since
// the request is valid and only the key's state refuses it.
func Code(status int) connect.Code {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusRequestHeaderFieldsTooLarge:
		return connect.CodeInvalidArgument
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated
	case http.StatusPaymentRequired, http.StatusUnprocessableEntity:
		return connect.CodeFailedPrecondition
	case http.StatusForbidden:
		return connect.CodePermissionDenied
	case http.StatusNotFound:
		return connect.CodeNotFound
	case http.StatusConflict:
		return connect.CodeAborted
	case http.StatusTooManyRequests:
		return connect.CodeResourceExhausted
	case http.StatusBadGateway:
		return connect.CodeUnknown
	case http.StatusServiceUnavailable:
		return connect.CodeUnavailable
	}
	return connect.CodeInternal
}
