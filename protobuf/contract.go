package protobuf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/rules"
)

// keyMarker in a field's leading comment names the request's idempotency key.
const keyMarker = "contractlint:idempotency-key"

// ignoreDirective starts an inline ignore in a leading comment.
const ignoreDirective = "contractlint:ignore"

// Contract lowers the tree for single-contract rules.
func (t *Tree) Contract() *rules.Contract {
	c := &rules.Contract{Format: rules.Proto}
	for _, s := range sortedValues(t.Services) {
		for _, r := range s.RPCs {
			c.Operations = append(c.Operations, t.operation(r))
		}
	}
	for _, m := range sortedValues(t.Messages) {
		if m.MapEntry {
			continue
		}
		msg := &rules.Message{Name: m.Name, Loc: m.Loc, ReservedRange: m.ReservedRanges, ReservedNames: m.ReservedNames}
		for _, f := range m.Fields {
			fa := facts(f)
			msg.Fields = append(msg.Fields, fa)
			c.Fields = append(c.Fields, fa)
		}
		c.Messages = append(c.Messages, msg)
	}
	for _, x := range sortedValues(t.Extensions) {
		c.Fields = append(c.Fields, facts(x))
	}
	for _, e := range sortedValues(t.Enums) {
		c.Schemas = append(c.Schemas, enumSchema(e))
	}
	c.Ignores, _ = t.ignores()
	c.Versions = t.versions()
	return c
}

// versions are the versions the tree's packages declare by their suffix,
// one for each package, at the first file that declares it.
func (t *Tree) versions() []rules.DeclaredVersion {
	var out []rules.DeclaredVersion
	for _, f := range sortedValues(t.Files) {
		d, ok := rules.PackageVersion(f.Package, f.PackageLoc)
		if ok && !slices.ContainsFunc(out, func(x rules.DeclaredVersion) bool { return x.Package == d.Package }) {
			out = append(out, d)
		}
	}
	return out
}

// enumSchema is an enum as the schema rules see it. Any message may carry
// it either way, so it counts for both directions. It is extensible when
// its zero value is named *_UNSPECIFIED: readers that meet a number they do
// not know see the zero value, which then says "unknown" instead of a real state.
func enumSchema(e *Enum) *rules.Schema {
	s := &rules.Schema{Path: e.Name, Loc: e.Loc, Dir: rules.Request | rules.Response}
	for _, v := range e.Values {
		s.Enum = append(s.Enum, v.Short)
		if v.Number == 0 && strings.HasSuffix(v.Short, "_UNSPECIFIED") {
			s.EnumExtensible = true
		}
	}
	return s
}

func (t *Tree) operation(r *RPC) *rules.Operation {
	op := &rules.Operation{ID: r.Name, Path: r.Name, Loc: r.Loc, Description: r.Comment, Binding: r.HTTPMethod,
		Idempotent: r.Idempotency == "NO_SIDE_EFFECTS" || r.Idempotency == "IDEMPOTENT"}
	in := t.Messages[r.Input]
	if in == nil {
		return op // a request type from an import (such as google.protobuf.Empty) has no key
	}
	for _, f := range in.Fields {
		op.RequestFields = append(op.RequestFields, facts(f))
		if op.Key == nil && isKey(f) {
			// A key field is required only when the contract says so: a
			// plain proto3 field is optional on the wire, whatever its name.
			op.Key = &rules.Param{Name: f.Short, In: "field", Required: f.Required(), Type: f.Type, MaxLength: -1,
				Loc: f.Loc, Path: f.Name, Description: f.Comment}
		}
	}
	return op
}

// isKey reports whether a request field carries the idempotency key: by its
// conventional name, or marked in its leading comment.
func isKey(f *Field) bool {
	if f.Card == CardRepeated || f.Card == CardMap || f.Type != "string" {
		return false
	}
	return f.Short == "idempotency_key" || f.Short == "request_id" || strings.Contains(f.Comment, keyMarker)
}

// ignores collects the inline ignores of every message, field, enum,
// service, rpc and extension; an ignore without a rule or a reason is an
// input error.
func (t *Tree) ignores() ([]rules.Ignore, source.Problems) {
	var out []rules.Ignore
	var probs source.Problems
	for _, e := range t.declared() {
		igs, ps := e.ignores()
		out, probs = append(out, igs...), append(probs, ps...)
	}
	slices.SortStableFunc(out, func(a, b rules.Ignore) int { return strings.Compare(a.Scope, b.Scope) })
	return out, probs
}

// declared lists the elements that can carry a leading comment, in name
// order, each message followed by its fields and each service by its rpcs.
func (t *Tree) declared() []*Elem {
	var out []*Elem
	for _, m := range sortedValues(t.Messages) {
		out = appendElems(append(out, &m.Elem), m.Fields)
	}
	out = appendElems(out, sortedValues(t.Enums))
	for _, s := range sortedValues(t.Services) {
		out = appendElems(append(out, &s.Elem), s.RPCs)
	}
	return appendElems(out, sortedValues(t.Extensions))
}

func appendElems[T declared](out []*Elem, xs []T) []*Elem {
	for _, x := range xs {
		out = append(out, x.elem())
	}
	return out
}

// ignores reads the contractlint:ignore lines of e's comment.
func (e *Elem) ignores() ([]rules.Ignore, source.Problems) {
	if !strings.Contains(e.Comment, ignoreDirective) {
		return nil, nil
	}
	var out []rules.Ignore
	var probs source.Problems
	for line := range strings.Lines(e.Comment) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), ignoreDirective)
		if !ok {
			continue
		}
		words := strings.Fields(rest)
		// An optional element=NAME after the rule ID narrows the ignore
		// to that field, value or rpc below e (which may be gone); an
		// optional owner=WHO names who answers for it.
		var element, owner string
		for len(words) > 1 {
			if el, ok := strings.CutPrefix(words[1], "element="); ok && element == "" {
				element = el
			} else if who, ok := strings.CutPrefix(words[1], "owner="); ok && owner == "" {
				owner = who
			} else {
				break
			}
			words = slices.Delete(words, 1, 2)
		}
		if len(words) < 2 {
			probs = append(probs, source.Problem{File: e.Loc.File, Line: e.Loc.Line, Column: e.Loc.Column,
				Msg: "contractlint:ignore needs a rule ID and a reason: // contractlint:ignore <rule-id> [element=<name>] [owner=<who>] <reason>"})
			continue
		}
		reason := strings.Join(words[1:], " ")
		if rules.PlaceholderReason(reason) {
			probs = append(probs, source.Problem{File: e.Loc.File, Line: e.Loc.Line, Column: e.Loc.Column,
				Msg: fmt.Sprintf("contractlint:ignore %s needs a reason, not the placeholder %q: write why no client breaks", words[0], reason)})
			continue
		}
		out = append(out, rules.Ignore{Rule: words[0], Element: element, Owner: owner, Reason: reason, Scope: e.Name, Loc: e.Loc})
	}
	return out, probs
}
