package rules

import "fmt"

// openapiParts covers parts of an operation that go away or change who
// writes them: a request body, a response header's promise, readOnly and
// writeOnly, an allOf member of a response.
func openapiParts() []*Rule {
	return []*Rule{
		requestBodyRemoved(),
		responseHeaderBecameOptional(),
		requestPropertyBecameReadOnly(),
		requestPropertyBecameWritableRequired(),
		responsePropertyBecameWriteOnly(),
		responseAllOfRemoved(),
		webhookRemoved(),
		stabilityDecreased(),
		securitySchemeChanged(),
		securitySchemeURLChanged(),
		requestOneOfAdded(),
	}
}

func requestBodyRemoved() *Rule {
	return onChange(&Rule{
		ID: "request-body-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectRequestBody, ""}},
		Oasdiff: []string{"request-body-removed"},
		Doc: Doc{
			Title: "An operation no longer takes a request body",
			Text: "Clients keep sending the body; a server that now rejects a body fails them, one that ignores it drops what they " +
				"meant (a filter, a field to set). Keep accepting the body until no client sends it.",
			Bad: `post:
  requestBody: {...}   # gone`,
			Good: `post:
  requestBody: {..., description: 'deprecated: ignored from 2026-01'}`,
		},
	}, func(c *Change) (string, bool) {
		return "request body removed: clients still send one, and it is now ignored or rejected", c.Is(Removed, SubjectRequestBody) && c.Dir.Has(Request)
	})
}

func responseHeaderBecameOptional() *Rule {
	return onChange(&Rule{
		ID: "response-header-became-optional", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectHeader, AspectRequired}},
		Oasdiff: []string{"response-header-became-optional"},
		Doc: Doc{
			Title: "A required response header became optional",
			Text:  "Clients read a required header (a rate limit, a location) without checking; once optional it may be missing.",
			Bad:   "headers: {X-Rate-Limit: {required: true}}   ->   {required: false}",
			Good:  "headers: {X-Rate-Limit: {required: true}}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("response header %s is no longer required: clients that read it unconditionally break", c.Name),
			c.Is(Modified, SubjectHeader) && c.Aspect == AspectRequired && !c.Required && c.Dir.Has(Response)
	})
}

func requestPropertyBecameReadOnly() *Rule {
	return onChange(&Rule{
		ID: "request-property-became-read-only", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads:   []Entry{{Modified, SubjectField, AspectReadOnly}},
		Oasdiff: []string{"request-optional-property-became-read-only", "request-required-property-became-read-only"},
		Doc: Doc{
			Title: "A request property became readOnly",
			Text: "Clients send the property; readOnly says the server ignores it (or rejects it, if it validates strictly). A " +
				"warning: ignoring it is often the intent, but what the client meant to set is no longer set.",
			Bad:  "status: {type: string}   ->   status: {type: string, readOnly: true}",
			Good: "status: {type: string, description: 'ignored in requests from v2'}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("request property %q became readOnly: what clients send in it is ignored or rejected%s", c.Name, reach(c)),
			c.Aspect == AspectReadOnly && c.New.Bool
	})
}

func requestPropertyBecameWritableRequired() *Rule {
	return onChange(&Rule{
		ID: "request-property-became-writable-required", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectField, AspectReadOnly}},
		Oasdiff: []string{"request-required-property-became-not-read-only"},
		Doc: Doc{
			Title: "A required readOnly property must now be sent",
			Text: "A required readOnly property is required only in responses; clients never sent it. Once no longer readOnly it is " +
				"required in requests too, and every existing request lacks it.",
			Bad: `required: [id]
id: {type: string, readOnly: true}   ->   id: {type: string}`,
			Good: `required: [id]
id: {type: string, readOnly: true}`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("request property %q is required and no longer readOnly: clients never sent it and are now rejected%s", c.Name, reach(c)),
			c.Aspect == AspectReadOnly && !c.New.Bool
	})
}

func responsePropertyBecameWriteOnly() *Rule {
	return onChange(&Rule{
		ID: "response-property-became-write-only", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectField, AspectWriteOnly}},
		Oasdiff: []string{"response-required-property-became-write-only"},
		Doc: Doc{
			Title: "A response property became writeOnly",
			Text:  "writeOnly properties are not returned: clients that read the property from responses lose it, as if it were removed.",
			Bad:   "email: {type: string}   ->   email: {type: string, writeOnly: true}",
			Good:  "email: {type: string}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("response property %q became writeOnly: it is no longer returned to clients that read it%s", c.Name, reach(c)),
			c.Aspect == AspectWriteOnly && c.New.Bool
	})
}

func responseAllOfRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-all-of-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectSchema, AspectComposition}},
		Oasdiff: []string{"response-*-all-of-removed"},
		Doc: Doc{
			Title: "A response schema lost an allOf member",
			Text:  "Every property and promise the member brought (required fields, formats) is gone from the response at once.",
			Bad:   "Order: {allOf: [$ref: Base, $ref: Audit]}   ->   {allOf: [$ref: Base]}",
			Good:  "Order: {allOf: [$ref: Base, $ref: Audit]}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("response %s removed: what it promised readers is gone%s", c.Name, reach(c)),
			c.Aspect == AspectComposition && c.Kind == Removed && c.Old.Text == "allOf" && resp(c)
	})
}

