package openapi

import (
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/contractlint/contractlint/rules"
)

// OpenAPI 3.0 says a security requirement's list of names MUST be empty for
// a scheme other than oauth2 and openIdConnect; 3.1 lets such a scheme list
// the roles required to run the operation. Names a 3.0 document lists anyway
// (DigitalOcean lists its token scopes for an http bearer scheme) are outside
// its contract: the document draws a contract-invalid warning, and a name
// added there is reported as what the contract cannot tell.

// scopesOutside is why the names t lists for scheme are not part of its
// contract, or "" when they are (or scheme is not declared, which the
// validator reports).
func scopesOutside(t *openapi3.T, scheme string) string {
	typ := schemeType(t, scheme)
	if typ == "" || typ == "oauth2" || typ == "openIdConnect" || t.IsOpenAPI31OrLater() {
		return ""
	}
	return fmt.Sprintf("OpenAPI 3.0 asks an empty list for %s, an %s scheme, so the names listed are not part of the contract", scheme, typ)
}

func schemeType(t *openapi3.T, scheme string) string {
	if t.Components == nil {
		return ""
	}
	if s := t.Components.SecuritySchemes[scheme]; s != nil && s.Value != nil {
		return s.Value.Type
	}
	return ""
}

// scopeProblems is one contract-invalid warning for each scheme a 3.0
// document lists names for outside its contract, where it first does.
func (d *Doc) scopeProblems() []rules.Invalid {
	first := map[string]rules.Location{}
	note := func(reqs *openapi3.SecurityRequirements, loc rules.Location) {
		if reqs == nil {
			return
		}
		for _, r := range *reqs {
			for scheme, names := range r {
				if at, seen := first[scheme]; len(names) > 0 && scopesOutside(d.T, scheme) != "" && (!seen || cmpLoc(loc, at) < 0) {
					first[scheme] = loc
				}
			}
		}
	}
	note(&d.T.Security, d.FieldLoc(d.T.Origin, "security"))
	if d.T.Paths != nil {
		for _, item := range d.T.Paths.Map() {
			for _, op := range item.Operations() {
				note(op.Security, d.FieldLoc(op.Origin, "security"))
			}
		}
	}
	var out []rules.Invalid
	for _, scheme := range sortedKeys(first) {
		// The message names no operation: a diff reports a problem the
		// old version did not have, compared by its message.
		out = append(out, rules.Invalid{Loc: first[scheme], Msg: fmt.Sprintf(
			"security scheme %s (%s) is listed with scopes: OpenAPI 3.0 asks an empty list for schemes other than oauth2 and openIdConnect, "+
				"so they are not part of the contract, and a scope added there is reported as not decidable", scheme, schemeType(d.T, scheme))})
	}
	slices.SortStableFunc(out, func(a, b rules.Invalid) int { return cmpLoc(a.Loc, b.Loc) })
	return out
}
