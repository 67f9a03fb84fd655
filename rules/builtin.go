package rules

import "slices"

// builtin lists every pack's rules; each pack lives in its own file.
func builtin() []*Rule {
	return slices.Concat(
		openapiBreaking(),
		evolution(),
		idempotency(),
		evolvability(),
		protoBreaking(),
		protoEvolution(),
		contractFiles(),
		probe(),
		forward(),
	)
}
