package rules

import (
	"fmt"
	"slices"
	"strings"
)

// openapiLoosened covers response constraints that loosen (readers that
// trusted a bound, a pattern or an enum meet values they never saw) and the
// JSON Schema 2020-12 keywords, in the direction that breaks.
func openapiLoosened() []*Rule {
	return []*Rule{
		responseMaxIncreased(),
		responseMinDecreased(),
		responsePatternRemoved(),
		responsePatternChanged(),
		responseEnumRemoved(),
		responseMultipleOfChanged(),
		requestConstChanged(),
		responseConstChanged(),
		requestUniqueItemsSet(),
		responseUniqueItemsUnset(),
		requestSchemaKeywordAdded(),
		responseSchemaKeywordRemoved(),
		schemaBecameFalse(),
		responseSchemaBecameNotFalse(),
	}
}

func responseMaxIncreased() *Rule {
	return onChange(&Rule{
		ID: "response-max-increased", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectMaxLength}, {Modified, SubjectSchema, AspectMaximum}, {Modified, SubjectField, AspectMaxLength}, {Modified, SubjectField, AspectMaximum}},
		Oasdiff: []string{"response-*-max-increased", "response-*-max-unset", "response-*-max-*-increased", "response-*-max-*-unset", "response-*-exclusive-max-increased", "response-*-exclusive-max-unset"},
		Doc: Doc{
			Title: "A response upper bound was raised or removed",
			Text: "Clients size buffers, columns and checks by the maxLength, maximum, maxItems, maxProperties or maxContains a response " +
				"promises; a larger value (or none) overflows them. Keep the bound and add a new field for longer values.",
			Bad:  "name: {type: string, maxLength: 50}   ->   maxLength: 100",
			Good: "name: {type: string, maxLength: 50}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s of %q in a response raised from %s to %s: clients that relied on it meet larger values%s", c.Aspect, c.Name, c.Old.Text, orNone(c.New.Text), reach(c)),
			resp(c) && isAspect(c, AspectMaxLength, AspectMaximum, AspectMaxItems, AspectMaxProperties, AspectMaxContains) && tighter(c.New.Limit, c.Old.Limit, true)
	})
}

func responseMinDecreased() *Rule {
	return onChange(&Rule{
		ID: "response-min-decreased", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectMinItems}, {Modified, SubjectSchema, AspectMinimum}, {Modified, SubjectField, AspectMinLength}, {Modified, SubjectField, AspectMinimum}},
		Oasdiff: []string{"response-*-min-decreased", "response-*-min-unset", "response-*-min-*-decreased", "response-*-min-*-unset", "response-*-exclusive-min-decreased", "response-*-exclusive-min-unset"},
		Doc: Doc{
			Title: "A response lower bound was lowered or removed",
			Text: "Clients rely on the minLength, minimum, minItems, minProperties or minContains a response promises (a non-empty list, " +
				"a positive amount); a smaller value breaks that assumption.",
			Bad:  "items: {type: array, minItems: 1}   ->   minItems: 0",
			Good: "items: {type: array, minItems: 1}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s of %q in a response lowered from %s to %s: clients that relied on it meet smaller values%s", c.Aspect, c.Name, c.Old.Text, orNone(c.New.Text), reach(c)),
			resp(c) && isAspect(c, AspectMinLength, AspectMinimum, AspectMinItems, AspectMinProperties, AspectMinContains) && tighter(c.New.Limit, c.Old.Limit, false)
	})
}

func responsePatternRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-pattern-removed", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectPattern}, {Modified, SubjectField, AspectPattern}},
		Oasdiff: []string{"response-property-pattern-removed"},
		Doc: Doc{
			Title: "A response pattern was removed",
			Text: "Clients parse response values by the pattern they were promised (a code of three capitals); without it any " +
				"string may come back.",
			Bad:  "code: {type: string, pattern: '^[A-Z]{3}$'}   ->   code: {type: string}",
			Good: "code: {type: string, pattern: '^[A-Z]{3}$'}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("pattern %q of %q in a response removed: clients that parse by it meet other values%s", c.Old.Text, c.Name, reach(c)),
			c.Aspect == AspectPattern && resp(c) && c.Old.Text != "" && c.New.Text == ""
	})
}

func responsePatternChanged() *Rule {
	return onChange(&Rule{
		ID: "response-pattern-changed", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads:   []Entry{{Modified, SubjectSchema, AspectPattern}},
		Oasdiff: []string{"response-property-pattern-changed"},
		Doc: Doc{
			Title: "A response pattern changed",
			Text: "A response value now follows another pattern; clients that parse by the old one may fail on the new values. " +
				"A warning: the new pattern may well be narrower.",
			Bad:  "code: {pattern: '^[A-Z]{3}$'}   ->   {pattern: '^[A-Z]{3,4}$'}",
			Good: "code: {pattern: '^[A-Z]{3}$'}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("pattern of %q in a response changed from %q to %q: clients that parse by the old one may fail%s", c.Name, c.Old.Text, c.New.Text, reach(c)),
			c.Aspect == AspectPattern && resp(c) && c.Old.Text != "" && c.New.Text != ""
	})
}

func responseEnumRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-enum-removed", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectEnum}, {Modified, SubjectField, AspectEnum}},
		Oasdiff: []string{"response-property-became-not-enum", "response-mediatype-became-not-enum"},
		Doc: Doc{
			Title: "A response value is no longer an enum",
			Text: "Clients generated an enum type (or an exhaustive switch) for the listed values; without the list any value may come " +
				"back and they fail to decode it. Keep the enum and add values with the usual care.",
			Bad:  "status: {type: string, enum: [paid, failed]}   ->   status: {type: string}",
			Good: "status: {type: string, enum: [paid, failed]}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%q in a response is no longer limited to [%s]: clients generated for the enum fail on other values%s", c.Name, c.Old.Text, reach(c)),
			c.Aspect == AspectEnum && c.New.Text == "" && resp(c)
	})
}

