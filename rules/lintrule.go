package rules

// The checks of single-contract rules and of rules that compare two
// operations are wired here, as onChange wires per-change rules: a rule is a
// declared value plus a matcher that sees one thing at a time.

// reads reports whether r applies to contract c: lowering fills only the
// facts of c's own format, so a rule of another format has nothing to see.
func (r *Rule) reads(c *Contract) bool { return c != nil && c.Format&r.Formats != 0 }

// lintContract wires a check that reads the whole lowered contract.
func lintContract(r *Rule, check func(c *Contract) []Finding) *Rule {
	r.Mode = LintRule
	r.Check = func(in *Input) []Finding {
		if !r.reads(in.New) {
			return nil
		}
		return check(in.New)
	}
	return r
}

// lintOps wires a check that looks at one operation at a time.
func lintOps(r *Rule, check func(c *Contract, op *Operation) []Finding) *Rule {
	r.Mode = LintRule
	r.Check = func(in *Input) []Finding {
		if !r.reads(in.New) {
			return nil
		}
		var out []Finding
		for _, op := range in.New.Operations {
			out = append(out, check(in.New, op)...)
		}
		return out
	}
	return r
}

// diffOps wires a check over each operation present in both versions.
func diffOps(r *Rule, check func(c *Contract, old, new *Operation) []Finding) *Rule {
	r.Mode = DiffRule
	r.Check = func(in *Input) []Finding {
		if in.Old == nil || !r.reads(in.New) {
			return nil
		}
		old := make(map[string]*Operation, len(in.Old.Operations))
		for _, op := range in.Old.Operations {
			old[op.ID] = op
		}
		var out []Finding
		for _, op := range in.New.Operations {
			if o, ok := old[op.ID]; ok {
				out = append(out, check(in.New, o, op)...)
			}
		}
		return out
	}
	return r
}

func finding(r *Rule, c *Contract, where Location, path, msg string, ops ...string) Finding {
	return Finding{Rule: r.ID, Severity: r.Severity, Message: msg, Where: where, Path: path,
		Format: c.Format, Operations: ops}
}

// opFinding is a lint finding about op, pointing at where (the operation
// itself when where is zero) and covered by ignores under path (op's own
// path when empty).
func opFinding(r *Rule, c *Contract, op *Operation, where Location, path, msg string) Finding {
	if where.IsZero() {
		where = op.Loc
	}
	if path == "" {
		path = op.Path
	}
	return Finding{Rule: r.ID, Severity: r.Severity, Message: msg, Where: where,
		Operations: []string{op.ID}, Path: path, Format: c.Format}
}
