package review

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/contractlint/contractlint/internal/config"
	"github.com/contractlint/contractlint/rules"
)

// ConfigWeakened lists what the head's .contractlint.yaml loosens against
// the base's (an empty config when the base has none): one config-weakened
// change each, at the line of the head's text that says it. review runs
// with the base's config, so each takes effect only once merged.
func ConfigWeakened(base, head *config.Config, name string, headText []byte) []rules.Change {
	var doc yaml.Node
	_ = yaml.Unmarshal(headText, &doc) // Parse read it already; a failure here only loses lines
	var top *yaml.Node
	if len(doc.Content) > 0 {
		top = doc.Content[0]
	}
	var out []rules.Change
	add := func(key, what string, find ...string) {
		line, col := 1, 1
		if n := locate(top, key, find...); n != nil {
			line, col = n.Line, n.Column
		}
		out = append(out, rules.Change{Kind: rules.Modified, Subject: rules.SubjectContract, Aspect: rules.AspectConfigWeakened,
			Format: rules.OpenAPI, Name: name, Path: name, New: rules.Value{Text: what},
			NewLoc: rules.Location{File: name, Line: line, Column: col}})
	}
	for _, g := range head.Ignore {
		if !slices.Contains(base.Ignore, g) {
			add("ignore", fmt.Sprintf("ignore %q added: findings in the files it matches are dropped", g), g)
		}
	}
	for _, a := range head.Accepts {
		if !slices.ContainsFunc(base.Accepts, func(b rules.Ignore) bool { return reflect.DeepEqual(a, b) }) {
			add("ignore", fmt.Sprintf("accept of %s at %s added", a.Rule, a.Element), a.Rule)
		}
	}
	reg := rules.Default()
	for _, id := range slices.Sorted(maps.Keys(head.Severity)) {
		sev, was := head.Severity[id], base.Severity[id]
		if _, ok := base.Severity[id]; !ok {
			if r, ok := reg.Get(id); ok {
				was = r.Severity
			} else {
				continue
			}
		}
		if sev < was {
			add("severity", fmt.Sprintf("severity of %s lowered from %s to %s", id, was, sev), id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(head.Rules)) {
		if !head.Rules[id] && base.Rules[id] != head.Rules[id] {
			if on, set := base.Rules[id]; set && !on {
				continue
			}
			add("rules", fmt.Sprintf("rule %s switched off", id), id)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(head.Packs)) {
		if on, set := base.Packs[p]; !head.Packs[p] && (!set || on) {
			add("packs", fmt.Sprintf("pack %s switched off", p), p)
		}
	}
	for _, g := range base.ContractGlobs() {
		if !slices.Contains(head.ContractGlobs(), g) {
			add("contracts", fmt.Sprintf("contracts glob %q dropped: the files it matched are no longer reviewed", g))
		}
	}
	if base.RequireApproval && !head.RequireApproval {
		add("require-approval", "require-approval switched off: acceptances a change adds itself no longer fail")
	}
	if was, now := orBackward(base.Compat), orBackward(head.Compat); was&^now != 0 {
		add("compat", fmt.Sprintf("compat narrowed from %s to %s", was, now))
	}
	if head.ProtoLevel != 0 && head.ProtoLevel > max(base.ProtoLevel, rules.LevelFile) {
		add("proto", "proto.level loosened", "level")
	}
	if was, now := gate(base.FailOn), gate(head.FailOn); now > was {
		add("fail-on", fmt.Sprintf("fail-on raised from %s to %s: findings below it no longer fail the check", orError(base.FailOn), head.FailOn))
	}
	if l, keys := raisedLimits(base, head); len(l) > 0 {
		add("limits", "limits raised: "+strings.Join(l, ", "), keys[0])
	}
	return out
}

// gate ranks a config's fail-on: the higher, the fewer findings fail (an
// unset one is the default, error).
func gate(failOn string) int {
	return slices.Index([]string{"info", "warning", "error", rules.FailOnVersionBump, "never"}, orError(failOn))
}

func orError(failOn string) string {
	if failOn == "" {
		return "error"
	}
	return failOn
}

// orBackward is a config's compat, backward when unset.
func orBackward(c rules.Compat) rules.Compat {
	if c == 0 {
		return rules.Backward
	}
	return c
}

// raisedLimits names the limits the head allows more of than the base (a
// zero is the built-in default).
func raisedLimits(base, head *config.Config) (out, keys []string) {
	b, h := base.Limits.OrDefault(), head.Limits.OrDefault()
	for _, c := range []struct {
		name     string
		old, new int64
	}{
		{"file-size", b.FileSize, h.FileSize}, {"depth", int64(b.Depth), int64(h.Depth)},
		{"files", int64(b.Files), int64(h.Files)}, {"elements", int64(b.Elements), int64(h.Elements)},
		{"keys", int64(b.Keys), int64(h.Keys)}, {"proto-line", int64(b.ProtoLine), int64(h.ProtoLine)},
		{"total-elements", int64(b.TotalElements), int64(h.TotalElements)},
	} {
		if c.new > c.old {
			out = append(out, fmt.Sprintf("%s %d -> %d", c.name, c.old, c.new))
			keys = append(keys, c.name)
		}
	}
	return out, keys
}

// locate finds the node under the top-level key that says one of find (a
// scalar equal to it, or a key), else the key itself.
func locate(top *yaml.Node, key string, find ...string) *yaml.Node {
	if top == nil || top.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != key {
			continue
		}
		if len(find) > 0 {
			if n := findScalar(top.Content[i+1], find[0]); n != nil {
				return n
			}
		}
		return top.Content[i]
	}
	return nil
}

func findScalar(n *yaml.Node, v string) *yaml.Node {
	if n.Kind == yaml.ScalarNode && n.Value == v {
		return n
	}
	for _, c := range n.Content {
		if f := findScalar(c, v); f != nil {
			return f
		}
	}
	return nil
}