func responseMultipleOfChanged() *Rule {
	return onChange(&Rule{
		ID: "response-multiple-of-changed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectMultipleOf}},
		Oasdiff: []string{"response-*-multiple-of-changed", "response-*-multiple-of-unset"},
		Doc: Doc{
			Title: "A response multipleOf was removed or made finer",
			Text: "Clients that store a value in units of its multipleOf (cents for 0.01) lose precision when values come back that " +
				"are not multiples of it.",
			Bad:  "amount: {type: number, multipleOf: 0.01}   ->   multipleOf: 0.001",
			Good: "amount: {type: number, multipleOf: 0.01}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("multipleOf of %q in a response changed from %s to %s: values clients did not expect may come back%s", c.Name, c.Old.Text, orNone(c.New.Text), reach(c)),
			c.Aspect == AspectMultipleOf && resp(c) && c.Old.Limit != nil && (c.New.Limit == nil || !divides(c.Old.Limit, c.New.Limit))
	})
}

func requestConstChanged() *Rule {
	return onChange(&Rule{
		ID: "request-const-changed", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectConst}, {Modified, SubjectField, AspectConst}},
		Oasdiff: []string{"request-*-const-added", "request-*-const-changed"},
		Doc: Doc{
			Title: "A request value was fixed with const, or its const changed",
			Text:  "A const allows exactly one value: clients that send any other (or the old const) are rejected.",
			Bad:   "version: {type: string}   ->   version: {const: '2'}",
			Good:  "version: {type: string}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%q in a request must now be %s (was %s): clients that send anything else are rejected%s", c.Name, c.New.Text, orNone(c.Old.Text), reach(c)),
			c.Aspect == AspectConst && req(c) && c.New.Text != ""
	})
}

func responseConstChanged() *Rule {
	return onChange(&Rule{
		ID: "response-const-changed", Pack: Breaking, Formats: OpenAPI | Proto, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectConst}, {Modified, SubjectField, AspectConst}},
		Oasdiff: []string{"response-*-const-changed", "response-*-const-removed"},
		Doc: Doc{
			Title: "A response const changed or was removed",
			Text:  "Clients rely on a const response value (a type tag, a version); another value, or none, breaks that reliance.",
			Bad:   "object: {const: charge}   ->   object: {type: string}",
			Good:  "object: {const: charge}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%q in a response was always %s, now %s: clients that relied on it break%s", c.Name, c.Old.Text, orNone(c.New.Text), reach(c)),
			c.Aspect == AspectConst && resp(c) && c.Old.Text != ""
	})
}

func requestUniqueItemsSet() *Rule {
	return onChange(&Rule{
		ID: "request-unique-items-set", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectUniqueItems}},
		Oasdiff: []string{"request-*-unique-items-set"},
		Doc: Doc{
			Title: "A request array must now hold unique items",
			Text:  "Clients that send a list with a repeated item are now rejected. De-duplicate on the server instead.",
			Bad:   "tags: {type: array}   ->   tags: {type: array, uniqueItems: true}",
			Good:  "tags: {type: array}   # the server drops repeats",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%q in a request must now hold unique items: clients that send a repeated one are rejected%s", c.Name, reach(c)),
			c.Aspect == AspectUniqueItems && c.New.Bool && req(c)
	})
}

func responseUniqueItemsUnset() *Rule {
	return onChange(&Rule{
		ID: "response-unique-items-unset", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectUniqueItems}},
		Oasdiff: []string{"response-*-unique-items-unset"},
		Doc: Doc{
			Title: "A response array may now repeat items",
			Text:  "Clients that read the array into a set, or count on no repeats, now meet repeated items.",
			Bad:   "tags: {type: array, uniqueItems: true}   ->   tags: {type: array}",
			Good:  "tags: {type: array, uniqueItems: true}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%q in a response may now repeat items: clients that relied on unique items break%s", c.Name, reach(c)),
			c.Aspect == AspectUniqueItems && c.Old.Bool && resp(c)
	})
}

