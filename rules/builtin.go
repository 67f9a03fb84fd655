package rules

import "slices"

// builtin lists every pack's rules; each pack lives in its own file.
func builtin() []*Rule {
	rs := slices.Concat(
		openapiBreaking(),
		evolution(),
		idempotency(),
		evolvability(),
		protoBreaking(),
		protoEvolution(),
		contractFiles(),
		probe(),
		forward(),
		replay(),
		[]*Rule{contractInvalid()},
	)
	covers := oasdiffOf()
	for _, r := range rs {
		if r.Oasdiff == nil {
			r.Oasdiff = covers[r.ID]
		}
	}
	return rs
}
