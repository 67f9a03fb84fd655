package rules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contractlint/contractlint/rules"
)

// oasdiffChecks is every oasdiff (1.37) breaking check at level ERR or WARN
// (":WARN" marks the latter); each must map to a contractlint rule or to a
// reason in oasdiffNotNeeded.
var oasdiffChecks = strings.Fields(`
api-deprecated-sunset-missing api-deprecated-sunset-parse api-invalid-stability-level
api-removed-before-sunset api-removed-without-deprecation api-stability-decreased
api-sunset-date-changed-earlier api-sunset-date-changed-too-small api-sunset-date-too-small
api-global-security-removed api-global-security-scope-added api-path-removed-before-sunset
api-path-removed-without-deprecation api-path-sunset-parse api-security-anonymous-access-removed
api-security-component-api-key-in-changed api-security-component-api-key-name-changed
api-security-component-http-scheme-changed api-security-component-oauth-refresh-url-changed:WARN
api-security-component-oauth-token-url-changed:WARN api-security-component-oauth-url-changed:WARN
api-security-component-openid-connect-url-changed:WARN api-security-component-type-changed
api-security-removed api-security-scope-added new-request-path-parameter
new-required-request-default-parameter-to-existing-path new-required-request-header-property
new-required-request-parameter new-required-request-property new-required-request-property-with-default
request-body-added-required request-body-all-of-added request-body-any-of-removed request-body-became-enum
request-body-became-not-nullable request-body-became-required request-body-const-added
request-body-const-changed request-body-contains-added request-body-content-encoding-changed
request-body-content-media-type-changed request-body-content-schema-added
request-body-dependent-required-added request-body-dependent-required-changed
request-body-dependent-schema-added request-body-else-added request-body-enum-value-removed
request-body-exclusive-max-decreased request-body-exclusive-max-set request-body-exclusive-min-increased
request-body-exclusive-min-set request-body-if-added request-body-list-of-types-narrowed
request-body-max-contains-decreased request-body-max-contains-set request-body-max-decreased
request-body-max-items-decreased request-body-max-items-set request-body-max-length-decreased
request-body-max-length-set request-body-max-properties-decreased request-body-max-properties-set
request-body-max-set request-body-media-type-item-schema-added request-body-media-type-removed
request-body-media-type-schema-added request-body-min-contains-increased request-body-min-contains-set
request-body-min-increased request-body-min-items-increased request-body-min-items-set
request-body-min-length-increased request-body-min-length-set request-body-min-properties-increased
request-body-min-properties-set request-body-min-set request-body-multiple-of-changed
request-body-multiple-of-set request-body-one-of-removed request-body-pattern-property-added
request-body-prefix-items-added:WARN request-body-prefix-items-removed:WARN request-body-property-names-added
request-body-removed request-body-schema-became-false request-body-then-added request-body-type-changed
request-body-unevaluated-items-added request-body-unevaluated-properties-added request-body-unique-items-set
request-body-wrapped-in-one-of request-body-wrapped-in-one-of-original-preserved:WARN
request-header-property-became-enum request-header-property-became-required
request-optional-property-became-read-only:WARN request-required-property-became-not-read-only
request-required-property-became-read-only:WARN request-parameter-became-enum
request-parameter-became-not-nullable request-parameter-became-required
request-parameter-deprecated-sunset-missing request-parameter-enum-value-removed
request-parameter-exclusive-max-decreased request-parameter-exclusive-max-set
request-parameter-exclusive-min-increased request-parameter-exclusive-min-set
request-parameter-list-of-types-narrowed request-parameter-max-contains-decreased
request-parameter-max-contains-set request-parameter-max-decreased request-parameter-max-items-decreased
request-parameter-max-items-set request-parameter-max-length-decreased request-parameter-max-length-set
request-parameter-max-properties-decreased request-parameter-max-properties-set request-parameter-max-set
request-parameter-min-contains-increased request-parameter-min-contains-set request-parameter-min-increased
request-parameter-min-items-increased request-parameter-min-items-set request-parameter-min-length-increased
request-parameter-min-length-set request-parameter-min-properties-increased
request-parameter-min-properties-set request-parameter-min-set request-parameter-multiple-of-set
request-parameter-pattern-added request-parameter-pattern-changed:WARN
request-parameter-property-became-not-nullable request-parameter-property-enum-value-removed
request-parameter-property-list-of-types-narrowed request-parameter-property-schema-became-false
request-parameter-property-type-changed:WARN request-parameter-property-type-specialized
request-parameter-removed:WARN request-parameter-removed-before-sunset request-parameter-schema-became-false
request-parameter-sunset-date-changed-earlier request-parameter-sunset-date-changed-too-small
request-parameter-sunset-date-too-small request-parameter-sunset-deleted request-parameter-sunset-parse
request-parameter-type-changed request-parameter-x-extensible-enum-value-removed request-property-all-of-added
request-property-any-of-removed request-property-became-enum request-property-became-not-nullable
request-property-became-required request-property-became-required-with-default request-property-const-added
request-property-const-changed request-property-contains-added request-property-content-encoding-changed
request-property-content-media-type-changed request-property-content-schema-added
request-property-dependent-required-added request-property-dependent-required-changed
request-property-dependent-schema-added request-property-deprecated-sunset-invalid
request-property-deprecated-sunset-missing request-property-else-added request-property-enum-value-removed
request-property-exclusive-max-decreased request-property-exclusive-max-set
request-property-exclusive-min-increased request-property-exclusive-min-set request-property-if-added
request-property-list-of-types-narrowed request-property-max-contains-decreased
request-property-max-contains-set request-property-max-decreased request-property-max-items-decreased
request-property-max-items-set request-property-max-length-decreased request-property-max-length-set
request-property-max-properties-decreased request-property-max-properties-set request-property-max-set
request-property-min-contains-increased request-property-min-contains-set request-property-min-increased
request-property-min-items-increased request-property-min-items-set request-property-min-length-increased
request-property-min-length-set request-property-min-properties-increased request-property-min-properties-set
request-property-min-set request-property-multiple-of-changed request-property-multiple-of-set
request-property-one-of-removed request-property-pattern-added request-property-pattern-changed:WARN
request-property-pattern-property-added request-property-prefix-items-added:WARN
request-property-prefix-items-removed:WARN request-property-property-names-added request-property-removed:WARN
request-property-removed-before-sunset request-property-schema-became-false
request-property-stability-decreased request-property-sunset-date-changed-earlier
request-property-sunset-date-changed-too-small request-property-sunset-date-too-small
request-property-sunset-deleted request-property-then-added request-property-type-changed
request-property-unevaluated-items-added request-property-unevaluated-properties-added
request-property-unique-items-set request-property-x-extensible-enum-value-removed
required-response-header-removed response-body-all-of-removed response-body-any-of-added
response-body-became-nullable response-body-const-changed response-body-const-removed
response-body-contains-removed response-body-content-encoding-changed response-body-content-media-type-changed
response-body-content-schema-removed response-body-dependent-required-changed
response-body-dependent-required-removed response-body-dependent-schema-removed response-body-else-removed
response-body-exclusive-max-increased response-body-exclusive-max-unset response-body-exclusive-min-decreased
response-body-exclusive-min-unset response-body-if-removed response-body-list-of-types-widened
response-body-max-contains-increased response-body-max-contains-unset response-body-max-increased
response-body-max-items-increased response-body-max-items-unset response-body-max-length-increased
response-body-max-length-unset response-body-max-properties-increased response-body-max-properties-unset
response-body-max-unset response-body-media-type-item-schema-removed
response-body-media-type-item-schema-removed-untyped response-body-media-type-schema-removed
response-body-min-contains-decreased response-body-min-contains-unset response-body-min-decreased
response-body-min-items-decreased response-body-min-items-unset response-body-min-length-decreased
response-body-min-length-unset response-body-min-properties-decreased response-body-min-properties-unset
response-body-min-unset response-body-multiple-of-changed response-body-multiple-of-unset
response-body-one-of-added response-body-pattern-property-removed response-body-prefix-items-added:WARN
response-body-prefix-items-removed:WARN response-body-property-names-removed response-body-schema-became-false
response-body-then-removed response-body-type-changed response-body-type-generalized
response-body-unevaluated-items-removed response-body-unevaluated-properties-removed
response-body-unique-items-unset response-body-wrapped-in-one-of
response-body-wrapped-in-one-of-original-preserved:WARN response-header-became-nullable
response-header-became-optional response-header-exclusive-max-increased response-header-exclusive-max-unset
response-header-exclusive-min-decreased response-header-exclusive-min-unset
response-header-max-contains-increased response-header-max-contains-unset response-header-max-increased
response-header-max-items-increased response-header-max-items-unset response-header-max-length-increased
response-header-max-length-unset response-header-max-properties-increased response-header-max-properties-unset
response-header-max-unset response-header-min-contains-decreased response-header-min-contains-unset
response-header-min-decreased response-header-min-items-decreased response-header-min-items-unset
response-header-min-length-decreased response-header-min-length-unset response-header-min-properties-decreased
response-header-min-properties-unset response-header-min-unset response-header-multiple-of-unset
response-header-schema-became-not-false response-header-type-changed response-header-type-generalized
response-media-type-name-changed:WARN response-media-type-name-generalized
response-media-type-parameter-changed response-media-type-parameter-removed response-media-type-removed
response-mediatype-became-not-enum response-mediatype-enum-value-added
response-required-property-became-write-only response-required-property-removed
response-required-property-removed-before-sunset response-success-status-removed
response-property-all-of-removed response-property-any-of-added response-property-became-not-enum
response-property-became-nullable response-property-became-optional response-property-const-changed
response-property-const-removed response-property-contains-removed response-property-content-encoding-changed
response-property-content-media-type-changed response-property-content-schema-removed
response-property-dependent-required-changed response-property-dependent-required-removed
response-property-dependent-schema-removed response-property-deprecated-sunset-invalid
response-property-deprecated-sunset-missing response-property-else-removed response-property-enum-value-added
response-property-exclusive-max-increased response-property-exclusive-max-unset
response-property-exclusive-min-decreased response-property-exclusive-min-unset response-property-if-removed
response-property-list-of-types-widened response-property-max-contains-increased
response-property-max-contains-unset response-property-max-increased response-property-max-items-increased
response-property-max-items-unset response-property-max-length-increased response-property-max-length-unset
response-property-max-properties-increased response-property-max-properties-unset response-property-max-unset
response-property-min-contains-decreased response-property-min-contains-unset response-property-min-decreased
response-property-min-items-decreased response-property-min-items-unset response-property-min-length-decreased
response-property-min-length-unset response-property-min-properties-decreased
response-property-min-properties-unset response-property-min-unset response-property-multiple-of-changed
response-property-multiple-of-unset response-property-one-of-added response-property-pattern-changed:WARN
response-property-pattern-property-removed response-property-pattern-removed
response-property-prefix-items-added:WARN response-property-prefix-items-removed:WARN
response-property-property-names-removed response-property-schema-became-not-false
response-property-stability-decreased response-property-sunset-date-changed-earlier
response-property-sunset-date-changed-too-small response-property-sunset-date-too-small
response-property-sunset-deleted response-property-then-removed response-property-type-changed
response-property-type-generalized response-property-unevaluated-items-removed
response-property-unevaluated-properties-removed response-property-unique-items-unset sunset-deleted
webhook-removed`)

