package rules

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// idempotency is the pack that checks a contract makes retries safe: a
// non-idempotent operation requires a key, and the contract publishes what
// the server does with it.
func idempotency() []*Rule {
	return []*Rule{
		keyMissing(), keyNotAdopted(), rpcKeyMissing(), keyOptional(), keyUnbounded(), conflictUndocumented(),
		mismatchUndocumented(), replayUndocumented(), retentionUndocumented(),
		keyNewlyRequired(), keyMadeRequired(), keyDropped(),
	}
}

// needsKey reports whether repeating op can do something twice: an rpc that
// is not a read, or a POST/PATCH, that the contract does not declare
// idempotent. Lowering marks GET, PUT, DELETE and the like idempotent by
// HTTP's definition.
func needsKey(op *Operation) bool {
	if op.Idempotent {
		return false
	}
	if op.Method == "" {
		return !readRPC(op) && !idempotentRPC(op)
	}
	return op.Method == "POST" || op.Method == "PATCH"
}

// keyRequired reports whether clients must send the key. Proto lowering
// marks a key field required only on an explicit signal: proto2 `required`,
// (google.api.field_behavior) = REQUIRED, a buf.validate or
// protoc-gen-validate required rule.
func keyRequired(p *Param) bool {
	return p != nil && p.Required
}

// keyedOp reports whether op needs and accepts a key: only then must the
// contract say what the server does with it.
func keyedOp(op *Operation) bool {
	return needsKey(op) && op.Key != nil
}

func opName(c *Contract, op *Operation) string {
	if c.Format == Proto {
		return "rpc " + op.ID
	}
	return op.ID
}

// keyScope is where contract c's idempotency key is the convention: the
// whole API, or (OpenAPI) only the path families whose operations take it.
type keyScope struct {
	// wide names where an API-wide convention shows: a root x-idempotency,
	// an operation's Idempotency-Key, an rpc's key field or its
	// idempotency_level; "" when the key covers no more than its families.
	wide string
	// families maps an OpenAPI path family ("/v1/charges") whose operations
	// take a key to where the key shows in it.
	families map[string]string
	// keyed counts the operations that take a key, keyless those that may
	// change state and take none.
	keyed, keyless int
}

// scopeOf reads c's key convention. An OpenAPI key is the API's when
// x-idempotency declares it, or when the other keyless operations that may
// change state (the others of any operation judged, which lacks a key) are
// at most twice as many as those that take it: an API part-way through
// adopting a key holds a new operation to it. Where they outnumber them more
// than two to one, the key is the convention of the path families it
// appears in only, as Lob takes it on the six POSTs that create mailpieces
// and on none of its other 39. A proto key field or idempotency_level
// anywhere is the API's.
func scopeOf(c *Contract) keyScope {
	sc := keyScope{families: map[string]string{}}
	if c.Key != nil {
		sc.wide = "x-idempotency"
		return sc
	}
	ops := c.Operations
	if c.Convention != nil {
		ops = c.Convention
	}
	first := ""
	for _, op := range ops {
		where := ""
		switch {
		// A key on an rpc that needs none (a request_id on a check, which
		// correlates logs) deduplicates nothing: it shows no convention.
		case op.Key != nil && (c.Format != Proto || needsKey(op)):
			where = op.Key.Name + " on " + opName(c, op)
			sc.keyed++
		case op.Key == nil && needsKey(op):
			sc.keyless++
			continue
		case op.Idempotent && c.Format == Proto:
			where = "idempotency_level on " + opName(c, op)
		default:
			continue
		}
		if first == "" {
			first = where
		}
		if fam := pathFamily(op); fam != "" && sc.families[fam] == "" {
			sc.families[fam] = where
		}
	}
	if first != "" && (c.Format == Proto || sc.keyless-1 <= 2*sc.keyed) {
		sc.wide = first
	}
	return sc
}

// of names where the convention that covers op shows; "" when none does.
func (sc keyScope) of(op *Operation) string {
	if sc.wide != "" {
		return sc.wide
	}
	return sc.families[pathFamily(op)]
}

// shown reports whether the contract takes a key anywhere.
func (sc keyScope) shown() bool { return sc.wide != "" || len(sc.families) > 0 }

// familyList names the families that take the key, sorted: "/checks,
// /letters and /postcards", the first few of many and how many more.
func (sc keyScope) familyList() string {
	const shown = 6
	fams := slices.Sorted(maps.Keys(sc.families))
	if len(fams) > shown {
		more := fmt.Sprintf("%d more", len(fams)-shown+1)
		fams = append(fams[:shown-1], more)
	}
	if len(fams) == 1 {
		return fams[0]
	}
	return strings.Join(fams[:len(fams)-1], ", ") + " and " + fams[len(fams)-1]
}

