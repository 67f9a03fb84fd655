package custom

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/rules"
)

// compile compiles the one rule defined in text (a mapping ID: {...}).
func compile(t *testing.T, text string) (*rules.Rule, string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	top := doc.Content[0]
	c := NewCompiler("c.yaml", []byte(text))
	r := c.Rule(top.Content[0], top.Content[1])
	if ps := c.Problems(); len(ps) > 0 {
		return nil, ps.Error()
	}
	return r, ""
}

// TestChangeViewDeclared fails when changeView fills a variable changeVars
// does not declare, or declares one it leaves unset: the one function and
// its declarations must change together.
func TestChangeViewDeclared(t *testing.T) {
	c := NewCompiler("c.yaml", nil)
	env, err := c.env("change")
	if err != nil {
		t.Fatal(err)
	}
	view := changeView(&rules.Change{})
	if len(view) != len(changeVars) {
		t.Errorf("changeView fills %d variables, changeVars declares %d", len(view), len(changeVars))
	}
	for name := range view {
		if _, iss := env.Compile(name); iss.Err() != nil {
			t.Errorf("changeView fills %s, which is not declared: %v", name, iss.Err())
		}
	}
}

// TestCheckReadsTheChange runs a compiled rule over changes: it matches by
// kind, subject and field facts, writes its message from the change, and
// keeps to its formats.
func TestCheckReadsTheChange(t *testing.T) {
	r, probs := compile(t, `
acme/unit-changed:
  severity: error
  formats: openapi
  title: t
  when: kind == "modified" && subject == "field" && old_field.unit != new_field.unit && "request" in direction.split("+")
  message: "{{ name }}: {{ old_field.unit }} -> {{ new_field.unit }} in {{ operations }} ({{ new_field.number + 1 }})"
`)
	if probs != "" {
		t.Fatal(probs)
	}
	field := func(unit string) *rules.Field { return &rules.Field{Name: "amount", Unit: unit, Number: 4} }
	in := &rules.Input{Changes: []rules.Change{
		{Kind: rules.Modified, Subject: rules.SubjectField, Name: "amount", Dir: rules.Request | rules.Response, Format: rules.OpenAPI,
			Operations: []string{"POST /a", "PUT /a"}, OldField: field("EUR"), NewField: field("cents"), NewLoc: rules.Location{File: "n.yaml", Line: 3}},
		{Kind: rules.Modified, Subject: rules.SubjectField, Name: "same", Dir: rules.Request, Format: rules.OpenAPI, OldField: field("EUR"), NewField: field("EUR")},
		{Kind: rules.Modified, Subject: rules.SubjectField, Name: "reply", Dir: rules.Response, Format: rules.OpenAPI, OldField: field("EUR"), NewField: field("USD")},
		{Kind: rules.Modified, Subject: rules.SubjectField, Name: "proto", Dir: rules.Request, Format: rules.Proto, OldField: field("EUR"), NewField: field("USD")},
	}}
	fs := r.Check(in)
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1: %v", len(fs), fs)
	}
	want := "amount: EUR -> cents in POST /a, PUT /a (5)"
	if fs[0].Message != want || fs[0].Severity != rules.Error || fs[0].Where.Line != 3 {
		t.Errorf("got %+v, want %q at line 3, error", fs[0], want)
	}
}

// TestCheckReadsTypedValues: required and location are the change's typed
// facts, not words to find in old and new.
func TestCheckReadsTypedValues(t *testing.T) {
	r, probs := compile(t, `
acme/no-required-header:
  severity: error
  title: t
  when: kind == "added" && subject == "parameter" && required && location == "header"
  message: "{{ location }} {{ name }}"
`)
	if probs != "" {
		t.Fatal(probs)
	}
	in := &rules.Input{Changes: []rules.Change{
		{Kind: rules.Added, Subject: rules.SubjectParameter, Name: "X-Region", In: "header", Required: true, Format: rules.OpenAPI},
		{Kind: rules.Added, Subject: rules.SubjectParameter, Name: "X-Trace", In: "header", Format: rules.OpenAPI},
		{Kind: rules.Added, Subject: rules.SubjectParameter, Name: "region", In: "query", Required: true, Format: rules.OpenAPI},
	}}
	fs := r.Check(in)
	if len(fs) != 1 || fs[0].Message != "header X-Region" {
		t.Fatalf("got %v, want one finding: header X-Region", fs)
	}
}

