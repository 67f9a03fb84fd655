package rules

import "testing"

// TestPlaceholderReason: the reasons that say nothing are refused, the
// editor's own placeholder first among them; a real reason passes, even a
// short one or one that starts like a placeholder word.
func TestPlaceholderReason(t *testing.T) {
	for _, r := range []string{"", "  ", "REASON: say why no client breaks", "ok", "OK.", "okay", "fine", "TODO", "todo: fill in",
		"FIXME later", "TBD", "n/a", "none", "-", "...", "because", "reason", "wip"} {
		if !PlaceholderReason(r) {
			t.Errorf("PlaceholderReason(%q) = false, want true", r)
		}
	}
	for _, r := range []string{"the carrier moved to the shipment API", "no client reads it", "okayed by @payments in #123", "fine-grained scopes replace it"} {
		if PlaceholderReason(r) {
			t.Errorf("PlaceholderReason(%q) = true, want false", r)
		}
	}
}
