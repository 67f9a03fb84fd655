package rules

import (
	"fmt"
	"math"
	"slices"
)

// openapiBreaking is the classic breaking-change catalogue for OpenAPI: what a
// user of oasdiff expects to be told, one finding per distinct change.
func openapiBreaking() []*Rule {
	return slices.Concat(openapiSurface(), openapiLifecycle(), openapiRequest(), openapiResponse(), openapiSchemaShape(), openapiLoosened(), openapiParts())
}

// reach names how many operations a shared change reaches, for messages.
func reach(c *Change) string {
	if len(c.Operations) <= 1 {
		return ""
	}
	return fmt.Sprintf(" (reaches %d operations)", len(c.Operations))
}

func openapiSurface() []*Rule {
	return []*Rule{
		pathRemoved(),
		operationRemoved(),
		operationMethodChanged(),
		operationIDChanged(),
		securityRequirementAdded(),
		securityScopeAdded(),
		securityScopeAddedUndecided(),
	}
}

func pathRemoved() *Rule {
	return onChange(&Rule{
		ID: "path-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectPath, ""}},
		Oasdiff: []string{"api-path-removed-without-deprecation"},
		Doc: Doc{
			Title: "A path was removed",
			Text:  "Every operation under a removed path answers 404 to clients that still call it. Deprecate the path, wait until traffic stops, then remove it.",
			Bad: `paths:
  /v1/orders: ...   # gone in the new version`,
			Good: `paths:
  /v1/orders:
    get:
      deprecated: true`,
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("path %s removed: its clients now get 404", c.Name), c.Is(Removed, SubjectPath) && !c.Deprecated
		})
}

func operationRemoved() *Rule {
	return onChange(&Rule{
		ID: "operation-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectOperation, ""}},
		Oasdiff: []string{"api-removed-without-deprecation"},
		Doc: Doc{
			Title: "An operation was removed",
			Text:  "Removing an operation breaks every client that calls it. Mark it `deprecated: true` first and remove it once nobody calls it.",
			Bad: `paths:
  /v1/orders:
    delete: ...   # gone`,
			Good: `paths:
  /v1/orders:
    delete:
      deprecated: true`,
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("operation %s removed: its clients now get 404 or 405", c.Name), c.Is(Removed, SubjectOperation) && !c.Deprecated && !c.Webhook
		})
}

func operationMethodChanged() *Rule {
	return onChange(&Rule{
		ID: "operation-method-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectOperation, "method"}},
		Doc: Doc{
			Title: "An operation moved to another HTTP method",
			Text:  "Clients send the method they were generated with; moving an operation (same operationId) from one method to another makes every existing call fail. Add the new method beside the old one.",
			Bad:   "post:  operationId: updateOrder   ->   put:  operationId: updateOrder",
			Good:  "keep post: updateOrder, add put: replaceOrder",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("operation %s moved from %s to %s: clients still send %s", c.Name, c.Old.Text, c.New.Text, c.Old.Text),
				c.Is(Modified, SubjectOperation) && c.Aspect == "method"
		})
}

func operationIDChanged() *Rule {
	return onChange(&Rule{
		ID: "operation-id-changed", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads: []Entry{{Modified, SubjectOperation, AspectOperationID}},
		Doc: Doc{
			Title: "An operationId changed",
			Text:  "Generated clients name their methods after operationId; renaming it breaks the code that calls the generated method at the next regeneration, though not the wire.",
			Bad:   "operationId: listOrders   ->   operationId: getOrders",
			Good:  "operationId: listOrders   (unchanged)",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("operationId of %s changed from %q to %q: generated clients rename their method", c.Name, c.Old.Text, c.New.Text),
				c.Kind == Modified && c.Aspect == AspectOperationID
		})
}

func securityRequirementAdded() *Rule {
	return onChange(&Rule{
		ID: "security-requirement-added", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Added, SubjectSecurity, ""}},
		Oasdiff: []string{"api-security-anonymous-access-removed", "api-security-removed", "api-global-security-removed"},
		Doc: Doc{
			Title: "An operation now requires (more) authentication",
			Text:  "Clients that called the operation anonymously, or with the credentials it used to accept, are now refused with 401 or 403. Accept the old way too during a migration.",
			Bad:   "security: []   ->   security: [{apiKey: []}]",
			Good:  "security: [{}, {apiKey: []}]   # anonymous still accepted while clients migrate",
		},
	},
		func(c *Change) (string, bool) {
			if c.Old.Text != "" {
				return fmt.Sprintf("%s is no longer accepted: the operation now requires %s, so clients that authenticate with %s are refused", c.Old.Text, c.New.Text, c.Old.Text), c.Is(Added, SubjectSecurity)
			}
			return fmt.Sprintf("security requirement %s added: clients that used to call without it are refused", c.Name), c.Is(Added, SubjectSecurity)
		})
}

func securityScopeAdded() *Rule {
	return onChange(&Rule{
		ID: "security-scope-added", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Added, SubjectScope, ""}},
		Oasdiff: []string{"api-security-scope-added", "api-global-security-scope-added"},
		Doc: Doc{
			Title: "An operation requires a new OAuth scope",
			Text:  "Tokens issued before the change lack the new scope, so their holders are refused until they re-consent.",
			Bad:   "security: [{oauth: [read]}]   ->   [{oauth: [read, write]}]",
			Good:  "security: [{oauth: [read]}]",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("scope %s now required: existing tokens lack it", c.Name), c.Is(Added, SubjectScope) && c.Undecided == ""
		})
}

func securityScopeAddedUndecided() *Rule {
	return onChange(&Rule{
		ID: "security-scope-added-undecided", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads: []Entry{{Added, SubjectScope, ""}},
		Doc: Doc{
			Title: "An operation lists a new scope the contract does not define",
			Text: "OpenAPI 3.0 asks a security requirement to list no names for a scheme other than oauth2 and openIdConnect, " +
				"so names listed there (token scopes of an http bearer scheme) are not part of the contract: whether tokens issued before " +
				"the change hold the new one depends on the provider, which the contract does not say. Reported at warning, with that reason; " +
				"check that old tokens are still accepted. (An oauth2 or openIdConnect scope, or a role in OpenAPI 3.1, is security-scope-added.)",
			Bad:  "openapi: 3.0.0 ... security: [{bearer_auth: [project:update]}]   ->   [{bearer_auth: [project:assign_resource]}]",
			Good: "declare the scopes on an oauth2 scheme, or move to OpenAPI 3.1, where an http scheme may list roles",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("scope %s now listed: cannot tell whether existing tokens lack it (%s)", c.Name, c.Undecided),
				c.Is(Added, SubjectScope) && c.Undecided != ""
		})
}

func openapiRequest() []*Rule {
	return []*Rule{
		requestParameterAddedRequired(),
		requestParameterBecameRequired(),
		requestParameterLocationChanged(),
		requestParameterRemoved(),
		requestBodyBecameRequired(),
		requestPropertyAddedRequired(),
		requestPropertyBecameRequired(),
		requestMediaTypeRemoved(),
	}
}

func requestParameterAddedRequired() *Rule {
	return onChange(&Rule{
		ID: "request-parameter-added-required", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Added, SubjectParameter, ""}},
		Oasdiff: []string{"new-required-request-parameter", "new-request-path-parameter", "new-required-request-default-parameter-to-existing-path"},
		Doc: Doc{
			Title: "A new required request parameter",
			Text:  "Existing clients do not send a parameter that did not exist when they were written; the server now rejects their requests. Add it as optional with a default.",
			Bad: `parameters:
  - {name: region, in: query, required: true}`,
			Good: `parameters:
  - {name: region, in: query, required: false, schema: {default: eu}}`,
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("new required %s parameter %q: existing clients do not send it", c.In, c.Name),
				c.Is(Added, SubjectParameter) && c.Required
		})
}

func requestParameterBecameRequired() *Rule {
	return onChange(&Rule{
		ID: "request-parameter-became-required", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectParameter, AspectRequired}},
		Oasdiff: []string{"request-parameter-became-required"},
		Doc: Doc{
			Title: "A request parameter became required",
			Text:  "Clients that leave out an optional parameter are now rejected. Keep it optional and give it a default the server applies when it is missing.",
			Bad:   "- {name: limit, in: query, required: false}   ->   required: true",
			Good:  "- {name: limit, in: query, required: false, schema: {default: 20}}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("parameter %q became required: clients that omit it are rejected", c.Name),
				c.Is(Modified, SubjectParameter) && c.Aspect == AspectRequired && c.Required
		})
}

