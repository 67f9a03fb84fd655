package rules

// IDs of the probe pack's rules; internal/probe reports them.
const (
	ProbeConcurrentDuplicates = "probe-concurrent-duplicates"
	ProbeRetryReplay          = "probe-retry-replay"
	ProbeKeyReuseMismatch     = "probe-key-reuse-mismatch"
	ProbeMissingKey           = "probe-missing-key"
	ProbeReorderedBody        = "probe-reordered-body"
	ProbeInFlightConflict     = "probe-in-flight-conflict"
	ProbeContractMismatch     = "probe-contract-mismatch"
	ProbeKeyAccountScope      = "probe-key-account-scope"
	ProbeDelayedRetry         = "probe-delayed-retry"
	ProbeStepSkipped          = "probe-step-skipped"
)

// probe is the pack `contractlint probe` reports from a live endpoint's
// answers. The rules carry documentation only: nothing in a contract can show
// them, so they never run in lint or diff.
func probe() []*Rule {
	return []*Rule{
		probeRule(ProbeConcurrentDuplicates, "Concurrent identical requests with one key were applied more than once",
			"The probe sends several identical requests with one fresh Idempotency-Key at the same instant. "+
				"Exactly one may be applied; every other one must be answered 409 with Retry-After (the first is "+
				"still running) or with the stored response (Idempotent-Replay: true). Two different successes mean "+
				"the server looks the key up and then inserts it in two steps (check-then-act), so a client whose "+
				"retry overtakes its first attempt is charged twice. Claim the key with one atomic statement on a "+
				"unique index (INSERT ... ON CONFLICT DO NOTHING) before doing the work. The answers alone cannot "+
				"show a server that charges every duplicate and answers them all alike (an id derived from the key), "+
				"or one that charges and then answers 500: with --charges-endpoint the probe lists the charges before "+
				"and after and counts the ones this step created, and more than one is a double charge whatever the "+
				"answers said.",
			"row = SELECT ... WHERE key = $1\nif row == nil {\n  charge()\n  INSERT INTO keys ...\n}",
			"claimed = INSERT INTO keys (...) VALUES (...) ON CONFLICT DO NOTHING\nif claimed { charge() } else { replay_or_409() }"),
		probeRule(ProbeRetryReplay, "A retry after completion did not get the first response back",
			"A client that timed out retries with the same key and body, and must receive exactly what the first "+
				"attempt produced: the same status and the same body (the same charge id), marked Idempotent-Replay: "+
				"true when the contract documents that header. A server that runs the request again, or mints a new "+
				"body for the retry, tells the client about a charge that is not the one that happened. Store the "+
				"complete response with the key, in the same transaction as the work, and replay it.",
			"if seen(key) { return 201, new_charge_json() }",
			"if done(key) { return stored.status, stored.body, {Idempotent-Replay: true} }"),
		probeRule(ProbeKeyReuseMismatch, "A key reused with a different body was not rejected with 422",
			"When a key comes back with a different body, the client has a bug: it reused a key for a different "+
				"request. Replaying the first response tells it that its second, different charge succeeded; "+
				"applying the second request charges again under a key that promised once. The server keeps a "+
				"fingerprint of the request with the key and answers a mismatch 422 (idempotency_key_reused), or the "+
				"status the contract documents for it. The probe changes two different members in turn (the first "+
				"number, then the last other member), so a fingerprint over only some fields is caught too.",
			"if done(key) { return stored }   # whatever the body\nfingerprint = sha256(body.amount_cents)",
			"if stored.fingerprint != sha256(canonical(body)) { return 422 }"),
		probeRule(ProbeMissingKey, "A request without the required key was not rejected with 400",
			"When the contract requires an Idempotency-Key, a request without one cannot be retried safely; "+
				"accepting it applies it once per attempt. The server answers 400 without doing anything, so a "+
				"client that forgot the key finds out on its first request instead of on its first double charge.",
			"key = header('Idempotency-Key')  # may be empty\ncharge()",
			"if header('Idempotency-Key') == '' { return 400 idempotency_key_missing }"),
		probeRule(ProbeReorderedBody, "The same JSON body with reordered keys was treated as a different request",
			"JSON object keys have no order, and client libraries serialise maps in whatever order they like; a "+
				"retry from another process or a newer library version may reorder them. A fingerprint taken over "+
				"the raw bytes then calls the retry a different request (422) or a new one (a second charge). "+
				"Fingerprint the canonical form instead: parse the body, sort the keys, normalise numbers.",
			"fingerprint = sha256(raw_body)",
			"fingerprint = sha256(canonical_json(parse(raw_body)))"),
		probeRule(ProbeInFlightConflict, "A retry while the first request was in flight did not get 409 with Retry-After",
			"A retry that arrives while the first attempt is still running can neither be replayed (there is no "+
				"response yet) nor run (that would charge twice). The server answers 409 request_in_progress with a "+
				"Retry-After header saying when to come back. The probe holds its first request in flight by asking for "+
				"a delay with the X-Probe-Delay test header (a server that honours it echoes it), and also judges a "+
				"server that is slow by itself (a slow processor); when the first answer comes back before the "+
				"retry is sent, the step is skipped with a note.",
			"if in_progress(key) { return 409 }   # no Retry-After",
			"if in_progress(key) { return 409, {Retry-After: 1} }"),
		probeRule(ProbeContractMismatch, "The endpoint answered with a status or without a header its contract does not document",
			"With --contract, every answer the probe received is compared with the operation's documented "+
				"responses: a status the contract does not list (and no default response), or a response without a "+
				"Retry-After header that its status documents. Clients are generated and written from the contract, "+
				"so an undocumented answer is one they do not handle. Document what the server does, or change the "+
				"server to do what is documented.",
			"responses:\n  '201': {description: created}\n# the server also answers 409",
			"responses:\n  '201': {description: created}\n  '409':\n    description: in progress\n    headers:\n      Retry-After: {schema: {type: integer}}"),
		probeRule(ProbeKeyAccountScope, "Another account's request with the same key got the first account's answer",
			"Keys are chosen by clients, so two accounts can pick the same one (a counter, an order number, a "+
				"UUID copied from documentation). A key table keyed by the key alone replays account A's stored "+
				"response, with A's charge in it, to account B, or refuses B's request as A's. With --second-header "+
				"(another account's credentials) the probe sends A's key and body as account B, and B must get a new "+
				"request of its own. Scope the claim by (account, route, key).",
			"claim(key)",
			"claim(account_of(api_key), route, key)"),
		probeRule(ProbeDelayedRetry, "A retry after a delay was not given the first response back",
			"A client retries after a timeout and a backoff, often seconds or minutes later. A server that forgets "+
				"keys too soon (a cache with a short expiry, a pruner with the wrong unit) treats that retry as a new "+
				"request and charges again. The probe retries step 2's request after --retry-after (default 2s) and "+
				"must get the first answer back. Keep keys at least as long as the contract documents (24 hours is "+
				"common), and never less than the longest client retry schedule.",
			"cache.set(key, response, ttl=5)   # seconds",
			"INSERT INTO idempotency_keys ...   # pruned after 24 hours"),
		probeStepSkipped(),
	}
}

