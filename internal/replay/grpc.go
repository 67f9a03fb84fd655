package replay

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/contractlint/contractlint/internal/probe"
	"github.com/contractlint/contractlint/rules"
)

// A proto contract is replayed against a gRPC or Connect server the way an
// OpenAPI one is against HTTP: every unary method of its services is called
// (methods with side effects only with SideEffects, each with a fresh
// idempotency key), first with no field set but the ones fed from earlier
// answers, then with every field set, or with the --fixtures body; creates
// go first, so a created resource's id feeds the read of it (a string field
// named id or ending in _id takes the last answer's field of that name).
// Each answer is read with the contract's own message types, as a client
// built from it reads it, and a field the contract's answer promises that
// no answer of the run set is reported at the field's line: the server no
// longer sends it. A bool, number or enum field without explicit presence
// is exempt, since its zero value is an answer too and looks unset.

// RPCCall is one planned call.
type RPCCall struct {
	Method  protoreflect.MethodDescriptor
	Variant string
	Msg     *dynamicpb.Message
	// SideEffects: the method is not declared NO_SIDE_EFFECTS or IDEMPOTENT.
	SideEffects bool
}

// RPCSkip is a method the plan leaves out, and why.
type RPCSkip struct {
	Method protoreflect.MethodDescriptor
	Reason string
}

// RPCPlan is every call a run makes, in order.
type RPCPlan struct {
	Calls   []*RPCCall
	Skipped []RPCSkip
}

// NewRPCPlan plans calls for every unary method of the services in files.
func NewRPCPlan(files []protoreflect.FileDescriptor, o Options) (*RPCPlan, error) {
	p := &RPCPlan{}
	var later []*RPCCall
	for _, f := range files {
		svcs := f.Services()
		for i := range svcs.Len() {
			ms := svcs.Get(i).Methods()
			for j := range ms.Len() {
				md := ms.Get(j)
				calls, err := p.plan(md, o)
				if err != nil {
					return nil, err
				}
				for _, c := range calls {
					if c.SideEffects {
						p.Calls = append(p.Calls, c)
					} else {
						later = append(later, c)
					}
				}
			}
		}
	}
	p.Calls = append(p.Calls, later...)
	return p, nil
}

func (p *RPCPlan) plan(md protoreflect.MethodDescriptor, o Options) ([]*RPCCall, error) {
	if md.IsStreamingClient() || md.IsStreamingServer() {
		p.Skipped = append(p.Skipped, RPCSkip{md, "a streaming method; replay calls unary methods"})
		return nil, nil
	}
	effects := sideEffects(md)
	if effects && !o.SideEffects {
		p.Skipped = append(p.Skipped, RPCSkip{md, "it may change state (no idempotency_level NO_SIDE_EFFECTS or IDEMPOTENT); pass --allow-side-effects"})
		return nil, nil
	}
	fx := o.Fixtures[methodName(md)]
	if fx == nil {
		fx = o.Fixtures[string(md.Name())]
	}
	if fx != nil && fx.Body != nil {
		m, err := fixtureMessage(md.Input(), fx.Body)
		if err != nil {
			return nil, fmt.Errorf("--fixtures: %s: %v", methodName(md), err)
		}
		return []*RPCCall{{Method: md, Variant: "fixture", Msg: m, SideEffects: effects}}, nil
	}
	none := dynamicpb.NewMessage(md.Input())
	all := dynamicpb.NewMessage(md.Input())
	fillAll(all, 0)
	return []*RPCCall{
		{Method: md, Variant: "no fields", Msg: none, SideEffects: effects},
		{Method: md, Variant: "all fields", Msg: all, SideEffects: effects},
	}, nil
}

// methodName is "pkg.Service/Method", as in a gRPC path.
func methodName(md protoreflect.MethodDescriptor) string {
	return string(md.Parent().FullName()) + "/" + string(md.Name())
}

func sideEffects(md protoreflect.MethodDescriptor) bool {
	opts, _ := md.Options().(*descriptorpb.MethodOptions)
	lvl := opts.GetIdempotencyLevel()
	return lvl != descriptorpb.MethodOptions_NO_SIDE_EFFECTS && lvl != descriptorpb.MethodOptions_IDEMPOTENT
}

func fixtureMessage(md protoreflect.MessageDescriptor, body any) (*dynamicpb.Message, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("the body is not a %s: %v", md.FullName(), err)
	}
	return m, nil
}

