package rules

import "slices"

// builtin lists every rule; each family (a pack, or one part of a large
// pack such as breaking) lives in its own file.
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
		replay(),
		[]*Rule{contractInvalid(), configWeakened(), versionBumpMissing()},
	)
}