func requestSchemaKeywordAdded() *Rule {
	return onChange(&Rule{
		ID: "request-schema-keyword-added", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, "dependentRequired"}, {Modified, SubjectSchema, "if"}, {Modified, SubjectSchema, "propertyNames"}, {Modified, SubjectSchema, "then"}, {Modified, SubjectSchema, "unevaluatedProperties"}},
		Oasdiff: []string{"request-*-contains-added", "request-*-dependent-required-added", "request-*-dependent-required-changed", "request-*-dependent-schema-added", "request-*-if-added", "request-*-then-added", "request-*-else-added", "request-*-property-names-added", "request-*-pattern-property-added", "request-*-unevaluated-items-added", "request-*-unevaluated-properties-added", "request-*-prefix-items-added", "request-*-prefix-items-removed", "request-*-content-encoding-changed", "request-*-content-media-type-changed", "request-*-content-schema-added"},
		Doc: Doc{
			Title: "A request schema gained (or changed) a constraining JSON Schema keyword",
			Text: "In OpenAPI 3.1 schemas, contains, dependentRequired, dependentSchemas, if/then/else, propertyNames, patternProperties, " +
				"unevaluatedItems, unevaluatedProperties (a schema), prefixItems and contentEncoding/contentMediaType/contentSchema " +
				"each reject values the schema " +
				"accepted without them; added or changed in a request, they reject what clients already send.",
			Bad:  "Order: {type: object}   ->   {type: object, dependentRequired: {coupon: [campaign]}}",
			Good: "Order: {type: object}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s %s on %q in a request: values clients send may now be rejected%s", c.Aspect, addedOrChanged(c), c.Name, reach(c)),
			slices.Contains(Constraining, c.Aspect) && req(c) && (c.New.Text != "" || c.Aspect == "prefixItems")
	})
}

func responseSchemaKeywordRemoved() *Rule {
	return onChange(&Rule{
		ID: "response-schema-keyword-removed", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, "contains"}, {Modified, SubjectSchema, "unevaluatedItems"}},
		Oasdiff: []string{"response-*-contains-removed", "response-*-dependent-required-removed", "response-*-dependent-required-changed", "response-*-dependent-schema-removed", "response-*-if-removed", "response-*-then-removed", "response-*-else-removed", "response-*-property-names-removed", "response-*-pattern-property-removed", "response-*-unevaluated-items-removed", "response-*-prefix-items-added", "response-*-prefix-items-removed", "response-*-content-encoding-changed", "response-*-content-media-type-changed", "response-*-content-schema-removed"},
		Doc: Doc{
			Title: "A response schema lost (or changed) a constraining JSON Schema keyword",
			Text: "A 2020-12 keyword (contains, dependentRequired, dependentSchemas, if/then/else, propertyNames, patternProperties, " +
				"unevaluatedItems, prefixItems, contentEncoding/contentMediaType/contentSchema) promised readers something about " +
				"response values; removed or changed, values they never saw may come back.",
			Bad:  "Order: {dependentRequired: {coupon: [campaign]}}   ->   Order: {}",
			Good: "Order: {dependentRequired: {coupon: [campaign]}}",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%s %s on %q in a response: clients may meet values it excluded%s", c.Aspect, addedOrChanged(c), c.Name, reach(c)),
			// unevaluatedProperties removed only lets unknown properties
			// through, which tolerant readers skip (see response-schema-closed).
			slices.Contains(Constraining, c.Aspect) && c.Aspect != "unevaluatedProperties" && resp(c) &&
				(c.Old.Text != "" || c.Aspect == "prefixItems")
	})
}

func schemaBecameFalse() *Rule {
	return onChange(&Rule{
		ID: "schema-became-false", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectBoolean}},
		Oasdiff: []string{"request-*-schema-became-false", "response-body-schema-became-false"},
		Doc: Doc{
			Title: "A schema became `false`",
			Text: "The boolean schema `false` matches no value: in a request every client that sends the value is rejected; in a " +
				"response the value can no longer be there for clients that read it. Remove the property through deprecation instead.",
			Bad:  "note: {type: string}   ->   note: false",
			Good: "note: {type: string, deprecated: true}",
		},
	}, func(c *Change) (string, bool) {
		// In a response, items that became false only end an array
		// sooner (prefixItems closed): readers lose nothing they relied on.
		return fmt.Sprintf("%q became the schema false: no value matches it any more%s", c.Name, reach(c)),
			c.Aspect == AspectBoolean && c.New.Bool && (req(c) || !strings.HasSuffix(c.Path, "/items"))
	})
}

func responseSchemaBecameNotFalse() *Rule {
	return onChange(&Rule{
		ID: "response-schema-became-not-false", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Modified, SubjectSchema, AspectBoolean}},
		Oasdiff: []string{"response-*-schema-became-not-false", "response-body-media-type-schema-removed"},
		Doc: Doc{
			Title: "A response schema that was `false` now admits values",
			Text:  "A response value that was `false` never came back; clients were built without it and now receive it.",
			Bad:   "legacy: false   ->   legacy: {type: string}",
			Good:  "legacy: false",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("%q in a response was the schema false and now admits values: clients never expected it%s", c.Name, reach(c)),
			c.Aspect == AspectBoolean && c.Old.Bool && resp(c)
	})
}

func addedOrChanged(c *Change) string {
	switch {
	case c.Old.Text == "":
		return "added"
	case c.New.Text == "":
		return "removed"
	}
	return "changed"
}