// fillAll sets every field of m to a value of its type; nested messages to a
// depth of 3, one member of each oneof.
func fillAll(m *dynamicpb.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		if o := f.ContainingOneof(); (o != nil && !o.IsSynthetic() && o.Fields().Get(0) != f) || f.IsMap() {
			continue
		}
		if f.Kind() == protoreflect.MessageKind || f.Kind() == protoreflect.GroupKind {
			if depth >= 3 {
				continue
			}
			if f.IsList() {
				l := m.Mutable(f).List()
				e := l.NewElement()
				fillAll(e.Message().Interface().(*dynamicpb.Message), depth+1)
				l.Append(e)
				continue
			}
			fillAll(m.Mutable(f).Message().Interface().(*dynamicpb.Message), depth+1)
			continue
		}
		v := scalarOf(f)
		if f.IsList() {
			m.Mutable(f).List().Append(v)
			continue
		}
		m.Set(f, v)
	}
}

func scalarOf(f protoreflect.FieldDescriptor) protoreflect.Value {
	switch f.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		vs := f.Enum().Values()
		for i := range vs.Len() {
			if vs.Get(i).Number() != 0 {
				return protoreflect.ValueOfEnum(vs.Get(i).Number())
			}
		}
		return protoreflect.ValueOfEnum(0)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString("replay")
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte("replay"))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(1)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(1)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(1)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(1)
	}
	return protoreflect.ValueOfInt64(1)
}

// Write prints the plan, one call a line, then what it leaves out; clean
// makes the contract's names safe for a terminal.
func (p *RPCPlan) Write(w io.Writer, clean func(string) string) {
	for _, c := range p.Calls {
		fmt.Fprintf(w, "  %s (%s)\n", clean(methodName(c.Method)), c.Variant)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  not sent: %s: %s\n", clean(methodName(s.Method)), s.Reason)
	}
}

// RPCReport is what an RPC run found.
type RPCReport struct {
	Findings []rules.Finding
	Sent     int
	// Unreachable is why the first call got no answer; the run stops.
	Unreachable error
}

// rpcRun is one run's state.
type rpcRun struct {
	cfg  *Config
	base string
	grpc bool
	// mem is the last string value every answer field had, by name.
	mem map[string]string
	// seen counts the answers of each message type and, per field, those
	// that set it.
	seen   map[protoreflect.FullName]int
	set    map[protoreflect.FullName]map[protoreflect.FieldNumber]int
	types  map[protoreflect.FullName]protoreflect.MessageDescriptor
	where  func(protoreflect.Descriptor) rules.Location
	report *RPCReport
}

// RunRPC makes the plan's calls against c.Base (a grpc:// or connect://
// URL) within the budgets and checks the answers against the contract;
// where places a descriptor in its file.
func RunRPC(ctx context.Context, p *RPCPlan, c *Config, where func(protoreflect.Descriptor) rules.Location, reg *rules.Registry) *RPCReport {
	ctx, cancel := context.WithTimeout(ctx, c.MaxTime)
	defer cancel()
	rep := &RPCReport{}
	base, grpc, err := probe.RPCBase(c.Base)
	if err != nil {
		rep.Unreachable = err
		return rep
	}
	hc := c.Client
	if hc == nil {
		hc = probe.NewRPCClient(10*time.Second, 2)
	}
	r := &rpcRun{cfg: c, base: base, grpc: grpc, mem: map[string]string{}, seen: map[protoreflect.FullName]int{},
		set: map[protoreflect.FullName]map[protoreflect.FieldNumber]int{}, types: map[protoreflect.FullName]protoreflect.MessageDescriptor{},
		where: where, report: rep}
	pacer := &runner{cfg: c, now: c.now, after: c.after}
	if pacer.now == nil {
		pacer.now, pacer.after = time.Now, time.After
	}
	for _, s := range p.Skipped {
		r.finding(reg, rules.ReplayNotSent, s.Method, fmt.Sprintf("%s: not sent: %s", methodName(s.Method), s.Reason))
	}
	for i, call := range p.Calls {
		if rep.Sent >= c.MaxRequests || !pacer.wait(ctx) {
			r.finding(reg, rules.ReplayNotSent, call.Method, fmt.Sprintf("%s: not sent: the request cap or the time cap was reached", methodName(call.Method)))
			continue
		}
		rep.Sent++
		err := r.call(ctx, hc, call, reg)
		if err != nil && i == 0 {
			rep.Unreachable = err
			return rep
		}
	}
	r.unset(reg)
	rules.SortFindings(rep.Findings)
	return rep
}

