package replay

import (
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/source"
	"github.com/contractlint/contractlint/openapi"
)

// Fixture is what a --fixtures file gives one operation: parameter values
// by name (path, query, header or cookie, as the contract places them) and
// a request body that replaces the derived ones.
type Fixture struct {
	Params map[string]any
	Body   any
	// line is where the operation's entry starts, for errors.
	line int
}

// param is the fixture's value for a parameter; a nil fixture has none.
func (f *Fixture) param(name string) (any, bool) {
	if f == nil {
		return nil, false
	}
	v, ok := f.Params[name]
	return v, ok
}

// Fixtures maps operationId (or "METHOD /template") to its fixture.
type Fixtures map[string]*Fixture

// of is the fixture for op, under its operationId or "METHOD /template".
func (fx Fixtures) of(op *Operation) *Fixture {
	if f, ok := fx[op.Name]; ok {
		return f
	}
	return fx[op.ID]
}

// ParseFixtures reads a --fixtures file:
//
//	createCharge:
//	  body: {amount_cents: 1500, currency: GBP, card_token: tok_visa}
//	getCharge:
//	  params: {id: ch_123}
//
// Anything else is an error naming file, line and what is wrong.
func ParseFixtures(name string, b []byte) (Fixtures, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, source.Errorf(name, 0, 0, "not YAML: %v", err)
	}
	fx := Fixtures{}
	if root.Kind == 0 {
		return fx, nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, source.Errorf(name, top.Line, top.Column, "want a map from operationId to {params, body}")
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		f, err := fixture(name, v)
		if err != nil {
			return nil, err
		}
		f.line = k.Line
		fx[k.Value] = f
	}
	return fx, nil
}

func fixture(name string, n *yaml.Node) (*Fixture, error) {
	if n.Kind != yaml.MappingNode {
		return nil, source.Errorf(name, n.Line, n.Column, "want a map with params and body")
	}
	f := &Fixture{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "params":
			if v.Kind != yaml.MappingNode {
				return nil, source.Errorf(name, v.Line, v.Column, "params: want a map from parameter name to value")
			}
			if err := v.Decode(&f.Params); err != nil {
				return nil, source.Errorf(name, v.Line, v.Column, "params: %v", err)
			}
		case "body":
			if err := v.Decode(&f.Body); err != nil {
				return nil, source.Errorf(name, v.Line, v.Column, "body: %v", err)
			}
		default:
			return nil, source.Errorf(name, k.Line, k.Column, "unknown key %q (want params or body)", k.Value)
		}
	}
	return f, nil
}

// Check reports a fixture for an operation the contract does not have, or
// a parameter the operation does not declare: a typo would otherwise be
// silently ignored.
func (fx Fixtures) Check(name string, doc *openapi.Doc) error {
	ops := operations(doc)
	var ps source.Problems
	for key, f := range fx {
		i := slices.IndexFunc(ops, func(o *Operation) bool { return o.Name == key || o.ID == key })
		if i < 0 {
			ps = append(ps, source.Errorf(name, f.line, 1, "%q is not an operationId of the contract", key)...)
			continue
		}
		declared := allParams(ops[i])
		for p := range f.Params {
			if !slices.ContainsFunc(declared, func(d *openapi3.Parameter) bool { return d.Name == p }) {
				ps = append(ps, source.Errorf(name, f.line, 1, "%s: %q is not a parameter of %s", key, p, ops[i].ID)...)
			}
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return ps
}
