package rules

import (
	"fmt"
	"strings"
	"time"
)

// openapiLifecycle covers the second half of deprecate-then-remove: an
// operation or path the old version deprecated is removed, before or after
// the sunset date it announced (x-sunset).
func openapiLifecycle() []*Rule {
	return []*Rule{
		removedBeforeSunset(),
		deprecatedRemoved(),
	}
}

func removedBeforeSunset() *Rule {
	return onChangeAt(&Rule{
		ID: "removed-before-sunset", Pack: Breaking, Formats: OpenAPI, Severity: Error,
		Reads:   []Entry{{Removed, SubjectOperation, ""}, {Removed, SubjectPath, ""}},
		Oasdiff: []string{"api-removed-before-sunset", "api-path-removed-before-sunset", "api-path-sunset-parse"},
		Doc: Doc{
			Title: "A deprecated operation was removed before its sunset date",
			Text: "The old version deprecated the operation and promised it until its `x-sunset` date; removing it earlier breaks " +
				"the clients that planned their migration on that date. Keep it until the date has passed. A sunset that cannot be " +
				"read as a date (2025-12-31, RFC 3339 or an HTTP date) promises nothing a client can check, and counts as not passed.",
			Bad: `get:
  deprecated: true
  x-sunset: '2099-01-01'   # removed in the next release`,
			Good: `get:
  deprecated: true
  x-sunset: '2025-01-01'   # removed after that date`,
		},
	}, func(c *Change, now time.Time) (string, bool) {
		if !removedDeprecated(c) || c.Sunset == "" {
			return "", false
		}
		at, ok := sunsetDate(c.Sunset)
		if ok && !at.After(now) {
			return "", false
		}
		why := "its sunset date has not passed"
		if !ok {
			why = "its sunset is not a date"
		}
		return fmt.Sprintf("%s %s removed before its sunset (x-sunset %q): %s, and clients planned on it", subjectWord(c), c.Name, c.Sunset, why), true
	})
}

func deprecatedRemoved() *Rule {
	return onChangeAt(&Rule{
		ID: "deprecated-removed", Pack: Breaking, Formats: OpenAPI, Severity: Warning,
		Reads: []Entry{{Removed, SubjectOperation, ""}, {Removed, SubjectPath, ""}},
		Doc: Doc{
			Title: "A deprecated operation was removed",
			Text: "Removing an operation the old version already marked `deprecated: true` (with no sunset date, or one that has " +
				"passed) is the planned end of deprecate-then-remove, not a surprise: it is a warning, not an error. Clients that " +
				"still call it now fail, so check that none do (logs, --readers) before releasing.",
			Bad: `delete:
  deprecated: true    # removed while clients may still call it`,
			Good: `delete:
  deprecated: true
  x-sunset: '2025-01-01'   # removed after the announced date, with traffic checked`,
		},
	}, func(c *Change, now time.Time) (string, bool) {
		if !removedDeprecated(c) {
			return "", false
		}
		when := "it was already deprecated in the old version, with no sunset date"
		if c.Sunset != "" {
			at, ok := sunsetDate(c.Sunset)
			if !ok || at.After(now) {
				return "", false // removed-before-sunset
			}
			when = fmt.Sprintf("it was deprecated in the old version with a sunset of %s, which has passed", at.Format(time.DateOnly))
		}
		return fmt.Sprintf("deprecated %s %s removed: %s; make sure no client still calls it", subjectWord(c), c.Name, when), true
	})
}

func subjectWord(c *Change) string {
	if c.Subject == SubjectPath {
		return "path"
	}
	return "operation"
}

// sunsetDate reads an x-sunset value: a date, an RFC 3339 time or an HTTP
// date (the Sunset header's format, RFC 8594).
func sunsetDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.DateOnly, time.RFC3339, time.RFC1123, "2006-01-02 15:04:05 -0700 MST"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// removedDeprecated reports an operation or path removed that the old
// version deprecated.
func removedDeprecated(c *Change) bool {
	return c.Deprecated && (c.Is(Removed, SubjectOperation) || c.Is(Removed, SubjectPath))
}