func requestParameterLocationChanged() *Rule {
	return onChange(&Rule{
		ID: "request-parameter-location-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectParameter, AspectIn}},
		Doc: Doc{
			Title: "A request parameter moved (its `in` changed)",
			Text:  "A parameter read from the query string is not found in a header, and vice versa: every client still sends it where it used to go.",
			Bad:   "- {name: api_version, in: query}   ->   in: header",
			Good:  "accept both locations for a release; document the new one",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("parameter %q moved from %s to %s: clients still send it in the %s", c.Name, c.Old.Text, c.New.Text, c.Old.Text),
				c.Is(Modified, SubjectParameter) && c.Aspect == AspectIn
		})
}

func requestParameterRemoved() *Rule {
	return onChange(&Rule{
		ID: "request-parameter-removed", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads:   []Entry{{Removed, SubjectParameter, ""}},
		Oasdiff: []string{"request-parameter-removed", "request-parameter-removed-before-sunset"},
		Doc: Doc{
			Title: "A request parameter was removed",
			Text:  "Clients keep sending the parameter; a server that rejects unknown parameters now fails them, and one that ignores it silently changes behaviour (a filter no longer filters).",
			Bad:   "- {name: status, in: query}   # gone",
			Good:  "keep accepting status, mark it deprecated",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%s parameter %q removed: clients still send it and it is now ignored or rejected", c.In, c.Name),
				c.Is(Removed, SubjectParameter)
		})
}

func requestBodyBecameRequired() *Rule {
	return onChange(&Rule{
		ID: "request-body-became-required", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Added, SubjectRequestBody, ""}, {Modified, SubjectRequestBody, AspectRequired}},
		Oasdiff: []string{"request-body-became-required", "request-body-added-required"},
		Doc: Doc{
			Title: "The request body became required",
			Text:  "Clients that sent no body are now rejected. Keep the body optional and treat a request without one as it was treated before.",
			Bad:   "requestBody: {required: false}   ->   {required: true}",
			Good:  "requestBody: {required: false}",
		},
	},
		func(c *Change) (string, bool) {
			return "request body is now required: clients that send none are rejected",
				c.Subject == SubjectRequestBody && c.Kind != Removed && c.Required && c.Dir.Has(Request)
		})
}

