package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// forward is the forward pack: what breaks when a NEW client meets the OLD
// server, during a rolling deploy or after a rollback. It runs under
// --compat forward or full. Its rules are not a reversed diff: a removal
// without deprecation, say, troubles nobody in this direction.
func forward() []*Rule {
	return []*Rule{
		forwardResponseFieldRequired(),
		forwardRequestFieldRejected(),
		forwardRequestFieldMadeOptional(),
		forwardRequestEnumValueAdded(),
		forwardResponseEnumValueRemoved(),
		forwardRequestBoundWidened(),
		forwardTypeChanged(),
		forwardFieldRedefined(),
		forwardOperationAdded(),
	}
}

func forwardResponseFieldRequired() *Rule {
	return onChange(&Rule{
		ID: "forward-response-field-required", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Added, SubjectField, ""}, {Modified, SubjectField, AspectRequired}},
		Doc: Doc{
			Title: "A response field new clients rely on is missing from the old server",
			Text: "A response field added as required, or made required, lets code generated from the new contract rely on it. " +
				"A server still on the old version does not send it, so during a rolling deploy or after a rollback the new client " +
				"reads nothing. Add the field as optional, and make it required once no old server answers.",
			Bad: `Charge:
  required: [id, price_cents]   # price_cents is new
  properties:
    price_cents: {type: integer}`,
			Good: `Charge:
  required: [id]
  properties:
    price_cents: {type: integer}   # optional until every server sends it`,
		},
	}, func(c *Change) (string, bool) {
		added := c.Is(Added, SubjectField) && c.Required
		made := c.Is(Modified, SubjectField) && c.Aspect == AspectRequired && c.Required
		return fmt.Sprintf("a new client that reads %q gets nothing from a server still on the old version, which does not send it; add it as optional until every server does%s",
			c.Name, reach(c)), c.Dir.Has(Response) && (added || made)
	})
}

func forwardRequestFieldRejected() *Rule {
	return requestFieldRejected(&Rule{
		ID: "forward-request-field-rejected", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI, Severity: Error, Mode: DiffRule,
		Reads: []Entry{{Added, SubjectField, ""}},
		Doc: Doc{
			Title: "A new request field is refused by the old server's closed schema",
			Text: "The old request schema is closed (additionalProperties: false), so a server still on the old version rejects a " +
				"request carrying a property it does not know. A new client that sends the new field fails against it during a " +
				"rolling deploy or after a rollback. Keep request schemas open to unknown properties, or have clients send the " +
				"field only once every server accepts it.",
			Bad: `# old
CreateOrder: {type: object, additionalProperties: false, properties: {sku: {type: string}}}
# new
CreateOrder: {type: object, additionalProperties: false, properties: {sku: {type: string}, coupon: {type: string}}}`,
			Good: `# old: open, so an old server ignores what it does not know
CreateOrder: {type: object, properties: {sku: {type: string}}}`,
		},
	})
}

func forwardRequestFieldMadeOptional() *Rule {
	return onChange(&Rule{
		ID: "forward-request-field-made-optional", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectField, AspectRequired}},
		Doc: Doc{
			Title: "A request field the old server requires became optional",
			Text: "Code generated from the new contract may leave the field out; a server still on the old version requires it " +
				"and rejects the request. Make the field optional on every server first, then in the clients.",
			Bad:  `required: [sku, quantity]   ->   required: [sku]`,
			Good: `required: [sku, quantity]   # until every server accepts it missing`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("a new client may leave out %q, which a server still on the old version requires: it rejects the request%s", c.Name, reach(c)),
			c.Dir.Has(Request) && c.Is(Modified, SubjectField) && c.Aspect == AspectRequired && !c.Required
	})
}

func forwardRequestEnumValueAdded() *Rule {
	return onChange(&Rule{
		ID: "forward-request-enum-value-added", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Added, SubjectEnumValue, ""}},
		Doc: Doc{
			Title: "A request enum gained a value the old server rejects",
			Text: "A new client may send the new value; a server still on the old version validates against the old list and " +
				"rejects it. Roll the servers out first, and let clients send the value once every server knows it.",
			Bad:  `status: {type: string, enum: [open, paid]}   ->   enum: [open, paid, refunded]`,
			Good: `# send refunded only once every server accepts it (feature-detect, or roll out servers first)`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("a new client that sends %q is rejected by a server still on the old version, which does not know the value%s", c.Name, reach(c)),
			c.Dir.Has(Request) && c.Is(Added, SubjectEnumValue)
	})
}

