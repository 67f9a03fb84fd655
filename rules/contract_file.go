package rules

import "fmt"

// contractFiles holds the rules about whole contract files, which only
// review sees: it knows which files a change deleted.
func contractFiles() []*Rule {
	return []*Rule{onChange(&Rule{
		ID:       "contract-file-removed",
		Pack:     "breaking",
		Formats:  OpenAPI | Proto,
		Severity: Error,
		Title:    "A contract file was deleted",
		Doc: "Deleting a contract file removes every operation, message and schema it declared in one " +
			"step: clients built against it lose the whole API at once, and nothing tells a reviewer " +
			"which of them still call it. Keep the file, mark what it declares deprecated, and delete " +
			"it only in a new major version once its consumers have moved.",
		Bad:  "# old: api/orders.yaml exists\n# new: the file is gone",
		Good: "# new: api/orders.yaml kept; its operations marked `deprecated: true`",
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("contract %s deleted: every client of what it declares breaks; deprecate its contents and keep the file", c.Path),
			c.is(Removed, SubjectContract)
	}), onChange(&Rule{
		ID:       "lock-file-weakened",
		Pack:     "evolution",
		Formats:  Proto,
		Severity: Error,
		Title:    "contractlint.lock lost field numbers it recorded",
		Doc: "contractlint.lock records every proto field number ever used, so a number stays taken after " +
			"history is squashed. A change that deletes the lock, or drops entries from it, would free those " +
			"numbers for reuse with a new meaning, which old clients then misread. review reads the lock from " +
			"the base commit, so the protection holds either way; this finding says the change tried to lower " +
			"it. Regenerate the lock with `contractlint lock`, which only ever adds, instead of editing it.",
		Bad:  "# contractlint.lock: an entry for shop.Charge 3 (price) deleted by hand",
		Good: "# contractlint.lock regenerated with `contractlint lock`: every earlier entry kept",
	}, func(c *Change) (string, bool) {
		what := "no longer records " + c.Old
		if c.Kind == Removed {
			what = "deleted: it held " + c.Old
		}
		return fmt.Sprintf("%s %s; those numbers stay reserved (review reads the lock from the base), "+
			"restore it or regenerate it with `contractlint lock`", c.Path, what), c.Subject == SubjectLock
	})}
}
