package rules

// Term is one kind of change a loader emits: what a rule matches on (kind,
// subject, aspect) and what the change carries. Old and New say what
// Change.Old.Text and Change.New.Text hold ("" when the side is empty);
// Typed names the typed fields set, which are what a rule judges by.
type Term struct {
	Formats Format
	Kind    Kind
	Subject Subject
	Aspect  Aspect
	Old     string
	New     string
	Typed   string
}

// Entry names one kind of change in the vocabulary, as a rule that reads it
// declares it (Rule.Reads).
type Entry struct {
	Kind    Kind
	Subject Subject
	Aspect  Aspect
}

// Entry is the term's kind, subject and aspect.
func (t Term) Entry() Entry { return Entry{t.Kind, t.Subject, t.Aspect} }

// Vocabulary declares every change the OpenAPI and proto diffs (and review's
// own checks) emit, once, so a new rule's author reads the whole vocabulary
// in one place. TestVocabulary fails when a diff over any rule fixture emits
// a change this table lacks.
func Vocabulary() []Term {
	const (
		api, proto = OpenAPI, Proto
		none       = ""
		reqOpt     = "required | optional"
		boolText   = "true | false"
	)
	var keywords []Term
	for _, kw := range Constraining {
		keywords = append(keywords, Term{api, Modified, SubjectSchema, kw, "set, or none", "set, or none", ""})
	}
	limit := func(a Aspect) Term {
		return Term{api, Modified, SubjectSchema, a, "the old limit, or none", "the new limit, or none", "Old.Limit, New.Limit"}
	}
	bound := func(a Aspect) Term {
		return Term{api, Modified, SubjectSchema, a, `"10" or "10 (exclusive)", or none`, "likewise", "Old.Limit, New.Limit (with Exclusive)"}
	}
	return append([]Term{
		// OpenAPI: paths and operations.
		{api, Removed, SubjectPath, "", none, none, "Deprecated, Sunset"},
		{api, Removed, SubjectOperation, "", `"webhook" for a 3.1 webhook`, none, "Deprecated, Sunset, Webhook"},
		{api, Modified, SubjectOperation, "method", "the old method", "the new method", ""},
		{api, Modified, SubjectOperation, AspectOperationID, "the old operationId", "the new operationId", ""},
		{api, Modified, SubjectOperation, AspectStability, "x-stability-level", "x-stability-level", ""},
		// Parameters and request bodies.
		{api, Added, SubjectParameter, "", "its location", reqOpt, "Required, In"},
		{api, Removed, SubjectParameter, "", "its location", none, "Required, In"},
		{api, Modified, SubjectParameter, AspectIn, "the old location", "the new location", ""},
		{api, Modified, SubjectParameter, AspectRequired, reqOpt, reqOpt, "Required (the new side), In"},
		{api, Added, SubjectRequestBody, "", none, "required", "Required"},
		{api, Removed, SubjectRequestBody, "", reqOpt, none, "Required (the old side)"},
		{api, Modified, SubjectRequestBody, AspectRequired, "optional", "required", "Required"},
		{api, Removed, SubjectMediaType, "", none, none, "Name: the media type"},
		// Responses and headers.
		{api, Removed, SubjectResponse, "", none, none, "Name: the status"},
		{api, Removed, SubjectHeader, "", none, none, "Required (the old side)"},
		{api, Modified, SubjectHeader, AspectRequired, "required", "optional", "Required (false)"},
		// Security.
		{api, Added, SubjectSecurity, "", "the requirement no longer accepted, or none", "the new requirements", ""},
		{api, Added, SubjectScope, "", none, none, "Name: the scope"},
		{api, Modified, SubjectSecurity, AspectType, "scheme type", "scheme type", ""},
		{api, Modified, SubjectSecurity, AspectIn, "apiKey location", "apiKey location", ""},
		{api, Modified, SubjectSecurity, AspectName, "apiKey name", "apiKey name", ""},
		{api, Modified, SubjectSecurity, "scheme", "http scheme, lower case", "http scheme, lower case", ""},
		{api, Modified, SubjectSecurity, "url", "openIdConnect or OAuth flow URL", "the new URL, or none", ""},
		{api, Modified, SubjectSecurity, "flow", "the OAuth flow removed", none, ""},
		// Schemas: the constraints of one schema.
		{api, Modified, SubjectSchema, AspectType, `JSON types joined by "|", or "any"`, "likewise", "Old.Types, New.Types"},
		{api, Modified, SubjectSchema, AspectFormat, "format, or none", "format, or none", ""},
		{api, Modified, SubjectSchema, AspectNullable, boolText, boolText, "Old.Bool, New.Bool"},
		limit(AspectMaxLength), limit(AspectMinLength), bound(AspectMaximum), bound(AspectMinimum),
		limit(AspectMaxProperties), limit(AspectMinProperties), limit(AspectMaxItems), limit(AspectMinItems),
		limit(AspectMultipleOf), limit(AspectMinContains), limit(AspectMaxContains),
		{api, Modified, SubjectSchema, AspectUniqueItems, boolText, boolText, "Old.Bool, New.Bool"},
		{api, Modified, SubjectSchema, AspectPattern, "pattern, or none", "pattern, or none", ""},
		{api, Modified, SubjectSchema, AspectEnum, `values joined by ", ", or none (not an enum)`, "likewise", ""},
		{api, Modified, SubjectSchema, AspectBoolean, `"false" | "schema"`, `"false" | "schema"`, "Old.Bool, New.Bool: the side is the schema false"},
		{api, Modified, SubjectSchema, AspectConst, "the const, or none", "the const, or none", ""},
		{api, Modified, SubjectSchema, AspectAdditionalProps, "open", "closed", ""},
		{api, Modified, SubjectSchema, AspectPropertyName, "discriminator property, or none", "likewise", ""},
		{api, Added, SubjectSchema, AspectComposition, none, "allOf | oneOf | anyOf", "ToldApartBy (oneOf)"},
		{api, Removed, SubjectSchema, AspectComposition, "allOf | oneOf | anyOf", none, "Undecided (oneOf, anyOf)"},
		{api, Added, SubjectEnumValue, "", none, "the value", ""},
		{api, Removed, SubjectEnumValue, "", "the value", none, ""},
		{api, Modified, SubjectDiscriminator, AspectMapping, "the old target, or none", "the new target, or none", ""},
		// Properties.
		{api, Added, SubjectField, "", none, reqOpt, "NewField, Required"},
		{api, Removed, SubjectField, "", none, none, "OldField, Required (the old side)"},
		{api, Modified, SubjectField, "", none, none, "OldField, NewField: the meaning changed"},
		{api, Modified, SubjectField, AspectRequired, reqOpt, reqOpt, "OldField, NewField, Required (the new side)"},
		{api, Modified, SubjectField, AspectReadOnly, boolText, boolText, "Old.Bool, New.Bool"},
		{api, Modified, SubjectField, AspectWriteOnly, boolText, boolText, "Old.Bool, New.Bool"},
		{api, Modified, SubjectField, AspectStability, "x-stability-level", "x-stability-level", ""},

		// Proto: files and packages.
		{proto, Removed, SubjectFile, "", none, none, ""},
		{proto, Modified, SubjectFile, AspectSyntax, "proto2 | proto3 | editions", "likewise", ""},
		{proto, Modified, SubjectFileOption, AspectOption, "the option's value", "the option's value", "Name: the option"},
		{proto, Removed, SubjectPackage, "", none, none, ""},
		{proto, Modified, SubjectPackage, AspectName, "the old package", "the new package", ""},
		// Declarations matched by full name; each may move to another file.
		{proto, Added, SubjectMessage, "", none, none, ""},
		{proto, Removed, SubjectMessage, "", none, none, "Proto.FileRemoved, Proto.PackageLoc"},
		{proto, Removed, SubjectEnum, "", none, none, "Proto.FileRemoved, Proto.PackageLoc"},
		{proto, Removed, SubjectService, "", none, none, "Proto.FileRemoved, Proto.PackageLoc"},
		{proto, Removed, SubjectExtension, "", none, none, "Proto.FileRemoved, Proto.PackageLoc"},
		{proto, Modified, SubjectMessage, AspectFile, "the old file", "the new file", ""},
		{proto, Modified, SubjectEnum, AspectFile, "the old file", "the new file", ""},
		{proto, Modified, SubjectService, AspectFile, "the old file", "the new file", ""},
		{proto, Modified, SubjectExtension, AspectFile, "the old file", "the new file", ""},
		// Messages.
		{proto, Modified, SubjectMessage, AspectMapEntry, boolText, boolText, ""},
		{proto, Modified, SubjectMessage, AspectJSONFormat, "ALLOW | LEGACY_BEST_EFFORT", "likewise", ""},
		{proto, Modified, SubjectMessage, AspectOption, boolText, boolText, "Name: the option; Old.Bool, New.Bool"},
		{proto, Modified, SubjectMessage, AspectExtensionRange, "the range", none, ""},
		{proto, Modified, SubjectMessage, AspectRequired, `"name = number" no longer required, or none`, `"name = number" now required, or none`, "Required (now required)"},
		{proto, Removed, SubjectOneof, "", none, none, ""},
		{proto, Removed, SubjectReserved, AspectNumber, "the range", none, "Name: message | enum"},
		{proto, Removed, SubjectReserved, AspectName, "the quoted name", none, "Name: message | enum"},
		// Fields (extensions included).
		{proto, Added, SubjectField, "", none, none, "NewField, Required (a validation rule requires it)"},
		{proto, Removed, SubjectField, "", none, none, "OldField, Proto.NumberReserved, Proto.NameReserved"},
		{proto, Modified, SubjectField, "", none, none, "OldField, NewField: the meaning changed"},
		{proto, Modified, SubjectField, AspectNumber, "the old number", "the new number", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectName, "the old name (full, for an extension)", "the new name", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectType, "the old type", "the new type", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectCardinality, "implicit | optional | required | repeated | map", "likewise", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectJSONName, "json_name", "json_name", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectOneof, "the oneof, or none", "the oneof, or none", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectDefault, "the default, or none", "the default, or none", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectPacked, boolText, boolText, "OldField, NewField"},
		{proto, Modified, SubjectField, AspectOption, "the option's value", "the option's value", "Name: ctype | jstype | utf8_validation | java_string_check_utf8"},
		// Validation bounds, protovalidate's or protoc-gen-validate's, in OpenAPI's aspects.
		{proto, Modified, SubjectField, AspectMinLength, "min_len, or none", "likewise", "Old.Limit, New.Limit"},
		{proto, Modified, SubjectField, AspectMaxLength, "max_len, or none", "likewise", "Old.Limit, New.Limit"},
		{proto, Modified, SubjectField, AspectMinimum, "gt or gte, or none", "likewise", "Old.Limit, New.Limit (gt: Exclusive)"},
		{proto, Modified, SubjectField, AspectMaximum, "lt or lte, or none", "likewise", "Old.Limit, New.Limit (lt: Exclusive)"},
		{proto, Modified, SubjectField, AspectPattern, "the pattern, or none", "likewise", ""},
		{proto, Modified, SubjectField, AspectConst, "const, or none", "likewise", ""},
		{proto, Modified, SubjectField, AspectEnum, `the "in" values joined by ", ", or none`, "likewise", ""},
		{proto, Removed, SubjectEnumValue, AspectAllowedValue, "the value left out of the field's in list", none, "OldField, NewField"},
		{proto, Added, SubjectEnumValue, AspectAllowedValue, none, "the value added to the field's in list", "OldField, NewField"},
		{proto, Added, SubjectEnumValue, AspectRefusedValue, none, "the value added to the field's not_in list", "OldField, NewField"},
		{proto, Modified, SubjectField, AspectRequired, reqOpt, reqOpt, "Required (the new side): a validation rule's required"},
		// Enums.
		{proto, Modified, SubjectEnum, AspectType, "open | closed", "open | closed", ""},
		{proto, Modified, SubjectEnum, AspectJSONFormat, "ALLOW | LEGACY_BEST_EFFORT", "likewise", ""},
		{proto, Added, SubjectEnumValue, "", none, "the number", ""},
		{proto, Removed, SubjectEnumValue, "", "the number", none, "Proto.NumberReserved, Proto.NameReserved"},
		{proto, Modified, SubjectEnumValue, AspectName, `the old names joined by ", "`, "the new names", "Proto.Parent, Proto.Number"},
		// Services.
		{proto, Added, SubjectRPC, "", none, none, ""},
		{proto, Removed, SubjectRPC, "", none, none, ""},
		{proto, Modified, SubjectRPC, AspectRequestType, "the old message", "the new message", ""},
		{proto, Modified, SubjectRPC, AspectResponseType, "the old message", "the new message", ""},
		{proto, Modified, SubjectRPC, AspectClientStreaming, boolText, boolText, ""},
		{proto, Modified, SubjectRPC, AspectServerStreaming, boolText, boolText, ""},
		{proto, Modified, SubjectRPC, AspectIdempotency, "idempotency_level", "idempotency_level", ""},
		{proto, Modified, SubjectRPC, AspectHTTPBinding, "the route (METHOD path template) removed", "the route in its place, or none", ""},
		{proto, Modified, SubjectRPC, AspectHTTPBody, "the old body field, or none", "the new body field, or none", "Name: the route"},

		// Review's own checks, over the repository rather than one contract.
		{api | proto, Removed, SubjectContract, "", none, none, ""},
		{api | proto, Modified, SubjectContract, AspectUnreadable, none, "why it cannot be read", ""},
		{proto, Modified, SubjectContract, AspectHistoryCut, none, "the commit a shallow clone's history stops at", ""},
		{api, Modified, SubjectContract, AspectConfigWeakened, none, "what the config loosened", ""},
		{proto, Modified, SubjectLock, "", "the field numbers the base's lock held", none, ""},
		{proto, Removed, SubjectLock, "", "the field numbers the base's lock held", none, ""},
	}, keywords...)
}

// Declared reports whether the vocabulary declares a change of c's format,
// kind, subject and aspect.
func Declared(c *Change) bool {
	for _, t := range Vocabulary() {
		if t.Formats&c.Format != 0 && t.Kind == c.Kind && t.Subject == c.Subject && t.Aspect == c.Aspect {
			return true
		}
	}
	return false
}