// versionRE matches a path segment that names an API version (v1, v2beta1),
// which comes before the family it prefixes.
var versionRE = regexp.MustCompile(`^v\d+([a-z]+\d*)?$`)

// pathFamily is the path of an OpenAPI operation up to its first segment
// that names a resource: "/v1/charges" for POST /v1/charges/{id}/capture.
// "" for an rpc.
func pathFamily(op *Operation) string {
	if op.Method == "" {
		return ""
	}
	_, path, _ := strings.Cut(op.ID, " ")
	end := 0
	for seg := range strings.SplitSeq(path, "/") {
		end += len(seg) + 1
		if seg == "" || versionRE.MatchString(seg) || strings.HasPrefix(seg, "{") {
			continue
		}
		return path[:min(end-1, len(path))]
	}
	return path
}

// KeyConventionUnseen reports whether c has an operation that needs a key
// and lacks one whose verdict the operations a subset load left out could
// change, so that the diff needs the whole document. Outside the families
// that take a key, the share of the API's operations that take it decides:
// the part left out lowers it with keyless operations that may change
// state, and raises it, or shows a convention c does not, only where it
// may declare a key (outsideMayDeclare).
func KeyConventionUnseen(c *Contract, outsideMayDeclare func() bool) bool {
	if c == nil || c.Key != nil {
		return false
	}
	sc := scopeOf(c)
	open := slices.ContainsFunc(c.Operations, func(op *Operation) bool {
		if !needsKey(op) || op.Key != nil {
			return false
		}
		if c.Format == OpenAPI {
			return sc.families[pathFamily(op)] == ""
		}
		return !sc.shown()
	})
	return open && (sc.wide != "" || outsideMayDeclare())
}

// KeyConventionKept reports whether a subset load's findings on the key
// convention are the whole contracts', once each side's Convention holds
// every operation of its whole contract: the verdict on each operation new
// left out (identical on both sides, since a change does not reach it) is
// the same on both sides, so the whole load finds nothing new there.
func KeyConventionKept(old, new *Contract) bool {
	if old.Convention == nil || new.Convention == nil {
		return false
	}
	loaded := map[string]bool{}
	for _, op := range new.Operations {
		loaded[op.ID] = true
	}
	before := map[string]*Operation{}
	for _, op := range old.Convention {
		before[op.ID] = op
	}
	oldScope, newScope := scopeOf(old), scopeOf(new)
	for _, op := range new.Convention {
		if loaded[op.ID] {
			continue
		}
		was := before[op.ID]
		if was == nil || keyVerdict(oldScope, was) != keyVerdict(newScope, op) {
			return false
		}
	}
	return true
}

// keyVerdict is what the key convention sc says of op: "" when it needs no
// key or takes one, else whether the convention covers it (an error) or not
// (a warning).
func keyVerdict(sc keyScope, op *Operation) string {
	switch {
	case !needsKey(op) || op.Key != nil:
		return ""
	case sc.of(op) != "":
		return "covered"
	}
	return "uncovered"
}

// lintOpsByConvention wires a matcher over the operations that a key
// convention covers (present) or does not; the matcher gets the contract's
// scope and where the convention covering the operation shows.
func lintOpsByConvention(r *Rule, present bool, match func(c *Contract, op *Operation, sc keyScope, convention string) *issue) *Rule {
	return lintContract(r, func(c *Contract) []Finding {
		sc := scopeOf(c)
		var out []Finding
		for _, op := range c.Operations {
			conv := sc.of(op)
			if (conv != "") != present {
				continue
			}
			if i := match(c, op, sc, conv); i != nil {
				out = append(out, opFinding(r, c, op, *i))
			}
		}
		return out
	})
}

// KeyNotAdoptedID is the warning for an API without a key convention.
const KeyNotAdoptedID = "idempotency-key-not-adopted"

