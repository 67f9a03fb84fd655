package rules

import "time"

// onChange builds a rule's check from a per-change matcher: the matcher sees
// one change of the rule's formats and returns the message when it applies.
// This keeps each rule a few lines, as buf's pair handlers do.
func onChange(r *Rule, match func(c *Change) (string, bool)) *Rule {
	return onChangeAt(r, func(c *Change, _ time.Time) (string, bool) { return match(c) })
}

// onChangeAt is onChange for a matcher that judges against the run's clock
// (Input.Now), such as a sunset date that may have passed.
func onChangeAt(r *Rule, match func(c *Change, now time.Time) (string, bool)) *Rule {
	r.Check = func(in *Input) []Finding {
		var out []Finding
		for i := range in.Changes {
			c := &in.Changes[i]
			if c.Format&r.Formats == 0 {
				continue
			}
			if msg, ok := match(c, in.Now); ok {
				out = append(out, c.Finding(r, msg))
			}
		}
		return out
	}
	if r.Mode == 0 {
		r.Mode = DiffRule
	}
	return r
}

// req and resp report whether c is in data clients send (a request) or
// read (a response); a shared schema's change may be in both.
func req(c *Change) bool  { return c.Dir.Has(Request) }
func resp(c *Change) bool { return c.Dir.Has(Response) }

// protoEnumValue reports whether c is a change of kind k to a proto enum's
// own value, not to a value a validation rule lists (AspectAllowedValue).
func protoEnumValue(c *Change, k Kind) bool { return c.Is(k, SubjectEnumValue) && c.Aspect == "" }

// listedValue reports whether c is a change of kind k to a value of a list
// a server checks data against: an OpenAPI enum, or a proto validation
// rule's `in`. A proto enum's own values are not one: readers keep an
// unknown number, so its changes are judged by proto's rules.
func listedValue(c *Change, k Kind) bool {
	return c.Is(k, SubjectEnumValue) && (c.Format != Proto || c.Aspect == AspectAllowedValue)
}