// oasdiffNotNeeded says, for the checks no rule covers, why none is needed.
// A key may use `*` as Rule.Oasdiff does.
var oasdiffNotNeeded = map[string]string{
	"api-deprecated-sunset-missing": sunsetPolicy, "request-parameter-deprecated-sunset-missing": sunsetPolicy,
	"*-property-deprecated-sunset-missing": sunsetPolicy,
	"api-deprecated-sunset-parse":          sunsetUnread, "request-parameter-sunset-parse": sunsetUnread,
	"*-property-deprecated-sunset-invalid": sunsetUnread,
	"*-sunset-date-changed-earlier":        sunsetMoved, "*-sunset-date-changed-too-small": sunsetMoved,
	"*-sunset-date-too-small": sunsetMoved, "*-sunset-deleted": sunsetMoved, "sunset-deleted": sunsetMoved,
	"api-invalid-stability-level": "an x-stability-level outside draft, alpha, beta and stable breaks no client; " +
		"stability-decreased compares the known levels and ignores others",
	"request-property-removed-before-sunset": "a request property clients still send is ignored once removed, not rejected, " +
		"unless the object is closed (request-additional-properties-closed); field-removed-without-deprecation covers " +
		"removal without warning",
	"*-unevaluated-properties-removed": "a response object that now admits unknown properties breaks only readers that " +
		"reject unknown properties, which response-schema-closed (evolvability) already warns about",
	"response-body-wrapped-in-one-of-original-preserved": "the old schema is compared with its own member and each " +
		"new alternative is response-one-of-added",
}