func keyMissing() *Rule {
	return lintOpsByConvention(&Rule{
		ID:        "idempotency-key-missing",
		Pack:      Idempotency,
		Formats:   OpenAPI | Proto,
		Severity:  Error,
		Continues: []string{KeyNotAdoptedID, RPCKeyMissingID},
		Doc: Doc{
			Title: "An operation that may change state lacks the idempotency key its API uses elsewhere",
			Text: "A client that times out cannot know whether its request was applied, so it retries; " +
				"without a key the server cannot tell the retry from a new request, and a charge is made " +
				"twice. This rule applies the API's own convention: where the contract declares an " +
				"idempotency key (an Idempotency-Key header parameter, matched case-insensitively, " +
				"inline or via $ref; a root-level x-idempotency; a proto request field idempotency_key " +
				"or request_id on an rpc that is not a read, since a request_id on a check correlates logs " +
				"and deduplicates nothing; an rpc's idempotency_level), every POST or PATCH, and every rpc that is " +
				"not a read, that the convention covers must take it too: one without is an " +
				"inconsistency, an error. A proto key and a root x-idempotency cover the whole API, and so " +
				"does an OpenAPI key unless the API's other keyless POSTs and PATCHes outnumber the " +
				"operations that take it more than two to one (as in an API that takes a key only on the " +
				"POSTs that create payments): then it covers the path families that take it, each the " +
				"path up to its first segment that is neither a version " +
				"(v1, v2beta1) nor a parameter, /v1/charges for POST /v1/charges/{id}/capture. An " +
				"operation outside them, and any in an API with no convention at all, gets the warning " +
				KeyNotAdoptedID + " (OpenAPI) or " + RPCKeyMissingID + " (proto) instead. An operation that is harmless " +
				"to repeat, such as a search sent by POST, says so with x-idempotent: true (proto: " +
				"idempotency_level). PUT, DELETE, GET, HEAD and OPTIONS are idempotent by definition, and " +
				"rpcs that read (see " + RPCKeyMissingID + " for the list) are never flagged. An API that " +
				"takes the key on every POST and PATCH declares it once, with a root-level x-idempotency " +
				"whose value is the header parameter (inline, or a $ref to #/components/parameters/NAME): " +
				"every such operation without a key of its own then takes that one, this rule is " +
				"satisfied, and the other idempotency rules check the declaration (required, bounded, " +
				"retention documented) once instead of each operation.",
			Bad: `/v1/refunds:
  post:
    parameters: [{$ref: '#/components/parameters/IdempotencyKey'}]
/v1/charges:
  post:
    operationId: createCharge`,
			Good: `post:
  operationId: createCharge
  parameters:
    - name: Idempotency-Key
      in: header
      required: true
      schema: {type: string, maxLength: 255}
# or once, for every POST and PATCH of the API:
x-idempotency: {$ref: '#/components/parameters/IdempotencyKey'}`,
		},
	}, true, func(c *Contract, op *Operation, _ keyScope, conv string) *issue {
		if !needsKey(op) || op.Key != nil {
			return nil
		}
		if c.Format == Proto {
			return &issue{msg: fmt.Sprintf("rpc %s has no idempotency key in its request, though this API follows "+
				"a retry convention (%s): a client that retries after a timeout may apply it twice; add the "+
				"key field, or set option idempotency_level = IDEMPOTENT if repeating it is harmless", op.ID, conv)}
		}
		return &issue{msg: fmt.Sprintf("%s does not take an Idempotency-Key header, though this API uses one (%s): "+
			"a client that retries after a timeout may apply it twice; require the header, or mark the "+
			"operation x-idempotent: true if repeating it is harmless", op.ID, conv)}
	})
}

