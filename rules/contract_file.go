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
	})}
}