func forwardResponseEnumValueRemoved() *Rule {
	return onChange(&Rule{
		ID: "forward-response-enum-value-removed", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI, Severity: Warning,
		Reads: []Entry{{Removed, SubjectEnumValue, ""}},
		Doc: Doc{
			Title: "A response enum lost a value the old server still sends",
			Text: "Code generated from the new contract has no member for the removed value; a server still on the old version " +
				"keeps sending it, and a strict new client fails to decode the response.",
			Bad:  `status: {type: string, enum: [open, paid, pending]}   ->   enum: [open, paid]`,
			Good: `status: {type: string, enum: [open, paid, pending]}   # pending documented as no longer produced`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("a server still on the old version sends %q, which a new client no longer knows%s", c.Name, reach(c)),
			c.Dir.Has(Response) && c.Is(Removed, SubjectEnumValue)
	})
}

func forwardRequestBoundWidened() *Rule {
	return onChange(&Rule{
		ID: "forward-request-bound-widened", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectSchema, AspectMaxItems}, {Modified, SubjectSchema, AspectMaxLength}, {Modified, SubjectSchema, AspectMinLength}, {Modified, SubjectSchema, AspectMinProperties}, {Modified, SubjectSchema, AspectMinimum}},
		Doc: Doc{
			Title: "A request bound the old server enforces was relaxed",
			Text: "A new client may send values inside the new, wider bound that a server still on the old version rejects: a " +
				"maxLength raised or removed, a minimum lowered. Relax the bound on every server first, then let clients use it.",
			Bad:  `name: {type: string, maxLength: 50}   ->   maxLength: 100`,
			Good: `name: {type: string, maxLength: 50}   # raised once every server accepts 100`,
		},
	}, func(c *Change) (string, bool) {
		upper := isAspect(c, AspectMaxLength, AspectMaximum, AspectMaxItems, AspectMaxProperties)
		lower := isAspect(c, AspectMinLength, AspectMinimum, AspectMinItems, AspectMinProperties)
		return fmt.Sprintf("%s of %q in a request relaxed from %s to %s: a server still on the old version rejects what a new client may now send%s",
				c.Aspect, c.Name, orNone(c.Old.Text), orNone(c.New.Text), reach(c)),
			c.Dir.Has(Request) && c.Kind == Modified && (upper || lower) && tighter(c.New.Limit, c.Old.Limit, upper)
	})
}

func forwardTypeChanged() *Rule {
	return onChange(&Rule{
		ID: "forward-type-changed", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI | Proto, Severity: Error,
		Reads: []Entry{{Modified, SubjectField, AspectType}, {Modified, SubjectSchema, AspectType}},
		Doc: Doc{
			Title: "A type changed, so new clients and the old server disagree",
			Text: "A new client sends the new type to a server that still parses the old one, or decodes the old server's " +
				"values as the new type. A type change breaks both directions; add a new field instead.",
			Bad: `price: {type: number}   ->   price: {type: integer}`,
			Good: `price: {type: number}
price_cents: {type: integer}   # a new field`,
		},
	}, func(c *Change) (string, bool) {
		msg := fmt.Sprintf("a new client decodes %q as %s, but a server still on the old version sends %s%s", c.Name, c.New.Text, c.Old.Text, reach(c))
		if c.Dir.Has(Request) {
			msg = fmt.Sprintf("a new client sends %q as %s to a server still on the old version, which expects %s%s", c.Name, c.New.Text, c.Old.Text, reach(c))
		}
		// A reader that accepts more than the writer sends is safe: the
		// new client reading a wider type, the old server accepting one.
		reader, writer := c.New.Types, c.Old.Types
		if c.Dir.Has(Request) {
			reader, writer = c.Old.Types, c.New.Types
		}
		if c.Format == Proto {
			// proto's encodings, not JSON types, decide what each side decodes.
			return msg, c.Is(Modified, SubjectField) && c.Aspect == AspectType && c.OldField != nil && c.NewField != nil &&
				!(wireCompatibleType(c.OldField, c.NewField) && jsonCompatibleType(c.OldField, c.NewField))
		}
		return msg, c.Is(Modified, SubjectSchema) && c.Aspect == AspectType && !accepts(reader, writer)
	})
}

func forwardFieldRedefined() *Rule {
	return onChange(&Rule{
		ID: "forward-field-redefined", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI | Proto, Severity: Error,
		Reads: []Entry{{Modified, SubjectField, ""}},
		// The unit is the news; a type that moved with it is part of the same edit.
		Supersedes: []string{"forward-type-changed"},
		Doc: Doc{
			Title: "A field's unit or scale changed, so new clients and the old server disagree on its numbers",
			Text: "A unit or scale change (dollars to cents, seconds to milliseconds, read as field-redefined reads it) breaks " +
				"both directions. A new client sends 4000 meaning 4000 cents to a server still on the old version, which charges " +
				"$4,000; it reads the old server's 40 (dollars) as 40 cents. Add a new field for the new unit instead.",
			Bad: `price: {type: integer, description: Price in dollars.}   ->   description: Price in cents.`,
			Good: `price: {type: integer, description: Price in dollars.}
price_cents: {type: integer, description: Price in cents.}   # a new field`,
		},
	}, forwardRedefined)
}