func keyNotAdopted() *Rule {
	return lintOpsByConvention(&Rule{
		ID:       KeyNotAdoptedID,
		Pack:     Idempotency,
		Formats:  OpenAPI,
		Severity: Warning,
		// An operation keyless on both sides whose verdict fell from the
		// error (the share of keyed operations dropped) is no new problem.
		Continues: []string{"idempotency-key-missing"},
		Doc: Doc{
			Title: "A POST or PATCH has no idempotency key, and no key convention of the API covers it",
			Text: "The API declares no idempotency key that covers this operation, so its clients were " +
				"never promised that a retry of it is applied once, and a gate should not fail on a design " +
				"the operation shares with the API. Either the API takes no key at all, or it takes one " +
				"only in some path families (its keyless POSTs and PATCHes outnumber the operations that " +
				"take it more than two to one; see idempotency-key-missing) and this operation is " +
				"outside them: the message names them. " +
				"The risk is real still: a client that retries after a timeout may apply the request " +
				"twice. This warning says how to adopt a key without breaking anyone: declare an optional " +
				"Idempotency-Key header once, with a root-level x-idempotency, and deduplicate on it; " +
				"count the requests that arrive without it; require it once that count is zero. Once the " +
				"API's key covers an operation, that operation without it is idempotency-key-missing, an " +
				"error.",
			Bad: `paths:
  /v1/charges:
    post: {operationId: createCharge}`,
			Good: `x-idempotency: {$ref: '#/components/parameters/IdempotencyKey'}
components:
  parameters:
    IdempotencyKey:
      name: Idempotency-Key
      in: header
      description: Keys are kept for 24 hours.
      schema: {type: string, maxLength: 255}`,
		},
	}, false, func(c *Contract, op *Operation, sc keyScope, _ string) *issue {
		if !needsKey(op) || op.Key != nil {
			return nil
		}
		if sc.shown() {
			return &issue{msg: fmt.Sprintf("%s takes no Idempotency-Key header; this API takes one only under %s "+
				"(on %s; not on %s that may change state), a convention of those paths, not of "+
				"the API: a client that retries after a timeout may apply it twice; if it creates what a retry "+
				"could duplicate, accept the same optional header here, deduplicate on it, and require it once "+
				"every client sends it (or mark the operation x-idempotent: true if repeating it is harmless)",
				op.ID, sc.familyList(), plural(sc.keyed, "operation", "operations"), plural(sc.keyless-1, "other", "others"))}
		}
		return &issue{msg: fmt.Sprintf("%s takes no Idempotency-Key header and this API declares no key convention: "+
			"a client that retries after a timeout may apply it twice; to adopt one, declare an optional "+
			"Idempotency-Key header parameter once with a root x-idempotency: {$ref: "+
			"'#/components/parameters/IdempotencyKey'}, deduplicate on it, and require it once every client "+
			"sends it (or mark the operation x-idempotent: true if repeating it is harmless)", op.ID)}
	})
}

// RPCKeyMissingID is the proto rule for an API without a key convention;
// config's `idempotency: {proto: strict}` raises it to an error.
const RPCKeyMissingID = "idempotency-key-missing-rpc"

func rpcKeyMissing() *Rule {
	return lintOpsByConvention(&Rule{
		ID:       RPCKeyMissingID,
		Pack:     Idempotency,
		Formats:  Proto,
		Severity: Warning,
		Doc: Doc{
			Title: "An rpc that may change state has no idempotency key, and the API has not adopted one",
			Text: "gRPC clients retry too, and an rpc that creates or moves something is applied twice " +
				"when a retry meets no key. The request should carry a string field idempotency_key or " +
				"request_id (or one whose comment says contractlint:idempotency-key). This rule fires " +
				"only where the API has no key convention (no key field, no idempotency_level on any " +
				"rpc); where it has one, an rpc without it is idempotency-key-missing, an error. It is a " +
				"warning because most gRPC APIs never set idempotency_level and an additive change should " +
				"not fail on it; teams that want the error set `idempotency: {proto: strict}` in " +
				".contractlint.yaml. Reads are never flagged: an rpc bound to HTTP GET by " +
				"(google.api.http), one whose idempotency_level is NO_SIDE_EFFECTS or IDEMPOTENT, and " +
				"one whose name starts with an AIP standard or custom read verb followed by a capital " +
				"letter or nothing (GetCharge, but not Getaway): " + strings.Join(readVerbs, ", ") + "; one whose name " +
				"ends in a read noun, capitalised (SubjectSearch, but not Research): " + strings.Join(readNouns, ", ") +
				"; one whose name starts with an adjective, naming what it returns, not an action: " +
				strings.Join(readAdjectives, ", ") + ", or a first word ending in -able or -ible " +
				"(ComputablePermissions, VisibleResources) other than the verbs " + strings.Join(ableVerbs, " and ") +
				"; each after an Experimental prefix (ExperimentalDiffSchema) and before a Batch suffix " +
				"(AccessEvaluationBatch). Nor are rpcs idempotent by their binding or name: one bound to HTTP PUT " +
				"or DELETE (idempotent by HTTP's definition, as in OpenAPI) or named with AIP-135's " +
				strings.Join(idempotentVerbs, ", ") + " (DeletePolicy). Any other rpc may change state, " +
				"whatever its HTTP binding: a read bound to POST for its body is known by its name.",
			Bad: `service Charges {
  rpc CreateCharge(CreateChargeRequest) returns (Charge);
}
message CreateChargeRequest { int64 amount_cents = 1; }`,
			Good: `message CreateChargeRequest {
  int64 amount_cents = 1;
  // Kept for 24 hours.
  string request_id = 2;
}`,
		},
	}, false, func(c *Contract, op *Operation, _ keyScope, _ string) *issue {
		if !needsKey(op) || op.Key != nil {
			return nil
		}
		return &issue{msg: fmt.Sprintf("rpc %s has no idempotency key in its request: a client that retries after "+
			"a timeout may apply it twice; add a string field request_id, or set option "+
			"idempotency_level = IDEMPOTENT if repeating it is harmless", op.ID)}
	})
}

