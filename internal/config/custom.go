package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/custom"
	"github.com/contractlint/contractlint/rules"
)

// customRules compiles the rules the config defines: the entries of
// `rules:` whose value is a mapping. They are read before anything else so
// that severity, ignore and rules entries may name them like built-in rules.
func (p *parser) customRules(top *yaml.Node, data []byte) []*rules.Rule {
	top = deref(top)
	if top.Kind != yaml.MappingNode {
		return nil
	}
	var out []*rules.Rule
	comp := custom.NewCompiler(p.file, data)
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "rules" || deref(top.Content[i+1]).Kind != yaml.MappingNode {
			continue
		}
		entries := deref(top.Content[i+1]).Content
		for j := 0; j+1 < len(entries); j += 2 {
			k, v := entries[j], deref(entries[j+1])
			if v.Kind != yaml.MappingNode {
				continue
			}
			if p.known.rules[k.Value] {
				p.errorf(k, "rule %s: a custom rule cannot take the ID of a built-in rule", k.Value)
				continue
			}
			if r := comp.Rule(k, v); r != nil {
				out = append(out, r)
			}
			// Known even when it failed to compile: its own error says why,
			// and a severity naming it should not add another.
			p.known.rules[k.Value] = true
			p.known.packs[string(rules.Custom)] = true
		}
	}
	p.probs = append(p.probs, comp.Problems()...)
	return out
}

// Registry is the rules a run with this config knows: every built-in rule
// and the config's own.
func (c *Config) Registry() (*rules.Registry, error) {
	if c == nil || len(c.Custom) == 0 {
		return rules.Default(), nil
	}
	return rules.NewRegistry(append(rules.Default().All(), c.Custom...))
}

// ruleIDs resolves a name given where a rule ID is expected: a rule's own
// ID (built-in or custom), or a buf rule or category or an oasdiff check ID,
// which stand for the rules they map to. None when it is unknown.
// A released ID since renamed or retired loads with a warning, even when
// nothing covers it now: ok is false only for a name never released.
func (p *parser) ruleIDs(n *yaml.Node) (ids []string, ok bool) {
	if p.known.rules[n.Value] {
		return []string{n.Value}, true
	}
	ids, _ = p.reg.Resolve(n.Value)
	if t, retired := p.reg.Retired(n.Value); retired {
		p.warns = append(p.warns, fmt.Sprintf("%s:%d:%d: %s", p.file, n.Line, n.Column, t.Warning()))
		return ids, true
	}
	return ids, len(ids) > 0
}

// oneRule resolves the rule an accepted change names, which must be one
// rule: an alias standing for several would accept changes nobody chose.
func (p *parser) oneRule(v *yaml.Node) string {
	ids, ok := p.ruleIDs(v)
	switch len(ids) {
	case 0:
		if !ok {
			p.errorf(v, "unknown rule %q (see `contractlint rules`)", v.Value)
		}
		return v.Value
	case 1:
		return ids[0]
	}
	p.errorf(v, "%s stands for %d rules (%s); an accepted change names one", v.Value, len(ids), strings.Join(ids, ", "))
	return v.Value
}