const (
	sunsetPolicy = "a policy on deprecating (a deprecated element must announce x-sunset); deprecating breaks no client, " +
		"and deprecated-removed and removed-before-sunset judge the removal that follows"
	sunsetUnread = "an unreadable x-sunset breaks no client by itself; removed-before-sunset counts it as not passed when " +
		"the element is removed"
	sunsetMoved = "moving or deleting a sunset date changes a plan, not the wire; removed-before-sunset judges the " +
		"removal against the sunset the old version announced"
)

// oasdiffPattern is the pattern Registry.Resolve matches check IDs with.
var oasdiffPattern = rules.OasdiffPattern

type oasdiffRow struct{ check, level, rules, reason string }

// oasdiffRows maps every check to its rules or its reason; problems lists
// what does not add up (a check with neither or both, a pattern matching
// nothing).
func oasdiffRows(reg *rules.Registry) (rows []oasdiffRow, problems []string) {
	type pat struct {
		re   *regexp.Regexp
		text string
		hit  bool
	}
	byRule := map[string][]*pat{}
	var ids []string
	for _, r := range reg.All() {
		for _, p := range r.Oasdiff {
			byRule[r.ID] = append(byRule[r.ID], &pat{re: oasdiffPattern(p), text: p})
		}
		if len(r.Oasdiff) > 0 {
			ids = append(ids, r.ID)
		}
	}
	var reasons []*pat
	for p := range oasdiffNotNeeded {
		reasons = append(reasons, &pat{re: oasdiffPattern(p), text: p})
	}
	slices.SortFunc(reasons, func(a, b *pat) int { return strings.Compare(a.text, b.text) })
	for _, c := range oasdiffChecks {
		name, level, _ := strings.Cut(c, ":")
		if level == "" {
			level = "ERR"
		}
		row := oasdiffRow{check: name, level: level}
		var covering []string
		for _, id := range ids {
			for _, p := range byRule[id] {
				if p.re.MatchString(name) {
					p.hit = true
					if !slices.Contains(covering, id) {
						covering = append(covering, id)
					}
				}
			}
		}
		for _, p := range reasons {
			if p.re.MatchString(name) {
				p.hit = true
				row.reason = oasdiffNotNeeded[p.text]
				break
			}
		}
		switch {
		case len(covering) == 0 && row.reason == "":
			problems = append(problems, fmt.Sprintf("oasdiff check %s: no rule covers it and no reason says why none is needed", name))
		case len(covering) > 0 && row.reason != "":
			problems = append(problems, fmt.Sprintf("oasdiff check %s: covered by %v yet also given a reason", name, covering))
		}
		for i, id := range covering {
			covering[i] = "`" + id + "`"
		}
		row.rules = strings.Join(covering, ", ")
		rows = append(rows, row)
	}
	for _, id := range ids {
		for _, p := range byRule[id] {
			if !p.hit {
				problems = append(problems, fmt.Sprintf("%s: Oasdiff pattern %q matches no oasdiff check", id, p.text))
			}
		}
	}
	for _, p := range reasons {
		if !p.hit {
			problems = append(problems, fmt.Sprintf("oasdiffNotNeeded: %q matches no oasdiff check", p.text))
		}
	}
	slices.SortFunc(rows, func(a, b oasdiffRow) int { return strings.Compare(a.check, b.check) })
	return rows, problems
}

