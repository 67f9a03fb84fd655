package rules

// The checks of single-contract rules and of rules that compare two
// operations are wired here, as onChange wires per-change rules: a rule is a
// declared value plus a matcher that sees one thing at a time and says what
// is wrong with it, if anything.

// reads reports whether r applies to contract c: lowering fills only the
// facts of c's own format, so a rule of another format has nothing to see.
func (r *Rule) reads(c *Contract) bool { return c != nil && c.Format&r.Formats != 0 }

// issue is what a matcher found. For an operation, a zero at or path means
// the operation's own; old is where the old version said it (diff only).
type issue struct {
	msg  string
	at   Location
	path string // ignores under this path cover the finding
	old  *Location
}

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

// lintEach wires a matcher over one element of the contract at a time: a
// field, a schema, a message (list picks which).
func lintEach[T any](r *Rule, list func(*Contract) []T, match func(c *Contract, x T) *issue) *Rule {
	return lintContract(r, func(c *Contract) []Finding {
		var out []Finding
		for _, x := range list(c) {
			if i := match(c, x); i != nil {
				out = append(out, finding(r, c, i.at, i.path, i.msg))
			}
		}
		return out
	})
}

// The lists lintEach walks.
func fields(c *Contract) []*Field     { return c.Fields }
func schemas(c *Contract) []*Schema   { return c.Schemas }
func messages(c *Contract) []*Message { return c.Messages }

// lintOps wires a matcher over one operation at a time.
func lintOps(r *Rule, match func(c *Contract, op *Operation) *issue) *Rule {
	return lintContract(r, func(c *Contract) []Finding {
		var out []Finding
		for _, op := range c.Operations {
			if i := match(c, op); i != nil {
				out = append(out, opFinding(r, c, op, *i))
			}
		}
		return out
	})
}

// diffOps wires a matcher over each operation present in both versions.
func diffOps(r *Rule, match func(c *Contract, old, new *Operation) *issue) *Rule {
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
				if i := match(in.New, o, op); i != nil {
					out = append(out, opFinding(r, in.New, op, *i))
				}
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

// opFinding is the finding of issue i about op.
func opFinding(r *Rule, c *Contract, op *Operation, i issue) Finding {
	if i.at.IsZero() {
		i.at = op.Loc
	}
	if i.path == "" {
		i.path = op.Path
	}
	f := finding(r, c, i.at, i.path, i.msg, op.ID)
	f.Old = i.old
	return f
}
