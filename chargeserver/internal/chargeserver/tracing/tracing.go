package tracing

import (
	"context"
	"net"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is the server's service.name resource attribute.
const ServiceName = "charge-server"

// Attribute keys, as OpenTelemetry's semantic conventions name them; rpc.service
// and rpc.method are the gRPC convention's pair (service full name, method
// name), which the evidence readers match an rpc by.
const (
	KeyServiceName    = "service.name"
	KeyMethod         = "http.request.method"
	KeyRoute          = "http.route"
	KeyStatus         = "http.response.status_code"
	KeyPath           = "url.path"
	KeyUserAgent      = "user_agent.original"
	KeyClientAddress  = "client.address"
	KeyRPCSystem      = "rpc.system"
	KeyRPCService     = "rpc.service"
	KeyRPCMethod      = "rpc.method"
	KeyGRPCStatusCode = "rpc.grpc.status_code"
	KeyConnectError   = "rpc.connect_rpc.error_code"
	// KeyConsumer is who called: the account the request's API key belongs
	// to, the client identity the server knows once it has authenticated.
	KeyConsumer = "enduser.id"
)

// scope names the instrumentation in every span.
const scope = "github.com/contractlint/contractlint/chargeserver/internal/chargeserver/tracing"

// NewProvider samples every request (traffic evidence must count every
// call, whatever a caller's traceparent asks) and batches the spans to exp,
// as service.name ServiceName. Shut it down to flush the last batch.
func NewProvider(exp sdktrace.SpanExporter) *sdktrace.TracerProvider {
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String(KeyServiceName, ServiceName))),
	)
}

// call is what the rpc interceptor tells the HTTP middleware about a request.
type call struct{ rpc bool }

type callKey struct{}

// Handler serves next inside one server span per request, continuing the
// caller's trace when it sends a traceparent. An HTTP request's span is
// named and attributed by its route (the ServeMux pattern it matched) and
// status; a gRPC, gRPC-Web or Connect call's by Interceptor.
func Handler(tp trace.TracerProvider, next http.Handler) http.Handler {
	tr := tp.Tracer(scope)
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{}
		ctx := context.WithValue(prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header)), callKey{}, c)
		attrs := []attribute.KeyValue{attribute.String(KeyMethod, r.Method), attribute.String(KeyPath, r.URL.Path)}
		if ua := r.UserAgent(); ua != "" {
			attrs = append(attrs, attribute.String(KeyUserAgent, ua))
		}
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			attrs = append(attrs, attribute.String(KeyClientAddress, host))
		}
		ctx, span := tr.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		r = r.WithContext(ctx)
		next.ServeHTTP(sw, r)
		if c.rpc {
			// The wire status of a gRPC call is 200 whatever it answered:
			// the rpc's own code, which Interceptor set, is what counts.
			return
		}
		span.SetAttributes(attribute.Int(KeyStatus, sw.status))
		// ServeMux records the pattern it matched on the request it was given.
		if _, route, ok := strings.Cut(r.Pattern, " "); ok {
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String(KeyRoute, route))
		}
		if sw.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.status))
		}
	})
}

// Interceptor names the span of a ChargeService call after its procedure
// and records the rpc system, service, method and status code on it. It does
// nothing outside Handler.
func Interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			res, err := next(ctx, req)
			c, _ := ctx.Value(callKey{}).(*call)
			if c == nil {
				return res, err
			}
			c.rpc = true
			proc := strings.TrimPrefix(req.Spec().Procedure, "/")
			service, method, _ := strings.Cut(proc, "/")
			system := "grpc"
			if req.Peer().Protocol == connect.ProtocolConnect {
				system = "connect_rpc"
			}
			code := connect.CodeOf(err)
			if err == nil {
				code = 0
			}
			span := trace.SpanFromContext(ctx)
			span.SetName(proc)
			span.SetAttributes(attribute.String(KeyRPCSystem, system), attribute.String(KeyRPCService, service),
				attribute.String(KeyRPCMethod, method), attribute.Int(KeyGRPCStatusCode, int(code)))
			if err != nil && system == "connect_rpc" {
				span.SetAttributes(attribute.String(KeyConnectError, code.String()))
			}
			if serverFault(code) {
				span.SetStatus(codes.Error, code.String())
			}
			return res, err
		}
	})
}

// serverFault is a code the semantic conventions count as the server's
// error rather than the caller's.
func serverFault(c connect.Code) bool {
	switch c {
	case connect.CodeUnknown, connect.CodeDeadlineExceeded, connect.CodeUnimplemented,
		connect.CodeInternal, connect.CodeUnavailable, connect.CodeDataLoss:
		return true
	}
	return false
}

// SetConsumer records on the request's span who is calling, once the
// server knows.
func SetConsumer(ctx context.Context, consumer string) {
	trace.SpanFromContext(ctx).SetAttributes(attribute.String(KeyConsumer, consumer))
}

// statusWriter remembers the status written. It passes Flush on (gRPC
// streams its answer) and unwraps for http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(status int) {
	if !w.wrote {
		w.status, w.wrote = status, true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	w.wrote = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
