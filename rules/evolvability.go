package rules

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// evolvability is the pack of single-contract designs that make the next
// change a breaking one.
func evolvability() []*Rule {
	return []*Rule{
		moneyAsFloat(), responseSchemaClosed(), responseEnumClosed(), mediaTypeVersionWithoutVary(),
		updateWithoutPrecondition(), postWithClientID(), fieldNumberGapReserved(),
	}
}

// nameWords splits snake_case, kebab-case and camelCase into lower-case words.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case r >= 'A' && r <= 'Z' && i > 0 && len(cur) > 0 && !(cur[len(cur)-1] >= 'A' && cur[len(cur)-1] <= 'Z'):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// moneyNames are the words that make a field name mean money.
var moneyNames = []string{"price", "prices", "amount", "amounts", "cost", "costs", "fee", "fees",
	"subtotal", "balance", "tax", "refund", "payout", "money", "salary", "revenue", "tip"}

// pairedMoneyNames mean money only beside a currency or a money unit (in the
// name, the unit, or the description): total_usd is money, and
// total_metric_value a measurement.
var pairedMoneyNames = []string{"total", "totals", "charge", "value", "sum"}

// notMoney are name suffixes that say the value is integral (minor units),
// a proportion rather than an amount (application_fee_percent), or a
// statistic about money rather than money (cost_micros_p_value, tax_share).
var notMoney = []string{"cents", "minor", "micros", "pennies", "percent", "percentage", "pct", "rate", "ratio",
	"factor", "multiplier", "bps", "count", "score", "share", "fraction", "pvalue"}

// moneyDescRE finds money in a description; narrower than the name list,
// since "total number of retries" is not money.
var moneyDescRE = regexp.MustCompile(`(?i)\b(price|cost|fee|money|monetary|currency|dollars?|euros?|pounds sterling)\b`)

func isMoney(f *Field) bool {
	words := nameWords(f.Name)
	if len(words) == 0 || slices.Contains(notMoney, words[len(words)-1]) {
		return false
	}
	if n := len(words); n >= 2 && words[n-2] == "p" && words[n-1] == "value" {
		return false // p_value: a statistic's significance
	}
	paired := false
	for _, w := range words {
		if slices.Contains(moneyNames, w) {
			return true
		}
		paired = paired || slices.Contains(pairedMoneyNames, w)
	}
	return moneyDescRE.MatchString(f.Description) || paired && statesMoney(f, words)
}

func isFloat(c *Contract, f *Field) bool {
	if c.Format == Proto {
		return f.Type == "double" || f.Type == "float"
	}
	// A multipleOf that is a whole number makes the number an integer.
	integral := f.MultipleOf > 0 && f.MultipleOf == math.Trunc(f.MultipleOf)
	return f.Type == "number" && !integral
}

func moneyAsFloat() *Rule {
	return lintEach(&Rule{
		ID: "money-as-float", Pack: Evolvability, Formats: OpenAPI | Proto, Severity: Warning,
		Doc: Doc{
			Title: "A money field is a floating-point number",
			Text: "Binary floating point cannot hold 0.10 exactly, so sums and conversions drift by a cent " +
				"here and there. Teams find out late and then \"fix\" the field by changing its type or its " +
				"unit in place, which every existing client reads with the old meaning: the price that was " +
				"40.00 becomes 4000. A field whose name or description says money (price, amount, cost, fee, " +
				"balance, ...; total, value or charge only beside a currency or money unit: total_usd, " +
				"not total_metric_value) should be integer minor units (price_cents) or a decimal string from " +
				"the start; names ending in _cents or _minor are already integral and are not flagged.",
			Bad: "price: {type: number, description: Price in dollars}",
			Good: `price_cents: {type: integer, description: Price in cents}
currency: {type: string}`,
		},
	}, fields, func(c *Contract, f *Field) *issue {
		if !isFloat(c, f) || !isMoney(f) { // the type test is cheap; most fields are not numbers
			return nil
		}
		return &issue{at: f.Loc, path: f.Path, msg: fmt.Sprintf(
			"%s looks like money but is a floating-point %s, which cannot hold cents exactly; add an "+
				"integer field in minor units (%s_cents) or a decimal string instead of redefining this one later",
			f.Name, f.Type, f.Name)}
	})
}

