package replay

import (
	"fmt"

	"github.com/contractlint/contractlint/rules"
)

// Findings turns the report into findings for the reporters: one per
// (rule, operation, contract line, pointer), counting the requests that
// showed it, and one info finding per operation not sent.
func (r *Report) Findings(reg *rules.Registry) []rules.Finding {
	var out []rules.Finding
	seen := map[string]int{}
	count := map[string]int{}
	for _, res := range r.Results {
		p := res.Problem
		if p == nil {
			continue
		}
		key := fmt.Sprint(p.Rule, res.Request.Op.ID, p.Where, p.Pointer)
		count[key]++
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = len(out)
		out = append(out, finding(reg, p.Rule, p.Message, p.Where, res.Request.Op))
	}
	for key, i := range seen {
		if n := count[key]; n > 1 {
			out[i].Message += fmt.Sprintf(" (%d requests showed this)", n)
		}
	}
	notSent := map[string]bool{}
	for _, s := range r.NotSent {
		msg := fmt.Sprintf("%s: not sent: %s", opName(s.Op), s.Reason)
		if !notSent[msg] {
			notSent[msg] = true
			out = append(out, finding(reg, rules.ReplayNotSent, msg, s.Op.Loc, s.Op))
		}
	}
	rules.SortFindings(out)
	return out
}

func finding(reg *rules.Registry, id, msg string, where rules.Location, op *Operation) rules.Finding {
	f := rules.Finding{Rule: id, Severity: rules.Error, Message: msg, Where: where,
		Operations: []string{op.ID}, Format: rules.OpenAPI}
	if rule, ok := reg.Get(id); ok {
		f.Severity = rule.Severity
	}
	return f
}
