package rules

import "testing"

// TestEnumNames holds every declared Kind and Subject to a name of its own, so
// a new constant cannot print as a number.
func TestEnumNames(t *testing.T) {
	seen := map[string]bool{}
	for k := Added; k <= Modified; k++ {
		if n := k.String(); n == "" || seen[n] || n[len(n)-1] == ')' {
			t.Errorf("Kind %d has name %q", k, n)
		} else {
			seen[n] = true
		}
	}
	for s := SubjectPath; s <= SubjectLock; s++ {
		if n := s.String(); n == "" || seen[n] || n[len(n)-1] == ')' {
			t.Errorf("Subject %d has name %q", s, n)
		} else {
			seen[n] = true
		}
	}
	if got := Subject(SubjectLock + 1).String(); got != "subject(26)" {
		t.Errorf("an undeclared subject prints %q", got)
	}
	if got := (Request | Response).String(); got != "request+response" {
		t.Errorf("Request|Response prints %q", got)
	}
}
