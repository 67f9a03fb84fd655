package rules

// IDs of the replay pack's rules; internal/replay reports them.
const (
	ReplayStatusUndocumented = "replay-status-undocumented"
	ReplayResponseInvalid    = "replay-response-invalid"
	ReplayValueOutOfRange    = "replay-value-out-of-range"
	ReplayRequestRejected    = "replay-request-rejected"
	ReplayNoAnswer           = "replay-no-answer"
	ReplayNotSent            = "replay-not-sent"
)

// replay is the pack `contractlint replay` reports when it sends the
// requests an (old or new) contract describes to a live server and checks
// the answers against that contract. Like the probe's rules they carry
// documentation only and never run in lint or diff.
func replay() []*Rule {
	return []*Rule{
		replayRule(ReplayStatusUndocumented, Error, "The server answered a request with a status the contract does not document",
			"replay sent a request the contract describes and the server answered with a status code that the "+
				"operation's responses do not list (and there is no default response). A client generated from "+
				"that contract has no branch for it: it fails, or treats the answer as an error it cannot read. "+
				"Document the status (in a new contract version clients can adopt first), or make the server answer "+
				"a status the contract lists.",
			"responses:\n  '201': {description: created}\n# the server now answers 202 Accepted",
			"responses:\n  '201': {description: created}\n  '202': {description: accepted, processed later}"),
		replayRule(ReplayResponseInvalid, Error, "A response body or header does not match what the contract promises",
			"The answer's status is documented, but its body or a header does not match the schema the contract "+
				"gives for it: a required property is missing, a value has another type, an enum value is unknown, "+
				"the media type is not one the contract lists. A client built from that contract (an app already "+
				"in users' hands) breaks on exactly this response. The message names the request that was sent and "+
				"the JSON pointer of the first mismatch; the finding points at the schema keyword that rejects it. "+
				"Keep sending what old clients read (expand, then contract once nobody reads it).",
			"Charge:\n  required: [id, captured]   # the server stopped sending captured",
			"Charge:\n  required: [id]\n  properties:\n    captured: {type: boolean, deprecated: true}   # optional, sent until unread"),
		replayRule(ReplayValueOutOfRange, Error, "A number in a response is outside the range or step the contract allows",
			"A numeric value breaks the contract's minimum, maximum or multipleOf. Beside a plain bug this is the "+
				"signature of a unit or scale change that kept the field's name: a price the contract bounds in "+
				"dollars (maximum 10000, multipleOf 0.01) arriving in cents, a duration in milliseconds where "+
				"seconds were promised. The old client does not fail: it shows $4,000 for a $40 ticket. Add a new "+
				"field for the new unit and keep the old one unchanged.",
			"price: 4000          # contract: type number, maximum 10000, description: in dollars",
			"price: 40.00\nprice_cents: 4000"),
		replayRule(ReplayRequestRejected, Warning, "A request the contract describes as valid was refused (400, 401, 403 or 422)",
			"replay builds requests from the contract's examples and from its schemas (required fields only, then "+
				"all fields); the server refused one. A 401 or 403 means the run lacked credentials (pass them with "+
				"-H), and every answer it got proves nothing. A 400 or 422 is malformed input: either the server now demands more than the "+
				"contract says (a client following the contract is refused), or the value replay derived breaks a "+
				"rule the contract does not state (a currency the server does not support): then document the rule "+
				"(an enum, a pattern, an example) or give replay a value with --fixtures.",
			"currency: {type: string, pattern: '^[A-Z]{3}$'}   # the server accepts only 9 codes",
			"currency: {type: string, enum: [EUR, GBP, USD], x-extensible-enum: true}"),
		replayRule(ReplayNoAnswer, Error, "A request got no answer",
			"The server closed the connection or did not answer within --timeout for a request the contract "+
				"describes, after answering others in the same run. Clients time out or retry; for a POST without an "+
				"idempotency key a retry may apply the request twice. Find out why the server fails on this request "+
				"(the message names it) and answer it, with an error status the contract documents if need be.",
			"GET /v1/charges?limit=100   # the server crashes on the largest page the contract allows",
			"GET /v1/charges?limit=100   # answered 200 with 100 charges, or 400 documented"),
		replayRule(ReplayNotSent, Info, "A request the contract describes was not sent",
			"replay did not send a planned request: the operation changes state and --allow-side-effects was not "+
				"given, its request body has a media type replay cannot build, or the request cap (--max-requests) "+
				"or the time cap (--max-time) ran out first. Nothing was checked for it, so a clean run says nothing "+
				"about that operation; allow it, or raise the cap, to cover it.",
			"contractlint replay --contract old.yaml http://127.0.0.1:8080   # POST /v1/charges not sent",
			"contractlint replay --contract old.yaml --allow-side-effects --fixtures fixtures.yaml http://127.0.0.1:8080"),
	}
}

func replayRule(id string, sev Severity, title, doc, bad, good string) *Rule {
	return &Rule{ID: id, Pack: "replay", Formats: OpenAPI, Mode: ProbeRule, Severity: sev,
		Title: title, Doc: doc, Bad: bad, Good: good}
}
