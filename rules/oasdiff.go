package rules

// oasdiffOf names the oasdiff check IDs (ERR and WARN) covered by the rules
// declared before Rule.Oasdiff existed; rules declared since name theirs in
// their own value. docs/oasdiff-mapping.md is generated from both.
func oasdiffOf() map[string][]string {
	return map[string][]string{
		"path-removed":                         {"api-path-removed-without-deprecation"},
		"operation-removed":                    {"api-removed-without-deprecation"},
		"security-requirement-added":           {"api-security-anonymous-access-removed", "api-security-removed", "api-global-security-removed"},
		"security-scope-added":                 {"api-security-scope-added", "api-global-security-scope-added"},
		"request-parameter-added-required":     {"new-required-request-parameter", "new-request-path-parameter", "new-required-request-default-parameter-to-existing-path"},
		"request-parameter-became-required":    {"request-parameter-became-required"},
		"request-parameter-removed":            {"request-parameter-removed", "request-parameter-removed-before-sunset"},
		"request-body-became-required":         {"request-body-became-required", "request-body-added-required"},
		"request-property-added-required":      {"new-required-request-property", "new-required-request-property-with-default", "new-required-request-header-property"},
		"request-property-became-required":     {"request-property-became-required", "request-property-became-required-with-default", "request-header-property-became-required"},
		"request-media-type-removed":           {"request-body-media-type-removed"},
		"request-property-type-changed":        {"request-*-type-changed", "request-*-list-of-types-narrowed", "request-parameter-property-type-specialized", "request-body-media-type-schema-added", "request-body-media-type-item-schema-added"},
		"request-enum-value-removed":           {"request-*-enum-value-removed"},
		"request-became-enum":                  {"request-*-became-enum"},
		"request-max-decreased":                {"request-*-max-decreased", "request-*-max-set", "request-*-max-*-decreased", "request-*-max-*-set"},
		"request-min-increased":                {"request-*-min-increased", "request-*-min-set", "request-*-min-*-increased", "request-*-min-*-set"},
		"request-pattern-changed":              {"request-*-pattern-added", "request-*-pattern-changed"},
		"request-multiple-of-changed":          {"request-*-multiple-of-changed", "request-*-multiple-of-set"},
		"request-additional-properties-closed": {"request-*-unevaluated-properties-added"},
		"request-became-not-nullable":          {"request-*-became-not-nullable"},
		"request-one-of-removed":               {"request-*-one-of-removed", "request-*-any-of-removed"},
		"request-all-of-added":                 {"request-*-all-of-added"},
		"response-status-removed":              {"response-success-status-removed"},
		"response-property-removed":            {"response-required-property-removed", "response-required-property-removed-before-sunset"},
		"response-property-became-optional":    {"response-property-became-optional"},
		"response-became-nullable":             {"response-*-became-nullable"},
		"response-property-type-changed":       {"response-*-type-changed", "response-*-list-of-types-widened", "response-*-type-generalized", "response-body-media-type-schema-removed", "response-body-media-type-item-schema-removed", "response-body-media-type-item-schema-removed-untyped"},
		"response-enum-value-added":            {"response-property-enum-value-added", "response-mediatype-enum-value-added"},
		"response-media-type-removed":          {"response-media-type-removed", "response-media-type-name-changed", "response-media-type-name-generalized", "response-media-type-parameter-changed", "response-media-type-parameter-removed"},
		"response-header-removed":              {"required-response-header-removed"},
		"response-one-of-added":                {"response-*-one-of-added", "response-*-any-of-added", "response-body-wrapped-in-one-of"},
		"field-removed-without-deprecation":    {"request-property-removed"},
		// A property whose type changes keeps its name but not its meaning;
		// field-redefined reports it once, in place of the type-changed rules.
		"field-redefined": {"request-property-type-changed", "response-property-type-changed", "request-parameter-property-type-*"},
	}
}
