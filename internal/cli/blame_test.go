package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestNearestAuthorWithinReach: blame now reads the whole file once, so
// nearestAuthor itself keeps to blameReach lines of the place asked about,
// as git blame -L kept it before.
func TestNearestAuthorWithinReach(t *testing.T) {
	var b strings.Builder
	for n := 1; n <= 60; n++ {
		sha := strings.Repeat("a", 40)
		text := "plain"
		if n == 5 || n == 50 {
			sha, text = strings.Repeat(fmt.Sprint(n%7), 40), "# contractlint:ignore field-removed"
		}
		fmt.Fprintf(&b, "%s %d %d 1\nauthor A%d\nauthor-mail <a%d@example.com>\n\t%s\n", sha, n, n, n, n, text)
	}
	out := []byte(b.String())
	for _, c := range []struct {
		line int
		want string
	}{{8, "A5 <a5@example.com>"}, {25, "A5 <a5@example.com>"}, {26, ""}, {45, "A50 <a50@example.com>"}, {60, "A50 <a50@example.com>"}} {
		if got := nearestAuthor(out, c.line, "field-removed"); got != c.want {
			t.Errorf("line %d: %q, want %q", c.line, got, c.want)
		}
	}
}
