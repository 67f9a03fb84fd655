package rules

import "fmt"

// contractInvalid reports what the format's validator finds wrong in a
// contract that still loaded: a blemish must not stop a team from using the
// tool (the diff runs anyway), but it should be seen and fixed.
func contractInvalid() *Rule {
	r := &Rule{
		ID:       "contract-invalid",
		Pack:     "lint",
		Formats:  OpenAPI,
		Severity: Warning,
		Title:    "The contract does not pass its format's validation",
		Doc: "The document parses and is compared, but kin-openapi's validation of OpenAPI 3.0/3.1 finds it wrong: " +
			"a response without a description, an operation without responses, a path parameter the operation does not declare, " +
			"a parameter without a schema, a duplicated operationId, an empty info.version, an OAuth flow without scopes. " +
			"Code generators and validating proxies may refuse such a document. One finding per problem, at the element it is about. " +
			"In a diff only problems the new version introduces are reported. `--strict` (or `strict: true` in .contractlint.yaml) " +
			"refuses an invalid document with exit status 2 instead.",
		Bad:  "responses:\n  '200': {}            # no description",
		Good: "responses:\n  '200':\n    description: The order",
	}
	return lintEach(r, func(c *Contract) []Invalid { return c.Invalid }, func(_ *Contract, p Invalid) *issue {
		// The message is the path: a diff compares problems by it, so a
		// problem the old version already had is not reported again.
		return &issue{msg: fmt.Sprintf("invalid OpenAPI document: %s", p.Msg), at: p.Loc, path: "#invalid: " + p.Msg}
	})
}