func requestPropertyAddedRequired() *Rule {
	return onChange(&Rule{
		ID: "request-property-added-required", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Added, SubjectField, ""}},
		Oasdiff: []string{"new-required-request-property", "new-required-request-property-with-default", "new-required-request-header-property"},
		Doc: Doc{
			Title: "A new required request property",
			Text:  "Existing clients do not send a property that did not exist; the server now rejects their bodies. Add it optional with a server-side default.",
			Bad:   "required: [amount, currency, channel]   # channel is new",
			Good:  "required: [amount, currency]   # channel optional, defaulted by the server",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("new required request property %q: existing clients do not send it%s", c.Name, reach(c)),
				c.Is(Added, SubjectField) && req(c) && c.NewField != nil && (c.NewField.Required || c.Format == Proto && c.Required)
		})
}

func requestPropertyBecameRequired() *Rule {
	return onChange(&Rule{
		ID: "request-property-became-required", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectField, AspectRequired}},
		Oasdiff: []string{"request-property-became-required", "request-property-became-required-with-default", "request-header-property-became-required"},
		Doc: Doc{
			Title: "A request property became required",
			Text:  "Clients that leave out a property that used to be optional are now rejected. Keep it optional and default it on the server.",
			Bad:   "required: [amount]   ->   required: [amount, currency]",
			Good:  "required: [amount]   # currency optional, defaulted",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("request property %q became required: clients that omit it are rejected%s", c.Name, reach(c)),
				c.Is(Modified, SubjectField) && c.Aspect == AspectRequired && c.Required && req(c)
		})
}

func requestMediaTypeRemoved() *Rule {
	return onChange(&Rule{
		ID: "request-media-type-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectMediaType, ""}},
		Oasdiff: []string{"request-body-media-type-removed"},
		Doc: Doc{
			Title: "A request media type is no longer accepted",
			Text:  "Clients that send the removed content type now get 415. Keep accepting it, and mark the operation deprecated if the type should go later.",
			Bad:   "content: {application/json: ..., application/x-www-form-urlencoded: ...}   # form removed",
			Good:  "keep accepting both",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("request media type %s removed: clients sending it get 415", c.Name),
				c.Is(Removed, SubjectMediaType) && req(c)
		})
}

func openapiResponse() []*Rule {
	return []*Rule{
		responseStatusRemoved(),
		responsePropertyRemoved(),
		responsePropertyBecameOptional(),
		responseBecameNullable(),
		responsePropertyTypeChanged(),
		responsePropertyFormatChanged(),
		responseEnumValueAdded(),
		responseMediaTypeRemoved(),
		responseHeaderRemoved(),
	}
}

func responseStatusRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-status-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectResponse, ""}},
		Oasdiff: []string{"response-success-status-removed"},
		Doc: Doc{
			Title: "A success response status was removed",
			Text:  "Clients branch on the statuses they were told to expect; one that handled 200 mishandles the 202 that replaces it.",
			Bad:   "responses: {'200': ..., '201': ...}   ->   {'201': ...}",
			Good:  "responses: {'200': ..., '201': ...}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("success status %s removed: clients that handle it get something else", c.Name),
				c.Is(Removed, SubjectResponse) && success(c.Name) && resp(c)
		})
}

func responsePropertyRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-property-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectField, ""}},
		Oasdiff: []string{"response-required-property-removed", "response-required-property-removed-before-sunset"},
		Doc: Doc{
			Title: "A response property was removed",
			Text: "Clients that read the property get nothing (or crash on a missing field). Deprecate it, measure who reads it (--readers), and remove it only once nobody does. " +
				"Stricter than oasdiff on purpose: oasdiff reports an optional property's removal as information only, since it may be absent anyway; " +
				"but a client that shows the property whenever the server sent it, as it always did, loses it without a sign.",
			Bad:  "properties: {id: ..., price: ...}   # price gone",
			Good: "properties: {id: ..., price: {deprecated: true, ...}}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("response property %q removed: clients that read it break%s", c.Name, reach(c)),
				c.Is(Removed, SubjectField) && resp(c)
		})
}

func responsePropertyBecameOptional() *Rule {
	return onChange(&Rule{
		ID: "response-property-became-optional", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectField, AspectRequired}},
		Oasdiff: []string{"response-property-became-optional"},
		Doc: Doc{
			Title: "A required response property became optional",
			Text:  "Clients were promised the property is always there and read it without checking.",
			Bad:   "required: [id, status]   ->   required: [id]",
			Good:  "required: [id, status]",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("response property %q is no longer required: clients that read it unconditionally break%s", c.Name, reach(c)),
				c.Is(Modified, SubjectField) && c.Aspect == AspectRequired && !c.Required && resp(c)
		})
}

func responseBecameNullable() *Rule {
	return onChange(&Rule{
		ID: "response-became-nullable", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectNullable}},
		Oasdiff: []string{"response-*-became-nullable"},
		Doc: Doc{
			Title: "A response value became nullable",
			Text:  "Clients that never expected null dereference it and crash. Keep the value non-null, and add a new nullable field beside it if absence must be expressed.",
			Bad:   "type: string   ->   type: [string, 'null']",
			Good:  "type: string   # add a new nullable field instead",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%q in a response can now be null: clients that never expected null break%s", c.Name, reach(c)),
				c.Aspect == AspectNullable && c.New.Bool && resp(c)
		})
}

func responsePropertyTypeChanged() *Rule {
	return onChange(&Rule{
		ID: "response-property-type-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectType}},
		Oasdiff: []string{"response-*-type-changed", "response-*-list-of-types-widened", "response-*-type-generalized", "response-body-media-type-schema-removed", "response-body-media-type-item-schema-removed", "response-body-media-type-item-schema-removed-untyped"},
		Doc: Doc{
			Title: "A response value's type changed",
			Text:  "Clients parse the type they were generated for; a string where they expect a number fails to decode.",
			Bad:   "id: {type: integer}   ->   id: {type: string}",
			Good:  "add id_str: {type: string} beside id",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("type of %q in a response changed from %s to %s: clients decode it as %s%s", c.Name, c.Old.Text, c.New.Text, c.Old.Text, reach(c)),
				c.Aspect == AspectType && resp(c) && !subtype(c.New.Types, c.Old.Types)
		})
}

func responsePropertyFormatChanged() *Rule {
	return onChange(&Rule{
		ID: "response-property-format-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectSchema, AspectFormat}},
		Doc: Doc{
			Title: "A response value's format changed",
			Text:  "Clients parse the format they were generated for (a date-time parser rejects a date).",
			Bad:   "created: {type: string, format: date-time}   ->   format: date",
			Good:  "created: {type: string, format: date-time}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("format of %q in a response changed from %q to %q%s", c.Name, c.Old.Text, c.New.Text, reach(c)),
				c.Aspect == AspectFormat && resp(c) && c.Old.Text != ""
		})
}

func responseEnumValueAdded() *Rule {
	return onChange(&Rule{
		ID: "response-enum-value-added", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Warning,
		Reads:   []Entry{{Added, SubjectEnumValue, ""}, {Added, SubjectEnumValue, AspectAllowedValue}},
		Oasdiff: []string{"response-property-enum-value-added", "response-mediatype-enum-value-added"},
		Doc: Doc{
			Title: "A response enum gained a value",
			Text:  "Strict readers (generated enums, exhaustive switches) fail on a value they have never seen.",
			Bad:   "status: {enum: [paid, failed]}   ->   enum: [paid, failed, refunded]",
			Good:  "document that clients must tolerate unknown values before adding one",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("response enum value %q added: strict readers fail on it%s", c.Name, reach(c)),
				listedValue(c, Added) && resp(c)
		})
}

func responseMediaTypeRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-media-type-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectMediaType, ""}},
		Oasdiff: []string{"response-media-type-removed", "response-media-type-name-changed", "response-media-type-name-generalized", "response-media-type-parameter-changed", "response-media-type-parameter-removed"},
		Doc: Doc{
			Title: "A response media type was removed",
			Text:  "Clients that ask for the removed representation get 406 or a body they cannot parse.",
			Bad:   "content: {application/json: ..., text/csv: ...}   # text/csv gone",
			Good:  "keep serving both",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("response media type %s removed: clients that ask for it get 406", c.Name),
				c.Is(Removed, SubjectMediaType) && resp(c)
		})
}

func responseHeaderRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-header-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectHeader, ""}},
		Oasdiff: []string{"required-response-header-removed"},
		Doc: Doc{
			Title: "A response header was removed",
			Text:  "Clients that read the header (pagination links, rate limits, ETag) lose it. Keep sending it until no client reads it.",
			Bad:   "headers: {Link: ..., ETag: ...}   # ETag gone",
			Good:  "headers: {Link: ..., ETag: ...}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("response header %s removed: clients that read it lose it", c.Name), c.Is(Removed, SubjectHeader) && resp(c)
		})
}

// openapiSchemaShape covers narrowing in requests: anything that makes a body
// or parameter the client used to send invalid now.
func openapiSchemaShape() []*Rule {
	return []*Rule{
		requestPropertyTypeChanged(),
		requestPropertyFormatChanged(),
		requestEnumValueRemoved(),
		requestBecameEnum(),
		requestMaxDecreased(),
		requestMinIncreased(),
		requestPatternChanged(),
		requestMultipleOfChanged(),
		requestAdditionalPropertiesClosed(),
		requestBecameNotNullable(),
		requestOneOfRemoved(),
		requestOneOfRemovedUndecided(),
		requestAllOfAdded(),
		responseOneOfAdded(),
		discriminatorChanged(),
	}
}

func requestPropertyTypeChanged() *Rule {
	return onChange(&Rule{
		ID: "request-property-type-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectType}},
		Oasdiff: []string{"request-*-type-changed", "request-*-list-of-types-narrowed", "request-parameter-property-type-specialized", "request-body-media-type-schema-added", "request-body-media-type-item-schema-added"},
		Doc: Doc{
			Title: "A request value's type changed",
			Text:  "Clients keep sending the old type; the server now rejects it. Widening (integer to number) is fine; anything else is not.",
			Bad:   "quantity: {type: string}   ->   quantity: {type: integer}",
			Good:  "quantity: {type: [string, integer]}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("type of %q in a request changed from %s to %s: clients still send %s%s", c.Name, c.Old.Text, c.New.Text, c.Old.Text, reach(c)),
				c.Aspect == AspectType && req(c) && !subtype(c.Old.Types, c.New.Types)
		})
}

func requestPropertyFormatChanged() *Rule {
	return onChange(&Rule{
		ID: "request-property-format-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectSchema, AspectFormat}},
		Doc: Doc{
			Title: "A request value's format changed or was added",
			Text:  "Values clients send in the old format fail validation in the new one. Keep accepting the old format; add a new property for values in the new one.",
			Bad:   "date: {type: string}   ->   date: {type: string, format: date}",
			Good:  "date: {type: string}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("format of %q in a request changed from %q to %q: values in the old format are rejected%s", c.Name, c.Old.Text, c.New.Text, reach(c)),
				c.Aspect == AspectFormat && req(c) && c.New.Text != ""
		})
}

func requestEnumValueRemoved() *Rule {
	return onChange(&Rule{
		ID: "request-enum-value-removed", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Removed, SubjectEnumValue, ""}, {Removed, SubjectEnumValue, AspectAllowedValue}, {Added, SubjectEnumValue, AspectRefusedValue}},
		Oasdiff: []string{"request-*-enum-value-removed"},
		Doc: Doc{
			Title: "A request enum lost a value",
			Text: "Clients that send the removed value are rejected. Keep accepting it, stop producing it, and map it to its replacement on the server. " +
				"In proto, a value left out of a protovalidate or protoc-gen-validate `in` list, or added to its `not_in`, counts the same.",
			Bad:  "channel: {enum: [web, app, phone]}   ->   enum: [web, app]",
			Good: "keep accepting phone; stop producing it",
		},
	},
		func(c *Change) (string, bool) {
			switch {
			case !req(c):
				return "", false
			case c.Is(Added, SubjectEnumValue) && c.Aspect == AspectRefusedValue:
				return fmt.Sprintf("request value %q of %q is now refused (not_in): clients that send it are rejected%s", c.Name, c.NewField.Name, reach(c)), true
			case !listedValue(c, Removed):
				return "", false
			case c.Format == Proto:
				return fmt.Sprintf("request enum value %q of %q removed: clients that send it are rejected%s", c.Name, c.NewField.Name, reach(c)), true
			}
			return fmt.Sprintf("request enum value %q removed: clients that send it are rejected%s", c.Name, reach(c)), true
		})
}

