package probe

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// An RPC target (grpc://HOST:PORT/pkg.Service/Method, or connect://) is
// probed with the same steps as an HTTP endpoint: the request body is the
// same JSON object, read into the method's input message with the protobuf
// JSON mapping; the key goes in the input's idempotency_key field when it
// has one, in the idempotency-key metadata otherwise; --header values are
// sent as metadata. Each answer is judged as the HTTP answer it stands for
// (see statusOf): OK as 200, ABORTED and ALREADY_EXISTS as 409 with
// google.rpc.RetryInfo's delay as Retry-After, FAILED_PRECONDITION (the key
// reused with another request) as 422, INVALID_ARGUMENT (no key) as 400;
// the idempotent-replay and x-probe-delay metadata, headers or trailers,
// count as the HTTP headers of those names.

// RPC schemes: plaintext HTTP/2 (h2c) or TLS, gRPC or the Connect protocol.
var rpcSchemes = map[string]struct {
	http string
	grpc bool
}{
	"grpc": {"http", true}, "grpcs": {"https", true},
	"connect": {"http", false}, "connects": {"https", false},
}

// IsRPC reports whether u names an RPC method rather than an HTTP endpoint.
func IsRPC(u *url.URL) bool {
	_, ok := rpcSchemes[u.Scheme]
	return ok
}

// RPC is a method to probe, its descriptors resolved.
type RPC struct {
	Method protoreflect.MethodDescriptor
	// keyField is the input's idempotency_key field; nil sends the key as
	// metadata.
	keyField protoreflect.FieldDescriptor
	client   *connect.Client[dynamicpb.Message, dynamicpb.Message]
}

// rpcTarget splits grpc://HOST:PORT/pkg.Service/Method into the server's
// base URL, the service and the method.
func rpcTarget(u *url.URL) (base string, service, method protoreflect.FullName, err error) {
	s, ok := rpcSchemes[u.Scheme]
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	if !ok || u.Host == "" || len(parts) != 2 || !protoreflect.FullName(parts[0]).IsValid() || !protoreflect.Name(parts[1]).IsValid() {
		return "", "", "", fmt.Errorf("%q is not grpc://HOST:PORT/package.Service/Method (or grpcs, connect, connects)", u.Redacted())
	}
	return s.http + "://" + u.Host, protoreflect.FullName(parts[0]), protoreflect.FullName(parts[0] + "." + parts[1]), nil
}

// NewRPCClient is the HTTP client of an RPC probe: HTTP/2 only (gRPC needs
// it, and a client speaking HTTP/1 would never try h2c on a plain port), no
// proxy, every phase bounded by timeout.
func NewRPCClient(timeout time.Duration, conns int) *http.Client {
	var protocols http.Protocols
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
		TLSHandshakeTimeout: timeout,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12},
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     30 * time.Second,
		Protocols:           &protocols,
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// ResolveRPC finds u's method with gRPC server reflection (what grpcurl and
// buf curl use), sending header (credentials) with the reflection call, and
// returns the target the probe calls.
func ResolveRPC(ctx context.Context, hc *http.Client, u *url.URL, header http.Header) (*RPC, error) {
	base, service, method, err := rpcTarget(u)
	if err != nil {
		return nil, err
	}
	refl := grpcreflect.NewClient(hc, base)
	stream := refl.NewStream(ctx, grpcreflect.WithRequestHeaders(header))
	defer func() { _, _ = stream.Close() }()
	fds, err := stream.FileContainingSymbol(service)
	if err != nil {
		return nil, fmt.Errorf("server reflection on %s could not describe %s: %v", base, service, err)
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: fds})
	if err != nil {
		return nil, fmt.Errorf("server reflection on %s: %v", base, err)
	}
	d, err := files.FindDescriptorByName(method)
	md, ok := d.(protoreflect.MethodDescriptor)
	if err != nil || !ok {
		return nil, fmt.Errorf("%s has no method %s", service, method.Name())
	}
	return NewRPC(hc, u, md)
}

// NewRPC is the target for md at u, whose descriptors are known.
func NewRPC(hc *http.Client, u *url.URL, md protoreflect.MethodDescriptor) (*RPC, error) {
	base, _, _, err := rpcTarget(u)
	if err != nil {
		return nil, err
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		return nil, fmt.Errorf("%s is a streaming method; the probe calls unary methods", md.FullName())
	}
	r := &RPC{Method: md, client: DynamicClient(hc, base, md, rpcSchemes[u.Scheme].grpc)}
	if f := md.Input().Fields().ByName("idempotency_key"); f != nil && f.Kind() == protoreflect.StringKind && f.Cardinality() != protoreflect.Repeated {
		r.keyField = f
	}
	return r, nil
}

// DynamicClient calls md on the server at base (http:// or https://) with
// messages built from descriptors alone, over gRPC or the Connect protocol.
func DynamicClient(hc *http.Client, base string, md protoreflect.MethodDescriptor, grpc bool) *connect.Client[dynamicpb.Message, dynamicpb.Message] {
	opts := []connect.ClientOption{
		connect.WithSchema(md),
		connect.WithResponseInitializer(func(_ connect.Spec, m any) error {
			*m.(*dynamicpb.Message) = *dynamicpb.NewMessage(md.Output())
			return nil
		}),
	}
	if grpc {
		opts = append(opts, connect.WithGRPC())
	}
	return connect.NewClient[dynamicpb.Message, dynamicpb.Message](hc, base+"/"+string(md.Parent().FullName())+"/"+string(md.Name()), opts...)
}