// oasdiffMapping renders docs/oasdiff-mapping.md.
func oasdiffMapping(rows []oasdiffRow) string {
	var b strings.Builder
	b.WriteString("# oasdiff breaking checks in contractlint\n\n")
	b.WriteString("Generated from the rule registry by `go test ./rules -run TestOasdiffMapping -update`; do not edit.\n\n")
	b.WriteString("Every check `oasdiff breaking` (1.37) reports at level ERR or WARN, and the contractlint rule that\n")
	b.WriteString("reports the same situation, or why none is needed. contractlint's rules are fewer and broader: one\n")
	b.WriteString("rule covers the request body, a request property and a parameter alike, and a change inside a\n")
	b.WriteString("shared schema is reported once, naming the operations it reaches, where oasdiff repeats it per\n")
	b.WriteString("operation. `contractlint rules RULE-ID` prints a rule's documentation.\n\n")
	b.WriteString("| oasdiff check | level | contractlint rule, or why none is needed |\n|---|---|---|\n")
	for _, r := range rows {
		what := r.rules
		if what == "" {
			what = "none needed: " + r.reason
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.check, r.level, what)
	}
	b.WriteString(oasdiffParitySection())
	return b.String()
}

// TestOasdiffMapping checks that every oasdiff ERR/WARN check maps to a rule
// or a reason, and that docs/oasdiff-mapping.md says so.
func TestOasdiffMapping(t *testing.T) {
	rows, problems := oasdiffRows(rules.Default())
	for _, p := range problems {
		t.Error(p)
	}
	path := filepath.Join("..", "docs", "oasdiff-mapping.md")
	want := oasdiffMapping(rows)
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rules -run TestOasdiffMapping -update)", err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: run go test ./rules -run TestOasdiffMapping -update", path)
	}
}