func requestBecameEnum() *Rule {
	return onChange(&Rule{
		ID: "request-became-enum", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectEnum}, {Modified, SubjectField, AspectEnum}},
		Oasdiff: []string{"request-*-became-enum"},
		Doc: Doc{
			Title: "A request value became an enum",
			Text:  "Free values that clients send are now limited to a list; anything outside it is rejected.",
			Bad:   "country: {type: string}   ->   country: {type: string, enum: [GB, FR]}",
			Good:  "country: {type: string}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%q in a request is now limited to [%s]: other values clients send are rejected%s", c.Name, c.New.Text, reach(c)),
				c.Aspect == AspectEnum && c.New.Text != "" && req(c)
		})
}

func requestMaxDecreased() *Rule {
	return onChange(&Rule{
		ID: "request-max-decreased", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectMaxItems}, {Modified, SubjectSchema, AspectMaxLength}, {Modified, SubjectSchema, AspectMaxProperties}, {Modified, SubjectSchema, AspectMaximum}, {Modified, SubjectField, AspectMaxLength}, {Modified, SubjectField, AspectMaximum}},
		Oasdiff: []string{"request-*-max-decreased", "request-*-max-set", "request-*-max-*-decreased", "request-*-max-*-set"},
		Doc: Doc{
			Title: "A request upper bound was lowered or added",
			Text: "A maxLength, maximum, maxItems or maxProperties that shrinks (or appears), or a maximum made exclusive, rejects values clients were allowed to send. " +
				"In proto, the max_len, max_bytes, len and lt/lte of a protovalidate ((buf.validate.field)) or protoc-gen-validate ((validate.rules)) rule count the same: the server answers INVALID_ARGUMENT. " +
				"A bound in bytes and one in characters are compared by what each implies in the other's unit (a character is one to four UTF-8 bytes), so max_len: 64 rewritten as max_bytes: 256 lets nothing new through and refuses nothing.",
			Bad:  "name: {type: string, maxLength: 100}   ->   maxLength: 50",
			Good: "name: {type: string, maxLength: 100}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%s of %q in a request lowered from %s to %s: larger values clients send are rejected%s", c.Aspect, c.Name, orNone(c.Old.Text), c.New.Text, reach(c)),
				req(c) && isAspect(c, AspectMaxLength, AspectMaximum, AspectMaxItems, AspectMaxProperties, AspectMaxContains) && tighter(c.Old.Limit, c.New.Limit, true)
		})
}

func requestMinIncreased() *Rule {
	return onChange(&Rule{
		ID: "request-min-increased", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectMinContains}, {Modified, SubjectSchema, AspectMinLength}, {Modified, SubjectSchema, AspectMinimum}, {Modified, SubjectField, AspectMinLength}, {Modified, SubjectField, AspectMinimum}},
		Oasdiff: []string{"request-*-min-increased", "request-*-min-set", "request-*-min-*-increased", "request-*-min-*-set"},
		Doc: Doc{
			Title: "A request lower bound was raised or added",
			Text: "A minLength, minimum, minItems or minProperties that grows (or appears), or a minimum made exclusive, rejects values clients were allowed to send. " +
				"In proto, the min_len, min_bytes, len and gt/gte of a protovalidate or protoc-gen-validate rule count the same; " +
				"min_bytes: 1 rewritten as min_len: 1 refuses the empty string as before, and is no change.",
			Bad:  "quantity: {type: integer, minimum: 1}   ->   minimum: 5",
			Good: "quantity: {type: integer, minimum: 1}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%s of %q in a request raised from %s to %s: smaller values clients send are rejected%s", c.Aspect, c.Name, orNone(c.Old.Text), c.New.Text, reach(c)),
				req(c) && isAspect(c, AspectMinLength, AspectMinimum, AspectMinItems, AspectMinProperties, AspectMinContains) && tighter(c.Old.Limit, c.New.Limit, false)
		})
}

