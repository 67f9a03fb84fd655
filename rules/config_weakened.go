package rules

// AspectConfigWeakened marks a change to .contractlint.yaml that loosens
// the gate: Old is what the base said, New what the change says.
const AspectConfigWeakened Aspect = "config-weakened"

// ConfigWeakenedID is the rule that reports it: the commands list its
// findings with what the change accepted itself.
const ConfigWeakenedID = "config-weakened"

// configWeakened reports, in review, a pull request that loosens its own
// check through the config. review reads the config from the base, like the
// lock, so the weaker setting takes effect only once merged; this finding
// puts the loosening in front of a reviewer.
func configWeakened() *Rule {
	return onChange(&Rule{
		ID:       ConfigWeakenedID,
		Reads:    []Entry{{Modified, SubjectContract, AspectConfigWeakened}},
		Pack:     Evolution,
		Formats:  OpenAPI | Proto,
		Severity: Error,
		// The config is the linter's, not the API: no client sees it.
		Bump: Patch,
		Doc: Doc{
			Title: "The change loosens .contractlint.yaml",
			Text: "A pull request that adds an ignore or an accept, lowers a severity, switches a rule or pack " +
				"off, raises a limit, narrows compat, loosens the proto level or drops a contracts glob would " +
				"otherwise pass its own check with the gate it just lowered. review reads .contractlint.yaml " +
				"from the base commit, so the change is judged by the config it started from; this finding says " +
				"the config itself was weakened, so a reviewer decides on it explicitly.",
			Bad:  "ignore:\n  - \"**\"   # added in the same pull request that breaks the API",
			Good: "# the config change in its own pull request, reviewed on its own",
		},
	}, func(c *Change) (string, bool) {
		return c.New.Text + " (the base's " + c.Path + " still governs this review)",
			c.Is(Modified, SubjectContract) && c.Aspect == AspectConfigWeakened
	})
}