// probeStepSkipped is its own rule, at info, so that the step rules report
// only the severity they declare: a skip says nothing was judged, not that the
// server is wrong. A function, not a package variable: builtin() fills in each
// registry's rules, so two registries must not share one.
func probeStepSkipped() *Rule {
	return &Rule{ID: ProbeStepSkipped, Pack: Probe, Formats: OpenAPI, Mode: ProbeRule, Severity: Info,
		Doc: Doc{
			Title: "A probe step was skipped, so its rule was not checked",
			Text: "The probe skips a step it cannot judge: the contract declares no Idempotency-Key or declares it " +
				"optional (step 4), the server neither honours the X-Probe-Delay test header nor is slow by itself " +
				"(step 6), no --second-header was given (step 7), --retry-after is 0 or step 2's first request was " +
				"not accepted (step 8). The message names the skipped step's rule and why. A skipped step proves " +
				"nothing either way: give the probe what the message asks for to have the step judged.",
			Bad:  "contractlint probe $URL -H 'Authorization: Bearer sk_a'",
			Good: "contractlint probe $URL -H 'Authorization: Bearer sk_a' --second-header 'Authorization: Bearer sk_b'",
		},
	}
}

func probeRule(id, title, doc, bad, good string) *Rule {
	return &Rule{ID: id, Pack: Probe, Formats: OpenAPI, Mode: ProbeRule, Severity: Error,
		Doc: Doc{
			Title: title,
			Text:  doc,
			Bad:   bad,
			Good:  good,
		},
	}
}