// idempotentRPC reports whether repeating an rpc changes nothing more than
// doing it once, by what it is bound to or named: bound to HTTP PUT or
// DELETE, idempotent by HTTP's definition as in OpenAPI, or AIP-135's
// standard Delete (deleting again deletes nothing more).
func idempotentRPC(op *Operation) bool {
	if op.Binding == "PUT" || op.Binding == "DELETE" {
		return true
	}
	return verbFirst(rpcName(op), idempotentVerbs)
}

// idempotentVerbs name the rpcs that are idempotent by their standard
// meaning (AIP-135).
var idempotentVerbs = []string{"Delete"}

// rpcName is the name an rpc's verb is read from: its method name after
// any Experimental prefix (authzed marks unstable rpcs so).
func rpcName(op *Operation) string {
	name := op.ID[strings.LastIndexByte(op.ID, '.')+1:]
	if rest, ok := strings.CutPrefix(name, "Experimental"); ok && rest != "" && unicode.IsUpper(rune(rest[0])) {
		name = rest
	}
	return name
}

// verbFirst reports whether name starts with one of verbs followed by a
// capital letter or nothing (GetCharge, but not Getaway).
func verbFirst(name string, verbs []string) bool {
	for _, verb := range verbs {
		if rest, ok := strings.CutPrefix(name, verb); ok && (rest == "" || unicode.IsUpper(rune(rest[0]))) {
			return true
		}
	}
	return false
}

// readVerbs are the method-name verbs of AIP's standard reads (Get, List,
// BatchGet: AIP-131, 132, 231) and of the custom methods that only read
// (AIP-136) as real APIs name them: authzed's Lookup*, Check*, Watch,
// ReadSchema, DiffSchema; openfga's Read*, Expand, ListObjects; milvus's
// Describe*, Show*, Has*, Query, Search; AuthZEN's Evaluation(s), an
// access check.
var readVerbs = []string{
	"BatchCheck", "BatchGet", "Check", "Count", "Describe", "Diff", "Evaluate", "Evaluation", "Evaluations", "Expand", "Export",
	"Fetch", "Get", "Has", "List", "Lookup", "Query", "Read", "Search", "Show", "Watch",
	// authzed's ReflectSchema and DownloadPermissionSets.
	"Download", "Reflect",
}

// readNouns end the names of reads written noun first: AuthZEN's
// SubjectSearch and AccessEvaluation, authzed's ExperimentalSchemaDiff.
var readNouns = []string{"Diff", "Evaluation", "Evaluations", "Search"}

// readAdjectives begin the names of reads named by what they return, an
// adjective first (authzed's DependentRelations: the relations a
// permission depends on). A name that starts with an adjective names no
// action; so does one whose first word ends in -able or -ible
// (ComputablePermissions, VisibleResources), except the verbs so spelled
// (ableVerbs).
var readAdjectives = []string{"Dependent"}

// ableVerbs are the verbs an API names an action with that end in -able.
var ableVerbs = []string{"Disable", "Enable"}

// adjectiveFirst reports whether name's first word (up to the next capital)
// is an adjective: one of readAdjectives, or a word ending in -able or
// -ible that is not one of ableVerbs.
func adjectiveFirst(name string) bool {
	word := name
	if i := strings.IndexFunc(name[min(1, len(name)):], unicode.IsUpper); i >= 0 {
		word = name[:i+1]
	}
	if slices.Contains(readAdjectives, word) {
		return true
	}
	able := strings.HasSuffix(word, "able") || strings.HasSuffix(word, "ible")
	return able && len(word) > len("able") && !slices.Contains(ableVerbs, word)
}

// readRPC reports whether an rpc only reads: bound to HTTP GET, named
// with a read verb followed by a capital letter or nothing, ending in a
// read noun (AuthZEN's SubjectSearch), or starting with an adjective
// (ComputablePermissions), after any Experimental prefix.
func readRPC(op *Operation) bool {
	if op.Binding == "GET" {
		return true
	}
	name := rpcName(op)
	// A batch of reads is a read (Cerbos's AccessEvaluationBatch).
	if first, ok := strings.CutSuffix(name, "Batch"); ok && first != "" {
		name = first
	}
	for _, noun := range readNouns {
		if first, ok := strings.CutSuffix(name, noun); ok && first != "" {
			return true
		}
	}
	return adjectiveFirst(name) || verbFirst(name, readVerbs)
}