func webhookRemoved() *Rule {
	return onChange(&Rule{
		ID: "webhook-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectOperation, ""}},
		Oasdiff: []string{"webhook-removed"},
		Doc: Doc{
			Title: "A webhook was removed",
			Text: "Clients built a receiver for the webhook and depend on the events it brings; they stop arriving without notice. " +
				"Deprecate the webhook first and keep sending it until subscribers have moved.",
			Bad: `webhooks:
  orderPaid: ...   # gone`,
			Good: `webhooks:
  orderPaid:
    post: {deprecated: true, ...}`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s removed: clients that handle its events stop receiving them", c.Name),
			c.Is(Removed, SubjectOperation) && c.Webhook
	})
}

func stabilityDecreased() *Rule {
	return onChange(&Rule{
		ID: "stability-decreased", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectField, AspectStability}, {Modified, SubjectOperation, AspectStability}},
		Oasdiff: []string{"api-stability-decreased", "*-property-stability-decreased"},
		Doc: Doc{
			Title: "An operation's or property's stability level went down",
			Text: "Clients adopted the operation (or property) at the stability it promised (x-stability-level draft < alpha < beta < stable); a " +
				"lower level withdraws the promise that it will not change under them.",
			Bad:  "x-stability-level: stable   ->   x-stability-level: beta",
			Good: "x-stability-level: stable",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s went from %s to %s: clients that relied on %s stability lose that promise", c.Name, c.Old.Text, c.New.Text, c.Old.Text),
			c.Aspect == AspectStability
	})
}

func securitySchemeChanged() *Rule {
	return onChange(&Rule{
		ID: "security-scheme-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSecurity, AspectName}},
		Oasdiff: []string{"api-security-component-type-changed", "api-security-component-api-key-in-changed", "api-security-component-api-key-name-changed", "api-security-component-http-scheme-changed"},
		Doc: Doc{
			Title: "A security scheme changed how clients authenticate",
			Text: "A scheme whose type, apiKey location or name, HTTP scheme or OAuth flows change makes every client that uses it send " +
				"credentials the server no longer reads. Add a new scheme beside the old one and accept both during the migration.",
			Bad: "apiKey: {type: apiKey, in: header, name: X-API-Key}   ->   name: Authorization",
			Good: `apiKey: {type: apiKey, in: header, name: X-API-Key}
apiKeyV2: {type: apiKey, in: header, name: Authorization}`,
		},
	}, func(c *Change) (string, bool) {
		what := fmt.Sprintf("%s changed from %q to %q", c.Aspect, c.Old.Text, c.New.Text)
		if c.Aspect == "flow" {
			what = fmt.Sprintf("OAuth flow %s removed", c.Old.Text)
		}
		return fmt.Sprintf("security scheme %s: %s: clients that authenticate with it are refused%s", c.Name, what, reach(c)),
			c.Is(Modified, SubjectSecurity) && isAspect(c, "type", "in", "name", "scheme", "flow")
	})
}

func securitySchemeURLChanged() *Rule {
	return onChange(&Rule{
		ID: "security-scheme-url-changed", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads:   []Entry{{Modified, SubjectSecurity, "url"}},
		Oasdiff: []string{"api-security-component-oauth-url-changed", "api-security-component-oauth-token-url-changed", "api-security-component-oauth-refresh-url-changed", "api-security-component-openid-connect-url-changed"},
		Doc: Doc{
			Title: "An OAuth or OpenID Connect URL changed",
			Text: "Clients configured with the authorization, token, refresh or OpenID Connect discovery URL keep using the old one. " +
				"A warning: redirecting the old URL keeps them working.",
			Bad:  "tokenUrl: https://auth.example.com/token   ->   https://login.example.com/token",
			Good: "keep the old URL answering (or redirecting)",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("security scheme %s: URL changed from %q to %q: clients configured with the old one must follow%s", c.Name, c.Old.Text, orNone(c.New.Text), reach(c)),
			c.Is(Modified, SubjectSecurity) && c.Aspect == "url"
	})
}

func requestOneOfAdded() *Rule {
	return onChange(&Rule{
		ID: "request-one-of-added", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads:   []Entry{{Added, SubjectSchema, AspectComposition}},
		Oasdiff: []string{"request-body-wrapped-in-one-of", "request-body-wrapped-in-one-of-original-preserved"},
		Doc: Doc{
			Title: "A request oneOf gained an alternative",
			Text: "oneOf accepts a value that matches exactly one alternative: a body clients send that also matches the new one " +
				"now matches two and is rejected. This includes wrapping a request schema in oneOf beside new alternatives. " +
				"Not reported when every alternative constrains a property (such as type) by enum, const or the discriminator's mapping, " +
				"and the new one's values are accepted by no other: a body that matched another alternative by that property cannot match it. " +
				"A warning otherwise: contractlint does not judge overlap beyond that. anyOf has no such trap.",
			Bad:  "schema: {$ref: Card}   ->   schema: {oneOf: [$ref: Card, $ref: Wallet]}   # a body may match both",
			Good: "schema: {oneOf: [...], discriminator: {propertyName: kind}}   # or anyOf",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("request %s added: a body that also matches it matches two alternatives and oneOf rejects it%s", c.Name, reach(c)),
			c.Aspect == AspectComposition && c.Kind == Added && c.New.Text == "oneOf" && c.ToldApartBy == "" && c.Dir.Has(Request)
	})
}