func requestPatternChanged() *Rule {
	return onChange(&Rule{
		ID: "request-pattern-changed", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectPattern}, {Modified, SubjectField, AspectPattern}},
		Oasdiff: []string{"request-*-pattern-added", "request-*-pattern-changed"},
		Doc: Doc{
			Title: "A request pattern was added or changed",
			Text: "Values clients send that matched nothing, or the old pattern, may not match the new one. In proto, a " +
				"protovalidate or protoc-gen-validate string pattern counts the same.",
			Bad:  "code: {type: string}   ->   code: {type: string, pattern: '^[A-Z]{3}$'}",
			Good: "code: {type: string}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("pattern of %q in a request changed from %q to %q: values clients send may no longer match%s", c.Name, c.Old.Text, c.New.Text, reach(c)),
				c.Aspect == AspectPattern && req(c) && c.New.Text != "" && !keepsAlternatives(c.Old.Text, c.New.Text, c.Format == Proto)
		})
}

func requestMultipleOfChanged() *Rule {
	return onChange(&Rule{
		ID: "request-multiple-of-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectMultipleOf}},
		Oasdiff: []string{"request-*-multiple-of-changed", "request-*-multiple-of-set"},
		Doc: Doc{
			Title: "A request multipleOf was added or changed",
			Text:  "Values that were multiples of the old step are not all multiples of the new one.",
			Bad:   "amount: {type: number, multipleOf: 0.01}   ->   multipleOf: 1",
			Good:  "amount: {type: number, multipleOf: 0.01}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("multipleOf of %q in a request changed from %s to %s: values clients send may be rejected%s", c.Name, orNone(c.Old.Text), c.New.Text, reach(c)),
				c.Aspect == AspectMultipleOf && req(c) && c.New.Limit != nil && !divides(c.New.Limit, c.Old.Limit)
		})
}

func requestAdditionalPropertiesClosed() *Rule {
	return onChange(&Rule{
		ID: "request-additional-properties-closed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectAdditionalProps}},
		Oasdiff: []string{"request-*-unevaluated-properties-added"},
		Doc: Doc{
			Title: "A request object stopped accepting unknown properties",
			Text:  "Clients that send extra properties (newer clients, or ones that echo what they read) are now rejected.",
			Bad:   "Order: {type: object}   ->   {type: object, additionalProperties: false}",
			Good:  "Order: {type: object}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%q in a request no longer accepts unknown properties: clients that send extra ones are rejected%s", c.Name, reach(c)),
				c.Aspect == AspectAdditionalProps && req(c)
		})
}

func requestBecameNotNullable() *Rule {
	return onChange(&Rule{
		ID: "request-became-not-nullable", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectNullable}},
		Oasdiff: []string{"request-*-became-not-nullable"},
		Doc: Doc{
			Title: "A request value no longer accepts null",
			Text:  "Clients that send null are rejected. Keep accepting null and treat it as the property being absent.",
			Bad:   "note: {type: [string, 'null']}   ->   note: {type: string}",
			Good:  "note: {type: [string, 'null']}",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("%q in a request no longer accepts null: clients that send null are rejected%s", c.Name, reach(c)),
				c.Aspect == AspectNullable && !c.New.Bool && req(c)
		})
}