func keyOptional() *Rule {
	return lintOps(&Rule{
		ID: "idempotency-key-optional", Pack: Idempotency, Formats: OpenAPI, Severity: Warning,
		Doc: Doc{
			Title: "The idempotency key is declared but not required",
			Text: "An optional key protects only the clients that happen to send it; every other client's " +
				"retry is still applied twice. Making it required in one step rejects those clients, so " +
				"roll it out: accept requests with and without the key for a release, count the requests " +
				"that arrive without one, and require it once that count is zero. (Proto has no required " +
				"fields, so this rule is OpenAPI only.)",
			Bad: `- name: Idempotency-Key
  in: header
  schema: {type: string, maxLength: 255}`,
			Good: `- name: Idempotency-Key
  in: header
  required: true
  schema: {type: string, maxLength: 255}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		if !keyedOp(op) || keyRequired(op.Key) {
			return nil
		}
		if op.Key == c.Key {
			// One finding for the declaration, however many operations take it.
			return &issue{at: op.Key.Loc, path: op.Key.Path, msg: fmt.Sprintf(
				"x-idempotency declares %s for every POST and PATCH but does not require it, so retries from "+
					"clients that omit it are applied twice; accept both for a release, count requests without "+
					"a key, then require it", op.Key.Name)}
		}
		return &issue{at: op.Key.Loc, path: op.Key.Path, msg: fmt.Sprintf(
			"%s accepts an %s header but does not require it, so retries from clients that omit it are "+
				"applied twice; accept both for a release, count requests without a key, then require it",
			op.ID, op.Key.Name)}
	})
}

// maxKeyLength is the longest key a server should have to store and index.
const maxKeyLength = 255

func keyUnbounded() *Rule {
	return lintOps(&Rule{
		ID: "idempotency-key-unbounded", Pack: Idempotency, Formats: OpenAPI, Severity: Warning,
		Doc: Doc{
			Title: "The idempotency key is not a string bounded to 255 characters",
			Text: "The server stores every key it sees for the retention period and looks each request up " +
				"by it. A key with no maximum length lets a client fill that index with megabyte keys, and " +
				"a key that is not a string leaves clients guessing how to generate one. Declare the key as " +
				"a string with maxLength of at most 255 (a UUID fits in 36).",
			Bad: `- name: Idempotency-Key
  in: header
  required: true
  schema: {type: string}`,
			Good: `- name: Idempotency-Key
  in: header
  required: true
  schema: {type: string, maxLength: 255}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		k := op.Key
		if k == nil || (k.Type == "string" && k.MaxLength >= 0 && k.MaxLength <= maxKeyLength) {
			return nil
		}
		why := "has no maxLength"
		switch {
		case k.Type != "string":
			why = fmt.Sprintf("is typed %q, not a string", k.Type)
		case k.MaxLength > maxKeyLength:
			why = fmt.Sprintf("allows %d characters", k.MaxLength)
		}
		return &issue{at: k.Loc, path: k.Path, msg: fmt.Sprintf(
			"the %s header %s; declare it a string with maxLength of at most %d so the server's key "+
				"store stays bounded", k.Name, why, maxKeyLength)}
	})
}

// response returns op's response with that status, or nil.
func (op *Operation) response(status string) *OpResponse {
	for _, r := range op.Responses {
		if r.Status == status {
			return r
		}
	}
	return nil
}

func (r *OpResponse) hasHeader(name string) bool {
	for _, h := range r.Headers {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

func conflictUndocumented() *Rule {
	return lintOps(&Rule{
		ID: "idempotency-conflict-undocumented", Pack: Idempotency, Formats: OpenAPI, Severity: Warning,
		Doc: Doc{
			Title: "No 409 with Retry-After for a request still in progress",
			Text: "When a retry arrives while the first attempt with the same key is still running, the " +
				"server can neither replay a response it does not have nor start the work again; it answers " +
				"409 and says when to come back. A contract that does not document that 409 and its " +
				"Retry-After header leaves clients to treat it as a failure and give up, or to retry in a " +
				"tight loop.",
			Bad: `responses:
  '201': {description: created}`,
			Good: `responses:
  '201': {description: created}
  '409':
    description: a request with this key is in progress
    headers:
      Retry-After: {schema: {type: integer}}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		if !keyedOp(op) {
			return nil
		}
		res := op.response("409")
		if res == nil {
			return &issue{msg: fmt.Sprintf(
				"%s takes an idempotency key but documents no 409 for a retry that arrives while the first "+
					"attempt is still running; add a 409 response with a Retry-After header", op.ID)}
		}
		if res.hasHeader("Retry-After") {
			return nil
		}
		return &issue{at: res.Loc, msg: fmt.Sprintf(
			"the 409 response of %s has no Retry-After header, so clients cannot tell when to retry a "+
				"request still in progress; document Retry-After", op.ID)}
	})
}

func mismatchUndocumented() *Rule {
	return lintOps(&Rule{
		ID: "idempotency-mismatch-undocumented", Pack: Idempotency, Formats: OpenAPI, Severity: Warning,
		Doc: Doc{
			Title: "No 422 for a key reused with a different request body",
			Text: "A client bug that reuses a key for a different request must not be answered with the " +
				"first request's stored response: the client would believe its second, different charge " +
				"succeeded. The server rejects it with 422, and the contract documents that response so " +
				"client authors handle it as the programming error it is.",
			Bad: `responses:
  '201': {description: created}`,
			Good: `responses:
  '201': {description: created}
  '422': {description: the key was used with a different body}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		if !keyedOp(op) || op.response("422") != nil {
			return nil
		}
		return &issue{msg: fmt.Sprintf(
			"%s takes an idempotency key but documents no 422 for a key reused with a different body; "+
				"add a 422 response so clients handle the mismatch", op.ID)}
	})
}

func replayUndocumented() *Rule {
	return lintOps(&Rule{
		ID: "idempotency-replay-undocumented", Pack: Idempotency, Formats: OpenAPI, Severity: Info,
		Doc: Doc{
			Title: "The Idempotent-Replay response header is not documented",
			Text: "A retry that the server answers from its store looks exactly like the first response. " +
				"An Idempotent-Replay: true header on success responses lets clients and their logs tell " +
				"a replay from a fresh result, which is what a reviewer needs when money moved once but the " +
				"client saw two successes.",
			Bad: `'201':
  description: created`,
			Good: `'201':
  description: created
  headers:
    Idempotent-Replay:
      description: true when this is a stored response
      schema: {type: boolean}`,
		},
	}, func(c *Contract, op *Operation) *issue {
		if !keyedOp(op) {
			return nil
		}
		for _, res := range op.Responses {
			if strings.HasPrefix(res.Status, "2") && res.hasHeader("Idempotent-Replay") {
				return nil
			}
		}
		return &issue{msg: fmt.Sprintf(
			"no success response of %s documents the Idempotent-Replay header; add it so clients can tell "+
				"a replayed response from a fresh one", op.ID)}
	})
}

// retentionRE finds a retention period in a key's description: "24 hours",
// "7 days", "kept for", "expire".
var retentionRE = regexp.MustCompile(`(?i)\b(\d+\s*(h|hr|hrs|hours?|d|days?|min|minutes?|weeks?)|retain\w*|retention|expir\w*|kept)\b`)

func retentionUndocumented() *Rule {
	return lintOps(&Rule{
		ID: "idempotency-retention-undocumented", Pack: Idempotency, Formats: OpenAPI | Proto, Severity: Info,
		Doc: Doc{
			Title: "The idempotency key's retention period is not documented",
			Text: "A server forgets keys after a while; a retry sent after that is a new request and is " +
				"applied again. Clients can only keep their retries inside the window if the contract says " +
				"how long it is, so the key's description (or the operation's) names the retention period.",
			Bad: `- name: Idempotency-Key
  in: header
  required: true`,
			Good: `- name: Idempotency-Key
  in: header
  required: true
  description: Keys are kept for 24 hours.`,
		},
	}, func(c *Contract, op *Operation) *issue {
		if !keyedOp(op) || retentionRE.MatchString(keyDocs(op)) {
			return nil
		}
		return &issue{at: op.Key.Loc, path: op.Key.Path, msg: fmt.Sprintf(
			"the description of %s does not say how long keys are kept, so clients cannot tell when a "+
				"retry stops being safe; state the retention period (for example: kept for 24 hours)", op.Key.Name)}
	})
}

// keyDocs is what documents the key: the parameter's description (for a
// proto key field, its leading comment) and the operation's own text.
func keyDocs(op *Operation) string {
	return op.Key.Description + "\n" + op.Description
}

// rolloutDoc is the three-release rollout both key-requirement rules point to.
const rolloutDoc = "Roll a key out in three releases: (1) declare it optional and start " +
	"deduplicating on it; (2) measure the requests that arrive without it and tell those " +
	"clients; (3) require it once that count is zero."

func keyNewlyRequired() *Rule {
	return diffOps(&Rule{
		ID:       "idempotency-key-newly-required",
		Pack:     Idempotency,
		Formats:  OpenAPI | Proto,
		Severity: Error,
		// The breaking pack reports the same change as a plain new required
		// parameter; this rule says what to do about it.
		Supersedes: []string{"request-parameter-became-required", "request-parameter-added-required"},
		Doc: Doc{
			Title: "An idempotency key is required where none existed",
			Text: "Requiring a key that the previous release did not even declare rejects every request " +
				"from every existing client on the day it ships: the fix for double charges becomes an " +
				"outage. " + rolloutDoc + " A proto field is required only by an explicit signal: " +
				"(google.api.field_behavior) = REQUIRED, a buf.validate or protoc-gen-validate " +
				"`required` rule, proto2 `required` or editions LEGACY_REQUIRED. A plain proto3 " +
				"`string request_id` is optional on the wire, the first release of that rollout.",
			Bad: `# release 1: no Idempotency-Key
# release 2
- {name: Idempotency-Key, in: header, required: true}`,
			Good: `# release 2: declared, optional; the server counts requests without it
- {name: Idempotency-Key, in: header, required: false}
# release 3: that count is zero
- {name: Idempotency-Key, in: header, required: true}`,
		},
	}, func(c *Contract, o, n *Operation) *issue {
		if !keyRequired(n.Key) || o.Key != nil {
			return nil
		}
		return &issue{at: n.Key.Loc, old: &o.Loc, msg: fmt.Sprintf(
			"%s now requires %s where the previous release had no key: every existing client is "+
				"rejected; declare it optional first, count requests without it, then require it",
			opName(c, n), n.Key.Name)}
	})
}

func keyMadeRequired() *Rule {
	return diffOps(&Rule{
		ID:         "idempotency-key-made-required",
		Pack:       Idempotency,
		Formats:    OpenAPI | Proto,
		Severity:   Warning,
		Supersedes: []string{"request-parameter-became-required"},
		Doc: Doc{
			Title: "The optional idempotency key became required",
			Text: "This is the last step of a key rollout, and right when the release before it measured " +
				"no requests without the key; any client still omitting it is rejected from now on. " +
				rolloutDoc + " Check that the keyless count is zero before shipping this change.",
			Bad: `# release 1: no Idempotency-Key
# release 2
- {name: Idempotency-Key, in: header, required: true}`,
			Good: `# release 2
- {name: Idempotency-Key, in: header, required: false}
# release 3, no keyless requests seen
- {name: Idempotency-Key, in: header, required: true}`,
		},
	}, func(c *Contract, o, n *Operation) *issue {
		if !keyRequired(n.Key) || o.Key == nil || keyRequired(o.Key) {
			return nil
		}
		return &issue{at: n.Key.Loc, old: &o.Key.Loc, msg: fmt.Sprintf(
			"%s now requires %s (it was optional): clients that still omit it are rejected; ship this "+
				"only once requests without a key have dropped to zero", opName(c, n), n.Key.Name)}
	})
}

func keyDropped() *Rule {
	return diffOps(&Rule{
		ID: "idempotency-key-dropped", Pack: Idempotency, Formats: OpenAPI | Proto, Severity: Error,
		Doc: Doc{
			Title: "An operation that required an idempotency key no longer does",
			Text: "Clients retry this operation because the contract promised that a retry with the same " +
				"key is applied once. Dropping the requirement (or the key) breaks that promise silently: " +
				"the retries keep coming, and each one may now be applied again. Keep the key required; if " +
				"the operation really became safe to repeat, say so with x-idempotent: true (proto: " +
				"idempotency_level) in the same change.",
			Bad: `# old
- {name: Idempotency-Key, in: header, required: true}
# new: parameter removed`,
			Good: `# new
- {name: Idempotency-Key, in: header, required: true}`,
		},
	}, func(c *Contract, o, n *Operation) *issue {
		// A proto key field is what the server deduplicates on whether or
		// not the contract requires it (the wire never does): only its
		// removal drops it.
		held := keyRequired(o.Key) || c.Format == Proto && o.Key != nil
		if !held || keyRequired(n.Key) || !needsKey(n) || c.Format == Proto && n.Key != nil {
			return nil
		}
		where, now := n.Loc, "no longer takes it"
		if n.Key != nil {
			where, now = n.Key.Loc, "makes it optional"
		}
		had := "required"
		if !keyRequired(o.Key) {
			had = "took"
		}
		return &issue{at: where, old: &o.Key.Loc, msg: fmt.Sprintf(
			"%s %s %s and now %s: clients that retry it may have their retries applied twice; "+
				"keep the key required", opName(c, n), had, o.Key.Name, now)}
	})
}