func forwardOperationAdded() *Rule {
	return operationAdded(&Rule{
		ID: "forward-operation-added", Pack: ForwardPack, Compat: Forward, Formats: OpenAPI | Proto, Severity: Warning, Mode: DiffRule,
		Reads: []Entry{{Added, SubjectRPC, ""}},
		Doc: Doc{
			Title: "New clients call an operation the old server does not have",
			Text: "A server still on the old version answers a new operation (or rpc) with 404, 405 or UNIMPLEMENTED. New clients " +
				"must handle that while servers roll out, or call it only once every server has it.",
			Bad: `paths:
  /v1/refunds:   # new
    post: ...`,
			Good: `# call POST /v1/refunds behind a flag switched on after the rollout`,
		},
	})
}

// accepts reports whether a reader of JSON types reader takes every value
// of types writer: any (no types) takes everything, number takes integers.
func accepts(reader, writer []string) bool {
	return len(reader) == 0 || slices.Equal(reader, []string{"number"}) && slices.Equal(writer, []string{"integer"})
}

// requestFieldRejected reports request properties added to a schema that
// the OLD version closes: only the old server's schema decides.
func requestFieldRejected(r *Rule) *Rule {
	r.Check = func(in *Input) []Finding {
		if in.Old == nil {
			return nil
		}
		closed := map[string]bool{}
		for _, s := range in.Old.Schemas {
			closed[s.Path] = s.Closed
		}
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			if c.Format&r.Formats == 0 || !c.Is(Added, SubjectField) || !c.Dir.Has(Request) {
				continue
			}
			at := strings.LastIndex(c.Path, "/properties/")
			if at < 0 || !closed[c.Path[:at]] {
				continue
			}
			out = append(out, c.Finding(r, fmt.Sprintf("a new client that sends %q is rejected by a server still on the old version, whose request schema is closed (additionalProperties: false)%s", c.Name, reach(c))))
		}
		return out
	}
	return r
}

// operationAdded reports operations of the new version that the old one
// lacks. OpenAPI's diff lists no added operations, so the two lowered
// contracts are compared; a proto rpc comes as an Added change.
func operationAdded(r *Rule) *Rule {
	r.Check = func(in *Input) []Finding {
		var out []Finding
		for i := range in.Changes {
			if c := &in.Changes[i]; c.Is(Added, SubjectRPC) {
				out = append(out, c.Finding(r, fmt.Sprintf("rpc %s is new: a server still on the old version answers UNIMPLEMENTED to new clients that call it", c.Path)))
			}
		}
		for _, op := range NewOperations(in.Old, in.New) {
			out = append(out, Finding{Rule: r.ID, Severity: r.Severity, Where: op.Loc, Path: op.Path, Format: OpenAPI, Operations: []string{op.ID},
				Message: fmt.Sprintf("operation %s is new: a server still on the old version answers 404 or 405 to new clients that call it", op.ID)})
		}
		return out
	}
	return r
}

// NewOperations lists the OpenAPI operations of new that old does not have.
func NewOperations(old, new *Contract) []*Operation {
	if old == nil || new == nil || new.Format != OpenAPI {
		return nil
	}
	had := make(map[string]bool, len(old.Operations))
	for _, op := range old.Operations {
		had[op.ID] = true
	}
	var out []*Operation
	for _, op := range new.Operations {
		if !had[op.ID] {
			out = append(out, op)
		}
	}
	return out
}

// forwardRedefined reports a field whose unit or scale moved, in the
// direction a new client meets the old server: it sends and reads numbers
// in the new unit while that server keeps the old one.
func forwardRedefined(c *Change) (string, bool) {
	if !c.MeaningChanged() {
		return "", false
	}
	o, n := c.OldField, c.NewField
	dir := c.Dir
	var m meaning
	if c.Format == Proto {
		if o.Name != n.Name {
			return "", false
		}
		m, _, _, _ = protoMeaning(o, n)
		dir = protoDirection(n)
	} else {
		m, _, _, _ = openAPIMeaning(o, n)
	}
	scale := slices.DeleteFunc(m.parts, func(p string) bool {
		return !strings.HasPrefix(p, "unit ") && !strings.HasPrefix(p, "multipleOf ") &&
			!strings.HasPrefix(p, "pattern ") && !strings.HasPrefix(p, "example ")
	})
	if len(scale) == 0 {
		return "", false
	}
	var out []string
	if dir == 0 || dir.Has(Request) {
		out = append(out, "a server still on the old version reads what a new client sends with the old meaning"+m.off(m.growth))
	}
	if dir == 0 || dir.Has(Response) {
		out = append(out, "a new client reads what a server still on the old version sends with the new meaning"+m.off(1/m.growth))
	}
	return fmt.Sprintf("%s: %s: %s%s", cmp.Or(c.Name, n.Name), strings.Join(scale, ", "), strings.Join(out, "; "), reach(c)), true
}

// off says how far each value is read when the scale is known.
func (m *meaning) off(growth float64) string {
	if m.growth == 0 || m.growth == 1 {
		return ""
	}
	return ", every value " + times(growth)
}
