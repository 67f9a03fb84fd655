// Package tracing records the charge server's traffic as OpenTelemetry
// spans: one server span per request, HTTP or gRPC/Connect, written as OTLP
// JSON to a file in the format the OpenTelemetry collector's file exporter
// writes, so the evidence readers (contractlint --readers) can be fed the
// server's own traffic.
package tracing

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// FileExporter writes each batch of spans as one line of OTLP JSON
// (`{"resourceSpans":[...]}`), as the collector's file exporter does: a
// reader can stream the file a line at a time, and a crash loses at most
// the batch being written. The encoding is pdata's, the collector's own.
type FileExporter struct {
	mu sync.Mutex
	w  io.WriteCloser
	m  ptrace.JSONMarshaler
}

var _ sdktrace.SpanExporter = (*FileExporter)(nil)

// OpenFile appends to the file at path, creating it readable by its owner
// only: a span carries client addresses and account ids.
func OpenFile(path string) (*FileExporter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trace file: %w", err)
	}
	return &FileExporter{w: f}, nil
}

// ExportSpans writes spans as one OTLP JSON document and a newline.
func (e *FileExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	b, err := e.m.MarshalTraces(Traces(spans))
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.w == nil {
		return nil
	}
	_, err = e.w.Write(append(b, '\n'))
	return err
}

// Shutdown closes the file; later batches are dropped.
func (e *FileExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.w == nil {
		return nil
	}
	err := e.w.Close()
	e.w = nil
	return err
}

// Traces converts SDK spans to OTLP's data model: one resourceSpans per
// resource, one scopeSpans per instrumentation scope within it, in the order
// the spans came.
func Traces(spans []sdktrace.ReadOnlySpan) ptrace.Traces {
	td := ptrace.NewTraces()
	type scopeKey struct {
		res                   attribute.Distinct
		name, version, schema string
	}
	resources := map[attribute.Distinct]ptrace.ResourceSpans{}
	scopes := map[scopeKey]ptrace.ScopeSpans{}
	for _, s := range spans {
		res := s.Resource()
		rk := res.Equivalent()
		rs, ok := resources[rk]
		if !ok {
			rs = td.ResourceSpans().AppendEmpty()
			rs.SetSchemaUrl(res.SchemaURL())
			putAttrs(rs.Resource().Attributes(), res.Attributes())
			resources[rk] = rs
		}
		is := s.InstrumentationScope()
		sk := scopeKey{rk, is.Name, is.Version, is.SchemaURL}
		ss, ok := scopes[sk]
		if !ok {
			ss = rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(is.Name)
			ss.Scope().SetVersion(is.Version)
			ss.SetSchemaUrl(is.SchemaURL)
			scopes[sk] = ss
		}
		putSpan(ss.Spans().AppendEmpty(), s)
	}
	return td
}

func putSpan(sp ptrace.Span, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	sp.SetTraceID(pcommon.TraceID(sc.TraceID()))
	sp.SetSpanID(pcommon.SpanID(sc.SpanID()))
	sp.TraceState().FromRaw(sc.TraceState().String())
	if p := s.Parent(); p.IsValid() {
		sp.SetParentSpanID(pcommon.SpanID(p.SpanID()))
	}
	sp.SetName(s.Name())
	sp.SetKind(spanKind(s.SpanKind()))
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(s.StartTime()))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(s.EndTime()))
	putAttrs(sp.Attributes(), s.Attributes())
	sp.SetDroppedAttributesCount(uint32(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		e := sp.Events().AppendEmpty()
		e.SetName(ev.Name)
		e.SetTimestamp(pcommon.NewTimestampFromTime(ev.Time))
		putAttrs(e.Attributes(), ev.Attributes)
	}
	st := s.Status()
	switch st.Code {
	case codes.Error:
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage(st.Description)
	case codes.Ok:
		sp.Status().SetCode(ptrace.StatusCodeOk)
	}
}

func spanKind(k trace.SpanKind) ptrace.SpanKind {
	switch k {
	case trace.SpanKindServer:
		return ptrace.SpanKindServer
	case trace.SpanKindClient:
		return ptrace.SpanKindClient
	case trace.SpanKindProducer:
		return ptrace.SpanKindProducer
	case trace.SpanKindConsumer:
		return ptrace.SpanKindConsumer
	case trace.SpanKindInternal:
		return ptrace.SpanKindInternal
	}
	return ptrace.SpanKindUnspecified
}

func putAttrs(m pcommon.Map, kvs []attribute.KeyValue) {
	m.EnsureCapacity(len(kvs))
	for _, kv := range kvs {
		putValue(m.PutEmpty(string(kv.Key)), kv.Value)
	}
}

func putValue(v pcommon.Value, a attribute.Value) {
	switch a.Type() {
	case attribute.BOOL:
		v.SetBool(a.AsBool())
	case attribute.INT64:
		v.SetInt(a.AsInt64())
	case attribute.FLOAT64:
		v.SetDouble(a.AsFloat64())
	case attribute.STRING:
		v.SetStr(a.AsString())
	case attribute.BOOLSLICE:
		s := v.SetEmptySlice()
		for _, b := range a.AsBoolSlice() {
			s.AppendEmpty().SetBool(b)
		}
	case attribute.INT64SLICE:
		s := v.SetEmptySlice()
		for _, n := range a.AsInt64Slice() {
			s.AppendEmpty().SetInt(n)
		}
	case attribute.FLOAT64SLICE:
		s := v.SetEmptySlice()
		for _, f := range a.AsFloat64Slice() {
			s.AppendEmpty().SetDouble(f)
		}
	case attribute.STRINGSLICE:
		s := v.SetEmptySlice()
		for _, str := range a.AsStringSlice() {
			s.AppendEmpty().SetStr(str)
		}
	default:
		v.SetStr(a.String())
	}
}
