package engine

import "github.com/contractlint/contractlint/rules"

// ruleNames resolves, once per run, the rule each ignore names: its own ID,
// or a buf or oasdiff name standing for the rules it maps to, so an inline
// ignore written for buf or oasdiff keeps working.
func ruleNames(reg *rules.Registry, ignores []rules.Ignore) map[string][]string {
	names := make(map[string][]string, len(ignores))
	for _, ig := range ignores {
		if _, done := names[ig.Rule]; !done {
			ids, _ := reg.Resolve(ig.Rule)
			if len(ids) == 0 {
				ids = []string{ig.Rule}
			}
			names[ig.Rule] = ids
		}
	}
	return names
}