// TestRunCostLimit: an expression whose estimate fits, run over more
// operations than the estimate assumed, stops at the cost limit and says so
// at the change, rather than running on.
func TestRunCostLimit(t *testing.T) {
	r, probs := compile(t, `
acme/pairs:
  title: t
  when: operations.exists(a, operations.exists(b, a == b && a != b))
  message: m
`)
	if probs != "" {
		t.Fatal(probs)
	}
	var ops []string
	for i := range 2000 {
		ops = append(ops, fmt.Sprintf("GET /p%d", i))
	}
	fs := r.Check(&rules.Input{Changes: []rules.Change{{Kind: rules.Added, Subject: rules.SubjectPath, Format: rules.OpenAPI, Operations: ops}}})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "could not be evaluated") || !strings.Contains(fs[0].Message, "cost") {
		t.Fatalf("got %v, want one finding saying the cost limit stopped the rule", fs)
	}
}

// TestLintSchema: a lint rule over schemas sees a schema's properties side
// by side, so it can ask for a sibling.
func TestLintSchema(t *testing.T) {
	r, probs := compile(t, `
acme/amount-needs-currency:
  over: schema
  title: t
  when: schema.fields.exists(f, f.name.endsWith("amount")) && !schema.fields.exists(f, f.name == "currency")
  message: "{{ schema.path }} has an amount but no currency"
`)
	if probs != "" {
		t.Fatal(probs)
	}
	if r.Mode != rules.LintRule {
		t.Errorf("mode %v, want a lint rule", r.Mode)
	}
	c := &rules.Contract{Format: rules.OpenAPI, Schemas: []*rules.Schema{
		{Path: "#/a", Fields: []*rules.Field{{Name: "total_amount"}}},
		{Path: "#/b", Fields: []*rules.Field{{Name: "total_amount"}, {Name: "currency"}}},
	}}
	fs := r.Check(&rules.Input{New: c})
	if len(fs) != 1 || fs[0].Message != "#/a has an amount but no currency" || fs[0].Path != "#/a" {
		t.Fatalf("got %v, want one finding about #/a", fs)
	}
}

// TestProblems: each mistake is reported at its place in the config.
func TestProblems(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"acme/x:\n  title: t\n  when: kind == 1\n  message: m\n", "c.yaml:3:14: rule acme/x: found no matching overload for '_==_'"},
		{"acme/x:\n  title: t\n  when: true\n  message: 'a {{ nope }}'\n", "c.yaml:4:18: rule acme/x: undeclared reference to 'nope'"},
		{"acme/x:\n  title: t\n  when: true\n  message: 'a {{ name'\n", "c.yaml:4:15: rule acme/x: message: {{ has no matching }}"},
		{"acme/x:\n  when: true\n  message: m\n", "c.yaml:1:1: rule acme/x: a custom rule needs a title"},
		{"acme/x:\n  title: t\n  over: path\n  when: true\n  message: m\n", "c.yaml:3:9: rule acme/x: over: want change, field, operation or schema"},
		{"acme/x:\n  title: t\n  when: true\n  message: m\n  sevrity: error\n", `c.yaml:5:3: rule acme/x: unknown key "sevrity"`},
		{"x:\n  title: t\n", `c.yaml:1:1: custom rule "x": an ID is namespace/name`},
		// A folded block joins its lines with spaces: the mistake on its
		// second line is placed there, not past the end of the first.
		{"acme/x:\n  title: t\n  when: >-\n    kind == \"removed\" &&\n      nope\n  message: m\n", "c.yaml:5:7: rule acme/x: undeclared reference to 'nope'"},
		{"acme/x:\n  title: t\n  when: |\n    kind == \"removed\" &&\n    nope\n  message: m\n", "c.yaml:5:5: rule acme/x: undeclared reference to 'nope'"},
		{"acme/x:\n  title: t\n  when: >-\n    kind == \"removed\" &&\n    nope\n  message: m\n", "c.yaml:5:5: rule acme/x: undeclared reference to 'nope'"},
	} {
		_, probs := compile(t, tc.text)
		if !strings.Contains(probs, tc.want) {
			t.Errorf("%q:\ngot  %s\nwant %s", tc.text, probs, tc.want)
		}
	}
}
