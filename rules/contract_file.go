package rules

import "fmt"

// contractFiles holds the rules about whole contract files, which only
// review sees: it knows which files a change deleted.
func contractFiles() []*Rule {
	return []*Rule{contractUnreadable(), contractFileRemoved(), lockFileWeakened(), historyCut()}
}

func contractFileRemoved() *Rule {
	return onChange(&Rule{
		ID:       "contract-file-removed",
		Reads:    []Entry{{Removed, SubjectContract, ""}},
		Pack:     Breaking,
		Formats:  OpenAPI | Proto,
		Severity: Error,
		Doc: Doc{
			Title: "A contract file was deleted",
			Text: "Deleting a contract file removes every operation, message and schema it declared in one " +
				"step: clients built against it lose the whole API at once, and nothing tells a reviewer " +
				"which of them still call it. Keep the file, mark what it declares deprecated, and delete " +
				"it only in a new major version once its consumers have moved.",
			Bad: `# old: api/orders.yaml exists
# new: the file is gone`,
			Good: "# new: api/orders.yaml kept; its operations marked `deprecated: true`",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("contract %s deleted: every client of what it declares breaks; deprecate its contents and keep the file", c.Path),
			c.Is(Removed, SubjectContract)
	})
}

func lockFileWeakened() *Rule {
	return onChange(&Rule{
		ID:       "lock-file-weakened",
		Reads:    []Entry{{Modified, SubjectLock, ""}, {Removed, SubjectLock, ""}},
		Pack:     Evolution,
		Formats:  Proto,
		Severity: Error,
		// The lock is the linter's record, not the API: no client sees it.
		Bump: Patch,
		Doc: Doc{
			Title: "contractlint.lock lost field numbers it recorded",
			Text: "contractlint.lock records every proto field number ever used, so a number stays taken after " +
				"history is squashed. A change that deletes the lock, or drops entries from it, would free those " +
				"numbers for reuse with a new meaning, which old clients then misread. review reads the lock from " +
				"the base commit, so the protection holds either way; this finding says the change tried to lower " +
				"it. Regenerate the lock with `contractlint lock`, which only ever adds, instead of editing it.",
			Bad:  "# contractlint.lock: an entry for shop.Charge 3 (price) deleted by hand",
			Good: "# contractlint.lock regenerated with `contractlint lock`: every earlier entry kept",
		},
	}, func(c *Change) (string, bool) {
		what := "no longer records " + c.Old.Text
		if c.Kind == Removed {
			what = "deleted: it held " + c.Old.Text
		}
		return fmt.Sprintf("%s %s; those numbers stay reserved (review reads the lock from the base), "+
			"restore it or regenerate it with `contractlint lock`", c.Path, what), c.Subject == SubjectLock
	})
}

// AspectUnreadable marks a contract that review could not read: New holds
// what is wrong with it.
const AspectUnreadable Aspect = "unreadable"

// contractUnreadable reports, in a review of several contracts, one that
// does not parse or compile, so the findings of the others still reach the
// reviewer. Alone, an unreadable contract is an input error (exit 2).
func contractUnreadable() *Rule {
	return onChange(&Rule{
		ID:       "contract-unreadable",
		Reads:    []Entry{{Modified, SubjectContract, AspectUnreadable}},
		Pack:     Breaking,
		Formats:  OpenAPI | Proto,
		Severity: Error,
		Doc: Doc{
			Title: "A changed contract cannot be read",
			Text: "review compares every contract a change touches. When one of them does not parse or " +
				"compile (a syntax error, an import no root holds), nothing can be said about what it " +
				"breaks, so it is reported as an error at the place the problem is; the other contracts " +
				"are still reviewed and reported. Fix the contract, or tell contractlint where its imports " +
				"are (buf.yaml, --proto-path or proto.paths).",
			Bad: `// orders.proto
import "shop/common/v1/money.proto";   // no import root holds it`,
			Good: `# buf.yaml
version: v2
modules:
  - path: proto`,
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("contract %s cannot be read, so what it breaks is unknown: %s", c.Path, c.New.Text),
			c.Is(Modified, SubjectContract) && c.Aspect == AspectUnreadable
	})
}

// AspectHistoryCut marks a review whose field-number history stops at a
// shallow clone's edge: New holds the commit it stops at.
const AspectHistoryCut Aspect = "history-cut"

// historyCut says, in every format, that a shallow clone hid the field
// numbers used before its oldest commit: silence would read as "checked".
func historyCut() *Rule {
	return onChange(&Rule{
		ID:       "history-cut",
		Reads:    []Entry{{Modified, SubjectContract, AspectHistoryCut}},
		Pack:     Evolution,
		Formats:  Proto,
		Severity: Warning,
		Doc: Doc{
			Title: "The field-number history stops at a shallow clone's edge",
			Text: "review reads every version of a changed .proto file from git to find the field numbers it " +
				"ever used, so a number freed long ago is not taken again. A shallow clone (actions/checkout " +
				"fetches one commit by default) holds no commit before its edge, so numbers used only before " +
				"it were not checked. Fetch the whole history (fetch-depth: 0, or git fetch --unshallow; the " +
				"contractlint action deepens the clone itself), or keep the numbers in contractlint.lock.",
			Bad:  "# actions/checkout with the default fetch-depth: 1",
			Good: "# actions/checkout with fetch-depth: 0",
		},
	}, func(c *Change) (string, bool) {
		return fmt.Sprintf("history cut at %s: numbers used before it were not checked (the clone is shallow; fetch its whole history)", c.New.Text),
			c.Is(Modified, SubjectContract) && c.Aspect == AspectHistoryCut
	})
}