// call makes one call; the error is set only when no answer came.
func (r *rpcRun) call(ctx context.Context, hc *http.Client, c *RPCCall, reg *rules.Registry) error {
	msg := c.Msg.New().Interface().(*dynamicpb.Message)
	protoMerge(msg, c.Msg)
	r.feed(msg)
	req := connect.NewRequest(msg)
	for k, vs := range r.cfg.Header {
		req.Header()[k] = vs
	}
	if c.SideEffects {
		key := "replay-" + rand.Text()
		if f := msg.Descriptor().Fields().ByName("idempotency_key"); f != nil && f.Kind() == protoreflect.StringKind && !f.IsList() {
			msg.Set(f, protoreflect.ValueOfString(key))
		} else {
			req.Header().Set("Idempotency-Key", key)
		}
	}
	res, err := probe.DynamicClient(hc, r.base, c.Method, r.grpc).CallUnary(ctx, req)
	name := fmt.Sprintf("%s (%s)", methodName(c.Method), c.Variant)
	var ce *connect.Error
	switch {
	case err == nil:
		r.learn(res.Msg)
		return nil
	case !errors.As(err, &ce) || !connect.IsWireError(ce):
		r.finding(reg, rules.ReplayNoAnswer, c.Method, fmt.Sprintf("%s got no answer: %v", name, err))
		return err
	case ce.Code() == connect.CodeUnimplemented:
		r.finding(reg, rules.ReplayResponseInvalid, c.Method, fmt.Sprintf("%s was answered UNIMPLEMENTED: the server no longer has a method the contract promises", name))
	default:
		r.finding(reg, rules.ReplayRequestRejected, c.Method, fmt.Sprintf("%s was answered %s: %s", name, strings.ToUpper(ce.Code().String()), ce.Message()))
	}
	return nil
}

func protoMerge(dst, src *dynamicpb.Message) {
	src.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dst.Set(f, v)
		return true
	})
}

// feed sets each string id field (id, *_id) to the value an earlier answer
// gave a field of that name.
func (r *rpcRun) feed(m *dynamicpb.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		name := string(f.Name())
		if f.Kind() != protoreflect.StringKind || f.IsList() || (name != "id" && !strings.HasSuffix(name, "_id")) {
			continue
		}
		if v, ok := r.mem[name]; ok {
			m.Set(f, protoreflect.ValueOfString(v))
		}
	}
}

// learn records which fields an answer set, through its nested messages,
// and the string values of its top-level fields.
func (r *rpcRun) learn(m protoreflect.Message) {
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if f.Kind() == protoreflect.StringKind && !f.IsList() {
			r.mem[string(f.Name())] = v.String()
		}
		return true
	})
	r.observe(m)
}

func (r *rpcRun) observe(m protoreflect.Message) {
	d := m.Descriptor()
	r.seen[d.FullName()]++
	r.types[d.FullName()] = d
	if r.set[d.FullName()] == nil {
		r.set[d.FullName()] = map[protoreflect.FieldNumber]int{}
	}
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		r.set[d.FullName()][f.Number()]++
		switch {
		case f.IsMap():
		case f.IsList() && f.Message() != nil:
			for i := range v.List().Len() {
				r.observe(v.List().Get(i).Message())
			}
		case f.Message() != nil:
			r.observe(v.Message())
		}
		return true
	})
}

// unset reports every field of an answered message type that no answer set.
func (r *rpcRun) unset(reg *rules.Registry) {
	names := make([]protoreflect.FullName, 0, len(r.types))
	for n := range r.types {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		d := r.types[n]
		fields := d.Fields()
		for i := range fields.Len() {
			f := fields.Get(i)
			if r.set[n][f.Number()] > 0 || zeroIsAnAnswer(f) || (f.ContainingOneof() != nil && !f.ContainingOneof().IsSynthetic()) {
				continue
			}
			r.findingAt(reg, rules.ReplayResponseInvalid, r.where(f), string(n), fmt.Sprintf(
				"%s.%s (field %d) was set in none of the %d answers of the run that carried a %s: the server no longer "+
					"sends a field the contract promises, and a client built from it reads the default for it",
				d.Name(), f.Name(), f.Number(), r.seen[n], d.Name()))
		}
	}
}

// zeroIsAnAnswer: a bool, number or enum without explicit presence is
// unset on the wire whenever its value is the zero one.
func zeroIsAnAnswer(f protoreflect.FieldDescriptor) bool {
	if f.HasPresence() || f.IsList() || f.IsMap() {
		return false
	}
	switch f.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	}
	return true
}

func (r *rpcRun) finding(reg *rules.Registry, id string, md protoreflect.MethodDescriptor, msg string) {
	r.findingAt(reg, id, r.where(md), methodName(md), msg)
}

func (r *rpcRun) findingAt(reg *rules.Registry, id string, at rules.Location, op, msg string) {
	for _, f := range r.report.Findings {
		if f.Rule == id && f.Where == at && f.Message == msg {
			return
		}
	}
	f := rules.Finding{Rule: id, Severity: rules.Error, Message: msg, Where: at, Operations: []string{op}, Format: rules.Proto}
	if rule, ok := reg.Get(id); ok {
		f.Severity = rule.Severity
	}
	r.report.Findings = append(r.report.Findings, f)
}