func requestOneOfRemoved() *Rule {
	return onChange(&Rule{
		ID: "request-one-of-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectSchema, AspectComposition}},
		Oasdiff: []string{"request-*-one-of-removed", "request-*-any-of-removed"},
		Doc: Doc{
			Title: "A oneOf/anyOf alternative was removed from a request",
			Text:  "Clients that send the shape of the removed alternative are rejected. Keep accepting it and mark it deprecated in its description until nobody sends it.",
			Bad:   "oneOf: [$ref: Card, $ref: BankAccount]   ->   oneOf: [$ref: Card]",
			Good:  "keep both alternatives",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("request %s removed: clients sending that shape are rejected%s", c.Name, reach(c)),
				oneOfRemoved(c) && c.Undecided == ""
		})
}

func oneOfRemoved(c *Change) bool {
	return c.Aspect == AspectComposition && c.Kind == Removed && c.Old.Text != "allOf" && req(c)
}

func requestOneOfRemovedUndecided() *Rule {
	return onChange(&Rule{
		ID: "request-one-of-removed-undecided", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads: []Entry{{Removed, SubjectSchema, AspectComposition}},
		Doc: Doc{
			Title: "A oneOf/anyOf alternative was removed from a request, and whether its values are still accepted cannot be told",
			Text:  "A schema that drops its alternatives for one schema breaks clients only when that schema refuses some value an alternative accepted. When that depends on what contractlint does not compare (two patterns, two formats, a not), it says so, with the reason, at warning: check the values clients send against the new schema. (While alternatives are left, one removed is request-one-of-removed.)",
			Bad:   "oneOf: [{type: string, pattern: '^[a-z]+$'}, {type: string, format: uuid}]   ->   {type: string, pattern: '^[a-z0-9-]+$'}",
			Good:  "keep the alternative until no client sends it",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("request %s removed: cannot tell whether the values clients sent with it are still accepted (%s)%s", c.Name, c.Undecided, reach(c)),
				oneOfRemoved(c) && c.Undecided != ""
		})
}

func requestAllOfAdded() *Rule {
	return onChange(&Rule{
		ID: "request-all-of-added", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Added, SubjectSchema, AspectComposition}},
		Oasdiff: []string{"request-*-all-of-added"},
		Doc: Doc{
			Title: "A request schema gained an allOf member",
			Text:  "An allOf member adds constraints every request must now meet, so requests that were valid are rejected. Add optional properties instead.",
			Bad:   "Order: {allOf: [$ref: Base]}   ->   {allOf: [$ref: Base, $ref: Audit]}",
			Good:  "add optional properties instead",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("request %s added: every request must now also match it%s", c.Name, reach(c)),
				c.Aspect == AspectComposition && c.Kind == Added && c.New.Text == "allOf" && req(c)
		})
}

func responseOneOfAdded() *Rule {
	return onChange(&Rule{
		ID: "response-one-of-added", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads:   []Entry{{Added, SubjectSchema, AspectComposition}},
		Oasdiff: []string{"response-*-one-of-added", "response-*-any-of-added", "response-body-wrapped-in-one-of"},
		Doc: Doc{
			Title: "A response oneOf/anyOf gained an alternative",
			Text:  "Readers generated for the old alternatives cannot decode the new shape. Document that clients skip shapes they do not know, then add it.",
			Bad:   "oneOf: [$ref: Card]   ->   oneOf: [$ref: Card, $ref: Wallet]",
			Good:  "document that clients must skip unknown shapes before adding one",
		},
	},
		func(c *Change) (string, bool) {
			return fmt.Sprintf("response %s added: readers generated for the old alternatives cannot decode it%s", c.Name, reach(c)),
				c.Aspect == AspectComposition && c.Kind == Added && c.New.Text != "allOf" && c.Dir.Has(Response)
		})
}

func discriminatorChanged() *Rule {
	return onChange(&Rule{
		ID: "discriminator-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads: []Entry{{Modified, SubjectDiscriminator, AspectMapping}, {Modified, SubjectSchema, AspectPropertyName}},
		Doc: Doc{
			Title: "A discriminator's property or mapping changed",
			Text:  "Clients pick the concrete type by the discriminator; a renamed property or a remapped value decodes bodies as the wrong type.",
			Bad:   "discriminator: {propertyName: kind}   ->   {propertyName: type}",
			Good:  "discriminator: {propertyName: kind}",
		},
	},
		func(c *Change) (string, bool) {
			if c.Aspect == AspectMapping {
				return fmt.Sprintf("discriminator value %q now maps to %s instead of %s: clients decode it as the wrong type%s", c.Name, orNone(c.New.Text), c.Old.Text, reach(c)), true
			}
			return fmt.Sprintf("discriminator property of %q changed from %s to %s%s", c.Name, orNone(c.Old.Text), orNone(c.New.Text), reach(c)),
				c.Aspect == AspectPropertyName
		})
}

func isAspect(c *Change, as ...Aspect) bool { return slices.Contains(as, c.Aspect) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// tighter reports whether a bound moved so that fewer values pass: an upper
// bound that appeared or fell, a lower bound that appeared or rose, or one
// that became exclusive at the same value.
func tighter(old, new *Limit, upper bool) bool {
	switch {
	case new == nil:
		return false
	case old == nil:
		return true
	case new.Value == old.Value:
		return new.Exclusive && !old.Exclusive
	case upper:
		return new.Value < old.Value
	}
	return new.Value > old.Value
}

// divides reports whether every multiple of old is a multiple of new.
func divides(new, old *Limit) bool {
	if new == nil || old == nil || new.Value == 0 {
		return false
	}
	// Decimal steps are not exact in binary: 0.3/0.1 is 2.9999999999999996.
	q := old.Value / new.Value
	return math.Abs(q-math.Round(q)) < 1e-9*math.Max(1, math.Abs(q))
}

// subtype reports whether every value of types a is a value of types b
// ("integer" is within "number"; no types, any type, holds everything).
func subtype(a, b []string) bool {
	if len(b) == 0 {
		return true
	}
	if len(a) == 0 {
		return false
	}
	for _, t := range a {
		if !slices.Contains(b, t) && !(t == "integer" && slices.Contains(b, "number")) {
			return false
		}
	}
	return true
}

func success(status string) bool {
	return len(status) == 3 && (status[0] == '2' || status[0] == '3')
}