func responseSchemaClosed() *Rule {
	return lintEach(&Rule{
		ID: "response-schema-closed", Pack: Evolvability, Formats: OpenAPI, Severity: Warning,
		Doc: Doc{
			Title: "A response schema forbids additional properties",
			Text: "Clients generated from a response schema with additionalProperties: false (or " +
				"unevaluatedProperties: false) reject any property they do not know, so adding a field to " +
				"the response, the one change that should always be safe, breaks them. Leave response " +
				"schemas open; request schemas may be closed, since the server is the one reading them.",
			Bad: `Charge:
  type: object
  additionalProperties: false
  properties: {id: {type: string}}`,
			Good: `Charge:
  type: object
  properties: {id: {type: string}}`,
		},
	}, schemas, func(c *Contract, s *Schema) *issue {
		if !s.Closed || !s.Dir.Has(Response) {
			return nil
		}
		where := s.ClosedLoc
		if where.IsZero() {
			where = s.Loc
		}
		return &issue{at: where, path: s.Path, msg: fmt.Sprintf(
			"%s is returned to clients and forbids additional properties: clients built from it will "+
				"reject every field added later; leave response schemas open", s.Path)}
	})
}

func responseEnumClosed() *Rule {
	return lintEach(&Rule{
		ID: "response-enum-closed", Pack: Evolvability, Formats: OpenAPI | Proto, Severity: Info, Off: true,
		Doc: Doc{
			Title: "A response enum gives clients no way to handle values added later",
			Text: "A client that switches over a response enum fails on the first value it has never seen, " +
				"so adding a status becomes a breaking change. Say in the contract how clients treat unknown " +
				"values: mark the schema x-extensible-enum or write that unknown values may appear and how to " +
				"handle them. A proto enum's zero value, the one an unset field reads as and the natural fallback " +
				"for numbers a client does not know, should be named *_UNSPECIFIED so it means \"unknown\", not a real state. " +
				"Off by default: many APIs deliberately keep enums closed.",
			Bad: `status: {type: string, enum: [pending, succeeded, failed]}
enum Status { STATUS_PENDING = 0; STATUS_SUCCEEDED = 1; }`,
			Good: `status:
  type: string
  enum: [pending, succeeded, failed]
  description: New values may be added; treat unknown values as pending.
enum Status { STATUS_UNSPECIFIED = 0; STATUS_PENDING = 1; STATUS_SUCCEEDED = 2; }`,
		},
	}, schemas, func(c *Contract, s *Schema) *issue {
		if len(s.Enum) == 0 || s.EnumExtensible || !s.Dir.Has(Response) {
			return nil
		}
		msg := fmt.Sprintf("the enum at %s does not say how clients treat values added later, so adding one "+
			"breaks them; mark it x-extensible-enum or document that unknown values may appear", s.Path)
		if c.Format == Proto {
			msg = fmt.Sprintf("enum %s has no zero value named *_UNSPECIFIED: clients have no value meaning "+
				"\"unknown\" for values added later, and an unset field reads as %s, a real state; "+
				"declare %s_UNSPECIFIED = 0 first", s.Path, s.Enum[0], upperSnake(s.Path))
		}
		return &issue{at: s.Loc, path: s.Path, msg: msg}
	})
}

// upperSnake is the conventional value prefix of an enum: Status -> STATUS,
// pkg.PaymentState -> PAYMENT_STATE.
func upperSnake(full string) string {
	return strings.ToUpper(strings.Join(nameWords(full[strings.LastIndexByte(full, '.')+1:]), "_"))
}

// versionedTypeRE matches a media type that carries an API version:
// application/vnd.acme.v2+json or application/json; version=2.
var versionedTypeRE = regexp.MustCompile(`(?i)^application/vnd\.[^;]*\bv\d+\b|;\s*v(ersion)?=`)

// versionSelector names the request header that selects op's representation:
// Accept for a versioned media type, or a version header parameter.
func versionSelector(op *Operation) string {
	for _, p := range op.Params {
		if p.In == "header" && strings.Contains(strings.ToLower(p.Name), "version") {
			return p.Name
		}
	}
	for _, mt := range op.MediaTypes {
		if versionedTypeRE.MatchString(mt) {
			return "Accept"
		}
	}
	return ""
}

