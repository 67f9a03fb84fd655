package rules

import "strings"

// Contract is one version of a contract lowered for single-contract (lint)
// rules. Each format fills what it has; rules never see the documents.
type Contract struct {
	Format     Format
	Operations []*Operation
	// Fields lists every property or message field once, where it is declared.
	Fields   []*Field
	Schemas  []*Schema
	Messages []*Message
	Ignores  []Ignore
	// Invalid lists what the format's own validator finds wrong in a
	// contract that still loaded (contract-invalid reports each).
	Invalid []Invalid
	// Key is the idempotency key declared once for the whole API (OpenAPI's
	// root x-idempotency); every operation that may change state and declares
	// no key of its own takes it as its Key. nil when there is none.
	Key *Param
	// Convention, when a subset load left operations out, is every
	// operation of the whole contract in the order of their places, those
	// left out with no more than the key convention reads of them (ID,
	// Method, Loc, Idempotent, Key's name): the share of the API's
	// operations that take a key is the whole API's. nil when Operations
	// are all there are.
	Convention []*Operation
	// Versions are the versions the contract declares: its info.version, or
	// the major suffix of each versioned proto package (the version gate).
	Versions []DeclaredVersion
}

// Invalid is one validation problem of a contract, where it is.
type Invalid struct {
	Loc Location
	Msg string
}

// Operation is an HTTP operation or an rpc.
type Operation struct {
	ID     string // "POST /v1/charges" or "pkg.Service.Method"
	Method string // upper-case HTTP method; "" for an rpc
	// Binding is an rpc's HTTP verb from (google.api.http); "" when unbound.
	Binding string
	Path    string // element path, for ignores
	Loc     Location
	// Idempotent is true when the contract declares the operation safe to
	// repeat: x-idempotent: true, or idempotency_level NO_SIDE_EFFECTS/IDEMPOTENT.
	Idempotent bool
	// Key is the idempotency key (header or request field); nil when absent.
	Key    *Param
	Params []*Param
	// Description is the operation's own documentation (OpenAPI summary and
	// description; proto the rpc's leading comment).
	Description string
	// Deprecated is OpenAPI's deprecated: true (the changelog lists it).
	Deprecated    bool
	Responses     []*OpResponse
	RequestFields []*Field
	MediaTypes    []string
}

// Param is a request parameter (OpenAPI) or request field used as one (proto).
type Param struct {
	Name      string
	In        string // header, query, path, cookie, field
	Required  bool
	Type      string
	MaxLength int // -1 when unbounded
	Loc       Location
	// Path is where the parameter is declared (the component for a $ref), so
	// an ignore there covers every operation that uses it.
	Path        string
	Description string
}

// OpResponse is one documented status of an operation.
type OpResponse struct {
	Status  string
	Headers []string // canonical header names (textproto.CanonicalMIMEHeaderKey)
	Loc     Location
	// Vary is the text documenting the Vary header (description, example,
	// enum, default), which says the request headers the response varies on.
	Vary string
}

// Schema is an object schema reachable from a request or response.
type Schema struct {
	Path string
	// Title is the schema's own title (OpenAPI): what names a schema that is
	// a whole file of its own, reached by $ref.
	Title  string
	Loc    Location
	Dir    Direction
	Closed bool // additionalProperties: false or unevaluatedProperties: false
	// ClosedLoc is where the schema is closed (the additionalProperties line).
	ClosedLoc Location
	Enum      []string
	// EnumExtensible is true when the schema documents how to treat unknown values.
	EnumExtensible bool
	Fields         []*Field
}

// Message is a proto message, with what the evolvability rules need.
type Message struct {
	Name          string
	Loc           Location
	Fields        []*Field
	ReservedRange [][2]int32 // inclusive ranges
	ReservedNames []string
}

// Ignore is an inline suppression: x-contractlint-ignore (OpenAPI) or a
// `// contractlint:ignore rule-id reason` comment (proto). It covers findings
// whose Path starts with Scope, or, when it names an Element, only that
// element's: the ignore can then sit on the parent of an element the change
// removed without accepting every later change below that parent.
type Ignore struct {
	Rule   string
	Reason string
	Scope  string
	// Element is a name below Scope (a property, field, parameter, value)
	// or a JSON pointer ("#/..."); "" covers all of Scope.
	Element string
	// File is a glob of the files a config ignore covers ("" for all);
	// an inline ignore covers its own contract.
	File string
	// Owner is who answers for an inline ignore when it names one
	// (owner: in OpenAPI, owner= in proto); review falls back to the
	// author of the line.
	Owner string
	Loc   Location
}

// Unexplained lists the inline ignores that give no reason, or only a
// placeholder one (see PlaceholderReason). Loaders turn them into input
// errors: a suppression nobody can review is not accepted.
func (c *Contract) Unexplained() []Ignore {
	var out []Ignore
	for _, ig := range c.Ignores {
		if PlaceholderReason(ig.Reason) {
			out = append(out, ig)
		}
	}
	return out
}

// PlaceholderReason reports whether reason says nothing a reviewer could
// weigh: it is empty, the text the editor's Accept action writes for the
// user to replace ("REASON: ..."), a to-do marker (TODO, FIXME, TBD, XXX,
// WIP) or one of the words typed to get past a gate ("ok", "fine", "n/a",
// "none", "reason", "because", "-", "..."). Every acceptance (an inline
// ignore, a waiver) with such a reason is refused at its line.
func PlaceholderReason(reason string) bool {
	r := strings.ToLower(strings.TrimSpace(reason))
	for _, marker := range []string{"reason:", "todo", "fixme", "tbd", "xxx", "wip"} {
		if strings.HasPrefix(r, marker) {
			return true
		}
	}
	switch strings.TrimRight(r, ".!") {
	case "", "-", "ok", "okay", "fine", "n/a", "na", "none", "reason", "why", "because", "ignore", "ignored", "temp":
		return true
	}
	return false
}