// RPCBase is the server URL of a grpc://HOST:PORT (or connect://) URL, and
// whether it speaks gRPC.
func RPCBase(u *url.URL) (string, bool, error) {
	s, ok := rpcSchemes[u.Scheme]
	if !ok || u.Host == "" {
		return "", false, fmt.Errorf("%q is not a grpc://, grpcs://, connect:// or connects:// URL", u.Redacted())
	}
	return s.http + "://" + u.Host, s.grpc, nil
}

// input reads a JSON body into the method's input message.
func (r *RPC) input(body []byte) (*dynamicpb.Message, error) {
	m := dynamicpb.NewMessage(r.Method.Input())
	if err := protojson.Unmarshal(body, m); err != nil {
		return nil, fmt.Errorf("the body is not a %s in the protobuf JSON mapping: %v", r.Method.Input().FullName(), err)
	}
	return m, nil
}

// call is one probe request to the method, as a reply the steps judge.
func (r *RPC) call(ctx context.Context, cfg *Config, key string, body []byte, extra http.Header) reply {
	m, err := r.input(body)
	if err != nil {
		return reply{Err: err}
	}
	req := connect.NewRequest(m)
	for k, vs := range cfg.Header {
		req.Header()[k] = vs
	}
	req.Header().Del("Idempotency-Key")
	if key != "" {
		if r.keyField != nil {
			m.Set(r.keyField, protoreflect.ValueOfString(key))
		} else {
			req.Header().Set("Idempotency-Key", key)
		}
	} else if r.keyField != nil {
		m.Clear(r.keyField)
	}
	for k, vs := range extra {
		req.Header()[k] = vs
	}
	res, err := r.client.CallUnary(ctx, req)
	if err != nil {
		return rpcError(err)
	}
	out, err := canonicalJSON(res.Msg)
	h := merged(res.Header(), res.Trailer())
	rep := reply{Status: http.StatusOK, Header: h, Body: out[:min(len(out), kept)], Err: err}
	if err == nil {
		rep.Digest = digest(out)
		if cfg.maxResponse() < int64(len(out)) {
			rep.Err = &tooLarge{limit: cfg.maxResponse()}
		}
	}
	return rep
}

// canonicalJSON is a message in the protobuf JSON mapping with no
// whitespace: protojson varies its spacing on purpose, and two equal
// answers must digest alike.
func canonicalJSON(m *dynamicpb.Message) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func merged(hs ...http.Header) http.Header {
	out := http.Header{}
	for _, h := range hs {
		for k, vs := range h {
			out[k] = append(out[k], vs...)
		}
	}
	return out
}

// rpcError is the reply for an error: the HTTP status it stands for, a
// body naming the code, message and ErrorInfo reason, and RetryInfo as
// Retry-After. A call that reached no server is an error reply.
func rpcError(err error) reply {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return reply{Err: err}
	}
	if !connect.IsWireError(ce) {
		// Made by the client: the server never answered.
		return reply{Err: ce}
	}
	h := merged(ce.Meta())
	doc := map[string]any{"code": ce.Code().String(), "message": ce.Message()}
	for _, d := range ce.Details() {
		v, err := d.Value()
		if err != nil {
			continue
		}
		switch v := v.(type) {
		case *errdetails.ErrorInfo:
			doc["reason"] = v.GetReason()
		case *errdetails.RetryInfo:
			if s := v.GetRetryDelay().AsDuration().Seconds(); s > 0 {
				h.Set("Retry-After", strconv.Itoa(int(math.Ceil(s))))
			}
		}
	}
	b, _ := json.Marshal(doc)
	return reply{Status: statusOf(ce.Code()), Header: h, Body: b, Digest: digest(b)}
}

// statusOf is the HTTP answer a gRPC code stands for in the steps'
// judgement.
func statusOf(c connect.Code) int {
	switch c {
	case connect.CodeAborted, connect.CodeAlreadyExists:
		return http.StatusConflict
	case connect.CodeFailedPrecondition:
		return http.StatusUnprocessableEntity
	case connect.CodeInvalidArgument, connect.CodeOutOfRange:
		return http.StatusBadRequest
	case connect.CodeUnauthenticated:
		return http.StatusUnauthorized
	case connect.CodePermissionDenied:
		return http.StatusForbidden
	case connect.CodeNotFound:
		return http.StatusNotFound
	case connect.CodeResourceExhausted:
		return http.StatusTooManyRequests
	case connect.CodeUnimplemented:
		return http.StatusNotImplemented
	case connect.CodeUnavailable:
		return http.StatusServiceUnavailable
	case connect.CodeDeadlineExceeded:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// validateRPC checks an RPC run: its URL and its body.
func (c *Config) validateRPC() error {
	if c.RPC == nil {
		return nil
	}
	if c.URL == nil || !IsRPC(c.URL) {
		return errors.New("an RPC probe needs a grpc://, grpcs://, connect:// or connects:// URL")
	}
	if c.ChargesURL != nil {
		return errors.New("--charges-endpoint lists charges over HTTP; an RPC probe judges the answers alone")
	}
	if _, err := c.RPC.input(c.Body); err != nil {
		return fmt.Errorf("--body: %v", err)
	}
	return nil
}