func mediaTypeVersionWithoutVary() *Rule {
	return lintOps(&Rule{
		ID: "media-type-version-without-vary", Pack: Evolvability, Formats: OpenAPI, Severity: Warning,
		Doc: Doc{
			Title: "A versioned representation is served without Vary naming what selects it",
			Text: "When the version of a response is chosen by a request header (a versioned media type in " +
				"Accept, or an API-Version header), a cache between client and server must know that the " +
				"response depends on that header; otherwise it serves the body it cached for one version to " +
				"clients of the other. Every success response documents a Vary header that names the " +
				"selecting header.",
			Bad: `get:
  responses:
    '200':
      content: {application/vnd.acme.v2+json: {}}`,
			Good: `get:
  responses:
    '200':
      headers:
        Vary: {description: Accept, schema: {type: string}}
      content: {application/vnd.acme.v2+json: {}}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		sel := versionSelector(op)
		if sel == "" {
			return nil
		}
		for _, res := range op.Responses {
			if !strings.HasPrefix(res.Status, "2") {
				continue
			}
			if !res.hasHeader("Vary") || !strings.Contains(strings.ToLower(res.Vary), strings.ToLower(sel)) {
				return &issue{at: res.Loc, msg: fmt.Sprintf(
					"%s chooses its representation by %s, but its %s response does not document a Vary header "+
						"naming %s; caches would serve one version's body to the other version's clients",
					op.ID, sel, res.Status, sel)}
			}
		}
		return nil
	})
}

// resource is the path item an operation belongs to: its path without the method.
func resource(op *Operation) string {
	return op.Path[:max(strings.LastIndex(op.Path, "/"), 0)]
}

func updateWithoutPrecondition() *Rule {
	r := &Rule{
		ID: "update-without-precondition", Pack: Evolvability, Formats: OpenAPI, Severity: Info,
		Doc: Doc{
			Title: "An update ignores the ETag its resource publishes",
			Text: "When GET returns an ETag but PUT or PATCH neither accepts If-Match nor documents 412 " +
				"Precondition Failed, two clients that read the same version and both write it back " +
				"silently overwrite each other's change. Accept If-Match on updates and document the 412 " +
				"that a stale write gets; adding that later is a new required precondition, which breaks " +
				"clients.",
			Bad: `put:
  responses: {'200': {description: updated}}`,
			Good: `put:
  parameters: [{name: If-Match, in: header, schema: {type: string}}]
  responses: {'200': {description: updated}, '412': {description: stale ETag}}`,
		},
	}
	return lintContract(r, func(c *Contract) []Finding {
		tagged := map[string]bool{}
		for _, op := range c.Operations {
			if op.Method == "GET" && slices.ContainsFunc(op.Responses, func(r *OpResponse) bool { return r.hasHeader("ETag") }) {
				tagged[resource(op)] = true
			}
		}
		var out []Finding
		for _, op := range c.Operations {
			if (op.Method != "PUT" && op.Method != "PATCH") || !tagged[resource(op)] || op.response("412") != nil ||
				slices.ContainsFunc(op.Params, func(p *Param) bool { return p.In == "header" && strings.EqualFold(p.Name, "If-Match") }) {
				continue
			}
			out = append(out, opFinding(r, c, op, issue{msg: fmt.Sprintf(
				"%s updates a resource whose GET returns an ETag, but it neither accepts If-Match nor "+
					"documents 412, so concurrent writers overwrite each other; accept If-Match and document 412",
				op.ID)}))
		}
		return out
	})
}

// createdName is the singular of a collection path's last fixed segment:
// POST /v1/charges creates a charge.
func createdName(op *Operation) string {
	_, p, _ := strings.Cut(op.ID, " ")
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if s == "" || strings.HasPrefix(s, "{") {
			continue
		}
		switch {
		case strings.HasSuffix(s, "ies"):
			return s[:len(s)-3] + "y"
		case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss"):
			return s[:len(s)-1]
		}
		return s
	}
	return ""
}

// clientID reports whether a request field names the resource being created.
func clientID(f *Field, created string) bool {
	w := nameWords(f.Name)
	switch {
	case len(w) == 1:
		return w[0] == "id" || w[0] == "uuid"
	case len(w) == 2 && (w[1] == "id" || w[1] == "uuid"):
		return created != "" && strings.EqualFold(w[0], strings.ReplaceAll(created, "-", ""))
	}
	return false
}

func postWithClientID() *Rule {
	return lintOps(&Rule{
		ID: "post-with-client-id", Pack: Evolvability, Formats: OpenAPI, Severity: Info,
		Doc: Doc{
			Title: "A POST carries the client-generated id of the resource it creates",
			Text: "When the client already chooses the new resource's identifier, the operation can be a " +
				"PUT to that identifier: idempotent by definition, so a retry cannot create a second " +
				"resource and no idempotency key is needed. Keeping it a POST means the server has to " +
				"deduplicate on the id by hand, and clients cannot tell from the contract that it does.",
			Bad: `post /v1/charges:
  requestBody: {properties: {id: {type: string}, amount_cents: {type: integer}}}`,
			Good: `put /v1/charges/{id}:
  requestBody: {properties: {amount_cents: {type: integer}}}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		if op.Method != "POST" {
			return nil
		}
		created := createdName(op)
		for _, f := range op.RequestFields {
			if clientID(f, created) {
				return &issue{at: f.Loc, msg: fmt.Sprintf(
					"%s takes the new resource's id (%s) from the client; make it a PUT to that id, which is "+
						"idempotent by definition", op.ID, f.Name)}
			}
		}
		return nil
	})
}

func fieldNumberGapReserved() *Rule {
	return lintEach(&Rule{
		ID: "field-number-gap-reserved", Pack: Evolvability, Formats: Proto, Severity: Info,
		Doc: Doc{
			Title: "A message skips field numbers without reserving them",
			Text: "A number missing from a message's sequence is usually a field that was deleted without " +
				"reserving it. Nothing stops the next author from reusing that number for a new field, and " +
				"then old clients and stored data decode the new field with the old one's meaning. Reserve " +
				"every number (and name) a deleted field used. A message whose numbers are hashed or " +
				"sparse by design (the highest at least 10,000 and fewer than one field per hundred " +
				"numbers below it) has gaps that were never fields, and is not reported.",
			Bad: `message Charge {
  string id = 1;
  int64 amount_cents = 3;
}`,
			Good: `message Charge {
  reserved 2;
  reserved "price";
  string id = 1;
  int64 amount_cents = 3;
}`,
		},
	}, messages, func(c *Contract, m *Message) *issue {
		gaps := strings.Join(unreservedGaps(m), ", ")
		if gaps == "" || sparse(m) {
			return nil
		}
		return &issue{at: m.Loc, path: m.Name, msg: fmt.Sprintf(
			"message %s skips field number %s without reserving it; a later field could reuse it with "+
				"another meaning; add reserved %s", m.Name, gaps, gaps)}
	})
}

// unreservedGaps lists the runs of numbers below a message's highest field
// number that no field uses and no reserved range covers ("2", "5 to 7").
// It walks intervals, not numbers: field numbers go up to 2^29.
func unreservedGaps(m *Message) []string {
	var taken [][2]int32
	var top int32
	for _, f := range m.Fields {
		taken = append(taken, [2]int32{f.Number, f.Number})
		top = max(top, f.Number)
	}
	taken = append(taken, m.ReservedRange...)
	slices.SortFunc(taken, func(a, b [2]int32) int { return int(a[0]) - int(b[0]) })
	var out []string
	next := int32(1) // lowest number not yet known to be taken
	for _, r := range taken {
		if r[0] > top {
			break
		}
		if r[0] > next {
			out = append(out, span(next, r[0]-1))
		}
		next = max(next, r[1]+1)
	}
	return out
}

// sparseTop and sparseRatio say when numbering is hashed or sparse by
// design (compute's field numbers are hashes in the tens of millions): the
// highest number is large and the fields use under one in a hundred numbers
// below it. Gaps there were never fields.
const (
	sparseTop   = 10000
	sparseRatio = 100
)

func sparse(m *Message) bool {
	var top int32
	for _, f := range m.Fields {
		top = max(top, f.Number)
	}
	return top >= sparseTop && int64(len(m.Fields))*sparseRatio < int64(top)
}

func span(a, b int32) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d to %d", a, b)
}
